import {
  type ModelResponse,
  randomId,
  type StopReason,
  type ToolCall,
  toolCall,
  type Usage,
} from "@toolnexus/core";
import {
  asRecord,
  tokenCount as count,
  malformedResponse,
  type ParseContext,
  ProviderError,
  usageFromCounts,
} from "@toolnexus/provider-utils";
import { argumentsText } from "../response.js";
import { PROVIDER_DATA_KEY, type ResponsesProviderData } from "./request.js";
import type { ReasoningItem } from "./wire.js";

/** Who is parsing (the stream assemblers take it from here). */
export type { ParseContext };

/**
 * Reads a Responses API `response` object: the `output_text` parts of its `message` items
 * joined (a `refusal` part is the text, with stopReason `refusal`), its `function_call` items as
 * tool calls (`call_id` as the id, `arguments` as the raw text), usage (see {@link usageOf}), the
 * id, the finish reason (`incomplete_details.reason` of an incomplete response, else `status`)
 * and its `reasoning` items, kept in `providerData["openai-responses"]`; their `summary_text`
 * parts are also the response's `reasoning` (see {@link joinSummary}). A `failed` response or
 * one carrying an `error` is a {@link ProviderError}.
 */
export function parseResponse(
  json: unknown,
  context: ParseContext,
  code: "provider_response" | "provider_stream" = "provider_response",
): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformedResponse(context, "the response is not a JSON object");
  throwIfFailed(body, context, code);
  if (!Array.isArray(body.output))
    throw malformedResponse(context, "the response has no output array");
  let text = "";
  let refused = false;
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  let summary = "";
  for (const value of body.output) {
    const item = asRecord(value);
    if (item?.type === "message" && Array.isArray(item.content)) {
      for (const partValue of item.content) {
        const part = asRecord(partValue);
        if (part?.type === "output_text" && typeof part.text === "string") text += part.text;
        if (part?.type === "refusal" && typeof part.refusal === "string") {
          text += part.refusal;
          refused = true;
        }
      }
    } else if (item?.type === "function_call") {
      toolCalls.push(functionCall(item));
    } else if (item?.type === "reasoning" && typeof item.id === "string") {
      reasoning.push(item as ReasoningItem);
      for (const part of Array.isArray(item.summary) ? item.summary : []) {
        const text = asRecord(part);
        if (text?.type === "summary_text" && typeof text.text === "string") {
          summary = joinSummary(summary, text.text);
        }
      }
    }
  }
  const response: ModelResponse = { text, toolCalls };
  if (summary !== "") response.reasoning = summary;
  if (typeof body.id === "string" && body.id !== "") response.id = body.id;
  const usage = usageOf(body.usage);
  if (usage !== undefined) response.usage = usage;
  const finish = finishReasonOf(body);
  if (finish !== undefined) response.finishReason = finish;
  const stopReason = stopReasonOf(finish, toolCalls.length > 0, refused);
  if (stopReason !== undefined) response.stopReason = stopReason;
  if (reasoning.length > 0) response.providerData = providerDataOf(reasoning);
  return response;
}

/** The reasoning so far with one more summary part: parts are separated by a blank line. */
export function joinSummary(reasoning: string, part: string): string {
  if (part === "") return reasoning;
  return reasoning === "" ? part : `${reasoning}${SUMMARY_SEPARATOR}${part}`;
}

/** What {@link joinSummary} puts between two summary parts: a blank line. */
export const SUMMARY_SEPARATOR = "\n\n";

/**
 * A ToolCall from a `function_call` item. `arguments` is the raw text; a server that sends the
 * parsed value instead has it serialised back (see {@link argumentsText}), so it is not lost.
 */
export function functionCall(item: Record<string, unknown>): ToolCall {
  const id =
    typeof item.call_id === "string" && item.call_id !== "" ? item.call_id : randomId("call");
  const args = argumentsText(item.arguments);
  return toolCall(id, typeof item.name === "string" ? item.name : "", args);
}

/** `providerData` of a turn with reasoning items. */
export function providerDataOf(reasoning: ReasoningItem[]): Record<string, ResponsesProviderData> {
  return { [PROVIDER_DATA_KEY]: { reasoning } };
}

/** `incomplete_details.reason` (`max_output_tokens`, `content_filter`) or the `status`. */
export function finishReasonOf(body: Record<string, unknown>): string | undefined {
  const reason = asRecord(body.incomplete_details)?.reason;
  if (typeof reason === "string" && reason !== "") return reason;
  return typeof body.status === "string" && body.status !== "" ? body.status : undefined;
}

/**
 * The normalized {@link StopReason}: `tool_calls` whenever the model called a tool, `refusal`
 * for a refusal part, `length` for `max_output_tokens`, `content_filter` for `content_filter`,
 * else `stop`.
 */
export function stopReasonOf(
  finish: string | undefined,
  calledTools: boolean,
  refused: boolean,
): StopReason | undefined {
  if (calledTools) return "tool_calls";
  if (refused) return "refusal";
  switch (finish) {
    case undefined:
      return undefined;
    case "max_output_tokens":
      return "length";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

/**
 * Maps `input_tokens` / `output_tokens` / `total_tokens` to a {@link Usage}, with
 * `input_tokens_details.cached_tokens` as `cacheReadTokens` and
 * `output_tokens_details.reasoning_tokens` as `reasoningTokens` (each left out when zero).
 */
export function usageOf(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (usage === undefined) return undefined;
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  return usageFromCounts({
    prompt: input ?? 0,
    completion: output ?? 0,
    total: count(usage.total_tokens),
    cacheRead: count(asRecord(usage.input_tokens_details)?.cached_tokens),
    reasoning: count(asRecord(usage.output_tokens_details)?.reasoning_tokens),
  });
}

/** Throws for a `failed` response or a body / event carrying an `error` object. */
export function throwIfFailed(
  body: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): void {
  const error = asRecord(body.error);
  if (error === undefined && body.status !== "failed") return;
  throw errorOf(error ?? {}, context, code);
}

/** A {@link ProviderError} from an `error` object (`{ code, message, type? }`). */
export function errorOf(
  error: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): ProviderError {
  const raw = typeof error.message === "string" ? error.message : "the response failed";
  // Not redacted here: ProviderError redacts every field, after this and before any cut.
  const providerMessage = raw;
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider: context.provider,
    providerMessage,
    secrets: context.secrets,
  };
  const type = typeof error.type === "string" ? error.type : error.code;
  if (typeof type === "string" && type !== "") init.providerType = type;
  if (typeof error.code === "string" && error.code !== "") init.providerCode = error.code;
  return new ProviderError(
    code,
    `${context.provider}: the provider reported an error: ${providerMessage}`,
    init,
  );
}
