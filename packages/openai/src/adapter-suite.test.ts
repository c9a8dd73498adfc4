// The adapter kit of @toolnexus/provider-utils run against this adapter (Chat Completions):
// text, tool calls, parallel calls, streaming split at every byte, usage, errors and retries,
// abort, key redaction and the client scenarios. The payloads are typed with the official SDK's
// types, so they have the shape the API sends.
import { createClient, memoryRunStore, translate } from "@toolnexus/client";
import {
  type AdapterHarness,
  adapterSuite,
  fromDataUrl,
  type KitErrorReport,
  type KitTurn,
  kitModel,
  packageVersion,
  sseEvent,
} from "@toolnexus/provider-utils/testing";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ErrorObject } from "openai/resources/shared";
import { type OpenAIOptions, openai } from "./index.js";
import type { ChatRequestBody } from "./wire.js";

/** The adapter's factory, called with the options as given. */
const create = (options: Record<string, unknown> & { model: string }) =>
  openai(options as OpenAIOptions);

const SDK_MODEL = "gpt-4o-mini-2024-07-18";

function finishReason(turn: KitTurn): ChatCompletion.Choice["finish_reason"] {
  if ((turn.calls ?? []).length > 0) return "tool_calls";
  return turn.stop === "length" ? "length" : "stop";
}

function usage(turn: KitTurn): CompletionUsage {
  return {
    prompt_tokens: turn.usage.promptTokens,
    completion_tokens: turn.usage.completionTokens,
    total_tokens: turn.usage.totalTokens,
    prompt_tokens_details: { cached_tokens: turn.usage.cacheReadTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: turn.usage.reasoningTokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function completion(turn: KitTurn): ChatCompletion {
  const calls = turn.calls ?? [];
  return {
    id: turn.id,
    object: "chat.completion",
    created: 1_733_150_000,
    model: SDK_MODEL,
    system_fingerprint: "fp_0ba0d124f1",
    service_tier: "default",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.text === undefined || turn.text === "" ? null : turn.text,
          refusal: null,
          annotations: [],
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(turn),
      },
    ],
    usage: usage(turn),
  };
}

function chunk(
  turn: KitTurn,
  delta: ChatCompletionChunk.Choice.Delta | undefined,
  finish: ChatCompletionChunk.Choice["finish_reason"] = null,
  withUsage = false,
): ChatCompletionChunk {
  return {
    id: turn.id,
    object: "chat.completion.chunk",
    created: 1_733_150_000,
    model: SDK_MODEL,
    system_fingerprint: "fp_0ba0d124f1",
    service_tier: "default",
    choices:
      delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: withUsage ? usage(turn) : null,
  };
}

/** As OpenAI streams: a role chunk, text deltas, call fragments, finish, usage, `[DONE]`. */
function stream(turn: KitTurn): string {
  const calls = turn.calls ?? [];
  const text = turn.text ?? "";
  const chunks = [
    chunk(turn, { role: "assistant", content: text === "" ? null : "", refusal: null }),
  ];
  const half = Math.ceil(text.length / 2);
  for (const piece of [text.slice(0, half), text.slice(half)]) {
    if (piece !== "") chunks.push(chunk(turn, { content: piece }));
  }
  calls.forEach((call, index) => {
    chunks.push(
      chunk(turn, {
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
    );
    const args = JSON.stringify(call.args);
    for (const piece of [args.slice(0, 3), args.slice(3, 11), args.slice(11)]) {
      if (piece !== "") {
        chunks.push(chunk(turn, { tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
  });
  chunks.push(chunk(turn, {}, finishReason(turn)));
  chunks.push(chunk(turn, undefined, null, true));
  return `${chunks.map((c) => sseEvent(c)).join("")}data: [DONE]\n\n`;
}

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  429: "requests",
  500: "server_error",
  503: "server_error",
};

export const chatHarness: AdapterHarness = {
  provider: "openai",
  model: kitModel(create, "gpt-4o-mini", "/v1"),
  json: completion,
  sse: stream,
  errorBody: (status, message) => {
    const error: ErrorObject = {
      message,
      type: TYPES[status] ?? "server_error",
      param: null,
      code: status === 401 ? "invalid_api_key" : null,
    };
    return { error };
  },
  isStream: (request) => (request.body as ChatRequestBody).stream === true,
  turnIndex: (request) =>
    (request.body as ChatRequestBody).messages.filter((m) => m.role === "assistant").length,
  toolResults: (request) => {
    const messages = (request.body as ChatRequestBody).messages;
    const results = [];
    // A tool result's images follow the results as one user message of parts: skipped here.
    const last = messages.at(-1);
    const end = last?.role === "user" && Array.isArray(last.content) ? 2 : 1;
    for (let i = messages.length - end; i >= 0; i--) {
      const message = messages[i];
      if (message?.role !== "tool") break;
      results.unshift({ callId: message.tool_call_id, content: message.content });
    }
    return results;
  },
  toolImages: (request) => {
    const last = (request.body as ChatRequestBody).messages.at(-1);
    if (last?.role !== "user" || !Array.isArray(last.content)) return [];
    return last.content.flatMap((part) =>
      part.type === "image_url" ? [fromDataUrl(part.image_url.url)] : [],
    );
  },
  usageDetails: ["cacheReadTokens", "reasoningTokens"],
  errorReport: {
    http: (_status, report) => openaiError(report),
    // OpenAI-compatible servers (OpenRouter, vLLM) send errors in 200 bodies and chunks too.
    body: openaiError,
    stream: (report) => sseEvent(openaiError(report)),
  },
  baseUrlEnv: {
    variable: "OPENAI_BASE_URL",
    model: (apiKey) => openai({ model: "gpt-4o-mini", apiKey }),
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
      version: packageVersion(new URL("../package.json", import.meta.url)),
    },
    idPrefix: "openai",
    defaultBaseUrl: "https://api.openai.com/v1",
  },
};

function openaiError(report: KitErrorReport): { error: ErrorObject } {
  return {
    error: { message: report.message, type: report.type, param: null, code: report.code },
  };
}

await adapterSuite("openai (Chat Completions)", chatHarness);
