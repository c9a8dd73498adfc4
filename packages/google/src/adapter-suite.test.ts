// The adapter kit of @toolnexus/provider-utils run against this adapter (Gemini API): text,
// function calls, parallel calls, streaming split at every byte, usage, errors and retries,
// abort, key redaction and the client scenarios, on payloads shaped as the recordings in
// src/__fixtures__.
import { createClient } from "@toolnexus/client";
import { type AdapterHarness, adapterSuite } from "@toolnexus/provider-utils/testing";
import { google } from "./index.js";
import { errorBody, response, stream } from "./test-fixtures.js";
import type { GenerateContentRequest } from "./wire.js";

export const geminiHarness: AdapterHarness = {
  provider: "google",
  model: (settings) =>
    google({
      model: "gemini-3-pro-preview",
      baseUrl: `${settings.baseUrl}/v1beta`,
      apiKey: settings.apiKey,
      retries: settings.retries,
      retryBaseMs: settings.retryBaseMs,
      ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
    }),
  json: response,
  sse: stream,
  errorBody,
  isStream: (request) => request.path.includes(":streamGenerateContent?alt=sse"),
  turnIndex: (request) =>
    (request.body as GenerateContentRequest).contents.filter((c) => c.role === "model").length,
  toolResults: (request) => {
    const last = (request.body as GenerateContentRequest).contents.at(-1);
    return (last?.parts ?? []).flatMap((part) => {
      const result = part.functionResponse;
      if (result === undefined) return [];
      const content = result.response.output ?? result.response.error;
      return [
        {
          name: result.name,
          content: String(content),
          ...(result.id === undefined ? {} : { callId: result.id }),
        },
      ];
    });
  },
  generatedCallIds: true,
  usageDetails: ["cacheReadTokens", "reasoningTokens"],
  createClient,
};

await adapterSuite("google (Gemini API)", geminiHarness);
