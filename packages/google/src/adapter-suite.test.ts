// The adapter kit of @toolnexus/provider-utils run against this adapter (Gemini API): text,
// function calls, parallel calls, streaming split at every byte, usage, errors and retries,
// abort, key redaction and the client scenarios, on payloads shaped as the recordings in
// src/__fixtures__.
import { createClient, memoryRunStore, translate } from "@toolnexus/client";
import {
  type AdapterHarness,
  adapterSuite,
  type KitErrorReport,
  kitModel,
  packageVersion,
  sseEvent,
} from "@toolnexus/provider-utils/testing";
import { type GoogleOptions, google } from "./index.js";
import { errorBody, response, stream } from "./test-fixtures.js";
import type { GenerateContentRequest } from "./wire.js";

/** The adapter's factory, called with the options as given. */
const create = (options: Record<string, unknown> & { model: string }) =>
  google(options as GoogleOptions);

export const geminiHarness: AdapterHarness = {
  provider: "google",
  model: kitModel(create, "gemini-3-pro-preview", "/v1beta"),
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
  toolImages: (request) => {
    const last = (request.body as GenerateContentRequest).contents.at(-1);
    return (last?.parts ?? []).flatMap((part) =>
      (part.functionResponse?.parts ?? []).map(({ inlineData }) => ({
        mimeType: inlineData.mimeType,
        data: inlineData.data,
      })),
    );
  },
  generatedCallIds: true,
  usageDetails: ["cacheReadTokens", "reasoningTokens"],
  errorReport: {
    http: (_status, report) => googleError(report),
    body: googleError,
    stream: (report) => sseEvent(googleError(report)),
  },
  baseUrlEnv: {
    variable: "GOOGLE_GEMINI_BASE_URL",
    model: (apiKey) => google({ model: "gemini-3-pro-preview", apiKey }),
  },
  createClient,
  memoryRunStore,
  translate,
  options: {
    create,
    apiKeyEnv: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
    keyHeader: { name: "x-goog-api-key", value: (key) => key },
    userAgent: {
      product: "toolnexus-google",
      version: packageVersion(new URL("../package.json", import.meta.url)),
    },
    idPrefix: "google",
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  },
};

/** Google's error: the kind in `status`, the reason in an `ErrorInfo` detail. */
function googleError(report: KitErrorReport): unknown {
  return {
    error: {
      code: report.status,
      message: report.message,
      status: report.type,
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: report.code,
          domain: "googleapis.com",
        },
      ],
    },
  };
}

await adapterSuite("google (Gemini API)", geminiHarness);
