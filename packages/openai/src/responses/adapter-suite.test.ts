// The adapter kit of @toolnexus/provider-utils run against openaiResponses (the Responses API):
// text, function calls, parallel calls, streaming split at every byte, usage, errors and
// retries, abort, key redaction and the client scenarios.
import { createClient, memoryRunStore, translate } from "@toolnexus/client";
import {
  type AdapterHarness,
  adapterSuite,
  fromDataUrl,
  type KitErrorReport,
  kitModel,
  packageVersion,
  sseEvent,
} from "@toolnexus/provider-utils/testing";
import { type OpenAIResponsesOptions, openaiResponses } from "../index.js";
import { response, stream } from "./test-fixtures.js";
import type { ResponsesRequestBody } from "./wire.js";

/** The adapter's factory, called with the options as given. */
const create = (options: Record<string, unknown> & { model: string }) =>
  openaiResponses(options as OpenAIResponsesOptions);

export const responsesHarness: AdapterHarness = {
  provider: "openai",
  model: kitModel(create, "gpt-5-mini", "/v1"),
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
      const { output } = item;
      const content =
        typeof output === "string"
          ? output
          : output.flatMap((part) => (part.type === "input_text" ? [part.text] : [])).join("\n");
      results.unshift({ callId: item.call_id, content });
    }
    return results;
  },
  toolImages: (request) =>
    (request.body as ResponsesRequestBody).input.flatMap((item) =>
      "type" in item && item.type === "function_call_output" && Array.isArray(item.output)
        ? item.output.flatMap((part) =>
            part.type === "input_image"
              ? [{ callId: item.call_id, ...fromDataUrl(part.image_url) }]
              : [],
          )
        : [],
    ),
  usageDetails: ["cacheReadTokens", "reasoningTokens"],
  errorReport: {
    http: (_status, report) => ({
      error: { message: report.message, type: report.type, param: null, code: report.code },
    }),
    // A response that failed: `status: "failed"` with its error.
    body: (report) => ({
      id: "resp_kit_failed",
      object: "response",
      status: "failed",
      error: errorOf(report),
      output: [],
    }),
    stream: (report) =>
      // The event's own `type` is "error"; the error's kind goes in `code`.
      sseEvent(
        {
          type: "error",
          code: report.code,
          message: `${report.message} (${report.type})`,
          param: null,
          sequence_number: 1,
        },
        "error",
      ),
  },
  baseUrlEnv: {
    variable: "OPENAI_BASE_URL",
    model: (apiKey) => openaiResponses({ model: "gpt-5-mini", apiKey }),
  },
  createClient,
  memoryRunStore,
  translate,
  options: {
    create,
    apiKeyEnv: ["OPENAI_API_KEY", "OPENROUTER_API_KEY"],
    keyHeader: { name: "authorization", value: (key) => `Bearer ${key}` },
    userAgent: {
      product: "toolnexus-openai",
      version: packageVersion(new URL("../../package.json", import.meta.url)),
    },
    idPrefix: "openai-responses",
    defaultBaseUrl: "https://api.openai.com/v1",
  },
};

function errorOf(report: KitErrorReport): { code: string; message: string; type: string } {
  return { code: report.code, message: report.message, type: report.type };
}

await adapterSuite("openai (Responses API)", responsesHarness);
