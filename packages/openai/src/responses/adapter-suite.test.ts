// The adapter kit of @toolnexus/provider-utils run against openaiResponses (the Responses API):
// text, function calls, parallel calls, streaming split at every byte, usage, errors and
// retries, abort, key redaction and the client scenarios.
import { createClient } from "@toolnexus/client";
import { type AdapterHarness, adapterSuite } from "@toolnexus/provider-utils/testing";
import { openaiResponses } from "../index.js";
import { response, stream } from "./test-fixtures.js";
import type { ResponsesRequestBody } from "./wire.js";

export const responsesHarness: AdapterHarness = {
  provider: "openai",
  model: (settings) =>
    openaiResponses({
      model: "gpt-5-mini",
      baseUrl: `${settings.baseUrl}/v1`,
      apiKey: settings.apiKey,
      retries: settings.retries,
      retryBaseMs: settings.retryBaseMs,
      ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
    }),
  json: response,
  sse: stream,
  // The same error envelope as Chat Completions.
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: status === 401 ? "invalid_api_key" : null,
    },
  }),
  isStream: (request) => (request.body as ResponsesRequestBody).stream === true,
  turnIndex: (request) => {
    // An assistant turn is a run of assistant messages and function calls.
    const kinds = (request.body as ResponsesRequestBody).input.map((item) =>
      ("role" in item && item.role === "assistant") ||
      ("type" in item && item.type === "function_call")
        ? "model"
        : "other",
    );
    return kinds.filter((kind, i) => kind === "model" && kinds[i - 1] !== "model").length;
  },
  toolResults: (request) => {
    const input = (request.body as ResponsesRequestBody).input;
    const results = [];
    for (let i = input.length - 1; i >= 0; i--) {
      const item = input[i];
      if (item === undefined || !("type" in item) || item.type !== "function_call_output") break;
      results.unshift({ callId: item.call_id, content: item.output });
    }
    return results;
  },
  usageDetails: ["cacheReadTokens", "reasoningTokens"],
  createClient,
};

await adapterSuite("openai (Responses API)", responsesHarness);
