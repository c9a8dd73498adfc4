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
import { type AnthropicProviderData, PROVIDER_DATA_KEY } from "./request.js";
import type { RedactedThinkingBlockParam, ThinkingBlockParam } from "./wire.js";

/** Who is parsing (the stream assemblers take it from here). */
export type { ParseContext };

/**
 * Reads a Messages API response: the text blocks joined, the `tool_use` blocks as tool calls
 * (their `input` serialised as the raw argument text; a block without an `id` gets one), usage (see {@link usageOf}), the message
 * id, the stop reason (raw and normalized), and the `thinking` / `redacted_thinking` blocks, kept
 * verbatim in `providerData.anthropic` to be sent back with the turn; the `thinking` blocks' text
 * is also the response's `reasoning` (see {@link joinReasoning}). Other block kinds (server
 * tools) are skipped. A body of `type: "error"` is a {@link ProviderError}.
 */
export function parseMessage(json: unknown, context: ParseContext): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformedResponse(context, "the response is not a JSON object");
  if (body.type === "error") throw errorEvent(body, context, "provider_response");
  if (!Array.isArray(body.content))
    throw malformedResponse(context, "the response has no content array");

  let text = "";
  const toolCalls: ToolCall[] = [];
  const thinking: (ThinkingBlockParam | RedactedThinkingBlockParam)[] = [];
  let reasoning = "";
  for (const item of body.content) {
    const block = asRecord(item);
    const kept = thinkingBlock(block);
    if (kept !== undefined) thinking.push(kept);
    if (kept?.type === "thinking") reasoning = joinReasoning(reasoning, kept.thinking);
    if (block?.type === "text" && typeof block.text === "string") text += block.text;
    if (block?.type === "tool_use") {
      // A block without an id (a gateway's bug) is still the model's call: it gets one.
      toolCalls.push(toolUseCall(block.id, block.name, JSON.stringify(block.input ?? {})));
    }
  }
  const response: ModelResponse = { text, toolCalls };
  if (reasoning !== "") response.reasoning = reasoning;
  if (typeof body.id === "string" && body.id !== "") response.id = body.id;
  const usage = usageOf(body.usage);
  if (usage !== undefined) response.usage = usage;
  if (typeof body.stop_reason === "string") response.finishReason = body.stop_reason;
  const stopReason = stopReasonOf(response.finishReason, toolCalls.length > 0);
  if (stopReason !== undefined) response.stopReason = stopReason;
  if (thinking.length > 0) response.providerData = providerDataOf(thinking);
  return response;
}

/** A `thinking` or `redacted_thinking` block, exactly as sent; `undefined` for anything else. */
export function thinkingBlock(
  block: Record<string, unknown> | undefined,
): ThinkingBlockParam | RedactedThinkingBlockParam | undefined {
  if (
    block?.type === "thinking" &&
    typeof block.thinking === "string" &&
    typeof block.signature === "string"
  ) {
    return { type: "thinking", thinking: block.thinking, signature: block.signature };
  }
  if (block?.type === "redacted_thinking" && typeof block.data === "string") {
    return { type: "redacted_thinking", data: block.data };
  }
  return undefined;
}

/**
 * The reasoning so far with one more thinking block's text: blocks are separated by a blank
 * line (a redacted block, or one whose thinking is omitted, adds nothing).
 */
export function joinReasoning(reasoning: string, more: string): string {
  if (more === "") return reasoning;
  return reasoning === "" ? more : `${reasoning}${REASONING_SEPARATOR}${more}`;
}

/** What {@link joinReasoning} puts between two thinking blocks' text: a blank line. */
export const REASONING_SEPARATOR = "\n\n";

/** `providerData` of a turn with thinking blocks: `{ anthropic: { blocks } }`. */
export function providerDataOf(
  blocks: (ThinkingBlockParam | RedactedThinkingBlockParam)[],
): Record<string, AnthropicProviderData> {
  return { [PROVIDER_DATA_KEY]: { blocks } };
}

/**
 * The normalized {@link StopReason}: `tool_calls` whenever the model called a tool; else
 * `end_turn` / `stop_sequence` (and `pause_turn` or anything newer) -> `stop`, `tool_use` ->
 * `tool_calls`, `max_tokens` / `model_context_window_exceeded` -> `length`, `refusal` ->
 * `refusal`. `undefined` without a stop reason or a call.
 */
export function stopReasonOf(
  stopReason: string | undefined,
  calledTools: boolean,
): StopReason | undefined {
  if (calledTools) return "tool_calls";
  switch (stopReason) {
    case undefined:
      return undefined;
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "refusal";
    default:
      return "stop";
  }
}

/**
 * A ToolCall from a `tool_use` block. Valid input is re-serialised compactly, so a streamed
 * call (assembled from `input_json_delta` fragments) and a non-streamed one (an `input` object)
 * carry the same `rawArgs`. A block without an id gets a generated `toolu_…` one, which goes
 * back with the turn and its result.
 */
export function toolUseCall(id: unknown, name: unknown, raw: string): ToolCall {
  const callId = typeof id === "string" && id !== "" ? id : randomId("toolu");
  const call = toolCall(callId, typeof name === "string" ? name : "", raw);
  return call.argsError === undefined ? { ...call, rawArgs: JSON.stringify(call.args) } : call;
}

/** The token counts of an Anthropic `usage` object, each `undefined` when not reported. */
export interface AnthropicCounts {
  input?: number | undefined;
  output?: number | undefined;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
  thinking?: number | undefined;
}

/** Reads the counts of a `usage` object (a `null` count is not reported). */
export function countsOf(value: unknown): AnthropicCounts {
  const usage = asRecord(value);
  return {
    input: count(usage?.input_tokens),
    output: count(usage?.output_tokens),
    cacheRead: count(usage?.cache_read_input_tokens),
    cacheWrite: count(usage?.cache_creation_input_tokens),
    thinking: count(asRecord(usage?.output_tokens_details)?.thinking_tokens),
  };
}

/**
 * Maps a `usage` object to a {@link Usage}. Anthropic's `input_tokens` leaves out the tokens read
 * from or written to the prompt cache, so `promptTokens` is `input_tokens +
 * cache_read_input_tokens + cache_creation_input_tokens` (every input token, as for other
 * providers), with the cache parts also as `cacheReadTokens` / `cacheWriteTokens` and
 * `output_tokens_details.thinking_tokens` as `reasoningTokens` (each left out when zero).
 */
export function usageOf(value: unknown): Usage | undefined {
  const counts = countsOf(value);
  if (counts.input === undefined && counts.output === undefined) return undefined;
  return usageFrom(counts);
}

/** A {@link Usage} from Anthropic's token counts. */
export function usageFrom(counts: AnthropicCounts): Usage {
  const cacheRead = counts.cacheRead ?? 0;
  const cacheWrite = counts.cacheWrite ?? 0;
  return usageFromCounts({
    prompt: (counts.input ?? 0) + cacheRead + cacheWrite,
    completion: counts.output ?? 0,
    cacheRead,
    cacheWrite,
    reasoning: counts.thinking,
  });
}

/** The error of a `{ type: "error", error: { type, message } }` body or stream event. */
export function errorEvent(
  body: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): ProviderError {
  const error = asRecord(body.error);
  const raw = typeof error?.message === "string" ? error.message : JSON.stringify(body.error);
  // Not redacted here: ProviderError redacts every field, after this and before any cut.
  const providerMessage = raw;
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider: context.provider,
    providerMessage,
    secrets: context.secrets,
  };
  if (typeof error?.type === "string") {
    init.providerType = error.type;
    // The kinds Anthropic documents as transient; the request may succeed if sent again.
    init.retryable = ["overloaded_error", "api_error", "rate_limit_error"].includes(error.type);
  }
  const type = init.providerType === undefined ? "" : ` (${init.providerType})`;
  return new ProviderError(
    code,
    `${context.provider}: the provider reported an error${type}: ${providerMessage}`,
    init,
  );
}
