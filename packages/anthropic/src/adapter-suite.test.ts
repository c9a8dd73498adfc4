// The adapter kit of @toolnexus/provider-utils run against this adapter (Messages API): text,
// tool calls, parallel calls, streaming split at every byte, usage, errors and retries, abort,
// key redaction and the client scenarios. The payloads are typed with the official SDK's types,
// so they have the shape the API sends.

import type {
  ContentBlock,
  Message,
  RawMessageStreamEvent,
  StopReason,
  Usage,
} from "@anthropic-ai/sdk/resources/messages";
import type { ErrorResponse } from "@anthropic-ai/sdk/resources/shared";
import { createClient, memoryRunStore, translate } from "@toolnexus/client";
import {
  type AdapterHarness,
  adapterSuite,
  type KitErrorReport,
  type KitTurn,
  kitModel,
  packageVersion,
  sseEvent,
} from "@toolnexus/provider-utils/testing";
import { type AnthropicOptions, anthropic } from "./index.js";
import type { MessagesRequestBody } from "./wire.js";

/** The adapter's factory, called with the options as given. */
const create = (options: Record<string, unknown> & { model: string }) =>
  anthropic(options as AnthropicOptions);

function stopReason(turn: KitTurn): StopReason {
  if ((turn.calls ?? []).length > 0) return "tool_use";
  return turn.stop === "length" ? "max_tokens" : "end_turn";
}

/** Anthropic's `input_tokens` leaves out the tokens read from or written to the cache. */
function usage(turn: KitTurn): Usage {
  const read = turn.usage.cacheReadTokens ?? 0;
  const write = turn.usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: turn.usage.promptTokens - read - write,
    output_tokens: turn.usage.completionTokens,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details:
      turn.usage.reasoningTokens === undefined
        ? null
        : { thinking_tokens: turn.usage.reasoningTokens },
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

function message(turn: KitTurn): Message {
  const content: ContentBlock[] = [];
  if (turn.text !== undefined && turn.text !== "") {
    content.push({ type: "text", text: turn.text, citations: null });
  }
  for (const call of turn.calls ?? []) {
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.name,
      input: call.args,
      caller: { type: "direct" },
    });
  }
  return {
    id: turn.id,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usage(turn),
  };
}

function event(data: RawMessageStreamEvent | ErrorResponse | { type: "ping" }): string {
  return sseEvent(data, data.type);
}

/**
 * As Anthropic streams: message_start (input and cache counts, 1 output token), a ping, a text
 * block in two deltas, a tool_use block per call with `input_json_delta` fragments,
 * message_delta (stop reason, cumulative usage) and message_stop.
 */
function stream(turn: KitTurn): string {
  const full = usage(turn);
  const events = [
    event({
      type: "message_start",
      message: {
        ...message(turn),
        content: [],
        stop_reason: null,
        usage: { ...full, output_tokens: 1 },
      },
    }),
    event({ type: "ping" }),
  ];
  let index = 0;
  const text = turn.text ?? "";
  if (text !== "") {
    events.push(
      event({
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "", citations: null },
      }),
    );
    const half = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, half), text.slice(half)]) {
      events.push(
        event({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }),
      );
    }
    events.push(event({ type: "content_block_stop", index }));
    index++;
  }
  for (const call of turn.calls ?? []) {
    events.push(
      event({
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: {},
          caller: { type: "direct" },
        },
      }),
    );
    const args = JSON.stringify(call.args);
    for (const partial_json of ["", args.slice(0, 5), args.slice(5)]) {
      events.push(
        event({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json },
        }),
      );
    }
    events.push(event({ type: "content_block_stop", index }));
    index++;
  }
  events.push(
    event({
      type: "message_delta",
      delta: {
        stop_reason: stopReason(turn),
        stop_sequence: null,
        stop_details: null,
        container: null,
      },
      usage: {
        input_tokens: full.input_tokens,
        output_tokens: full.output_tokens,
        cache_creation_input_tokens: full.cache_creation_input_tokens,
        cache_read_input_tokens: full.cache_read_input_tokens,
        output_tokens_details: full.output_tokens_details,
        server_tool_use: null,
      },
    }),
  );
  events.push(event({ type: "message_stop" }));
  return events.join("");
}

const TYPES: Record<number, ErrorResponse["error"]["type"]> = {
  400: "invalid_request_error",
  401: "authentication_error",
  429: "rate_limit_error",
  500: "api_error",
  503: "overloaded_error",
};

export const messagesHarness: AdapterHarness = {
  provider: "anthropic",
  model: kitModel(create, "claude-sonnet-4-5"),
  json: message,
  sse: stream,
  errorBody: (status, text): ErrorResponse => ({
    type: "error",
    error: { type: TYPES[status] ?? "api_error", message: text },
    request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
  }),
  isStream: (request) => (request.body as MessagesRequestBody).stream === true,
  turnIndex: (request) =>
    (request.body as MessagesRequestBody).messages.filter((m) => m.role === "assistant").length,
  toolResults: (request) => {
    const last = (request.body as MessagesRequestBody).messages.at(-1);
    if (last?.role !== "user" || typeof last.content === "string") return [];
    return last.content.flatMap((block) =>
      block.type === "tool_result"
        ? [
            {
              callId: block.tool_use_id,
              content:
                typeof block.content === "string"
                  ? block.content
                  : block.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n"),
            },
          ]
        : [],
    );
  },
  toolImages: (request) => {
    const last = (request.body as MessagesRequestBody).messages.at(-1);
    if (last?.role !== "user" || typeof last.content === "string") return [];
    return last.content.flatMap((block) =>
      block.type === "tool_result" && typeof block.content !== "string"
        ? block.content.flatMap((b) =>
            b.type === "image"
              ? [{ callId: block.tool_use_id, mimeType: b.source.media_type, data: b.source.data }]
              : [],
          )
        : [],
    );
  },
  usageDetails: ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"],
  // Anthropic's errors have a type and no code.
  errorReport: {
    http: (_status, report) => anthropicError(report),
    body: anthropicError,
    stream: (report) => event(anthropicError(report)),
  },
  baseUrlEnv: {
    variable: "ANTHROPIC_BASE_URL",
    model: (apiKey) => anthropic({ model: "claude-sonnet-4-5", apiKey }),
  },
  createClient,
  memoryRunStore,
  translate,
  options: {
    create,
    apiKeyEnv: ["ANTHROPIC_API_KEY"],
    keyHeader: { name: "x-api-key", value: (key) => key },
    userAgent: {
      product: "toolnexus-anthropic",
      version: packageVersion(new URL("../package.json", import.meta.url)),
    },
    idPrefix: "anthropic",
    defaultBaseUrl: "https://api.anthropic.com",
  },
};

function anthropicError(report: KitErrorReport): ErrorResponse {
  return {
    type: "error",
    error: { type: report.type, message: report.message } as ErrorResponse["error"],
    request_id: "req_kit",
  };
}

await adapterSuite("anthropic (Messages API)", messagesHarness);
