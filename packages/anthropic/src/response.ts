import { type ModelResponse, type ToolCall, toolCall, type Usage } from "@toolnexus/core";
import { asRecord, ProviderError, redact } from "@toolnexus/provider-utils";

/** Who is parsing: the adapter's name and the secrets to keep out of error messages. */
export interface ParseContext {
  provider: string;
  secrets: readonly string[];
}

/**
 * Reads a Messages API response: the text blocks joined, the `tool_use` blocks as tool calls
 * (their `input` serialised as the raw argument text), usage (`input_tokens` -> prompt,
 * `output_tokens` -> completion), the message id and the stop reason. Other block kinds
 * (thinking, server tools) are skipped. A body of `type: "error"` is a {@link ProviderError}.
 */
export function parseMessage(json: unknown, context: ParseContext): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformed(context, "the response is not a JSON object");
  if (body.type === "error") throw errorEvent(body, context, "provider_response");
  if (!Array.isArray(body.content)) throw malformed(context, "the response has no content array");

  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const item of body.content) {
    const block = asRecord(item);
    if (block?.type === "text" && typeof block.text === "string") text += block.text;
    if (block?.type === "tool_use" && typeof block.id === "string") {
      toolCalls.push(toolUseCall(block.id, block.name, JSON.stringify(block.input ?? {})));
    }
  }
  const response: ModelResponse = { text, toolCalls };
  if (typeof body.id === "string" && body.id !== "") response.id = body.id;
  const usage = usageOf(body.usage);
  if (usage !== undefined) response.usage = usage;
  if (typeof body.stop_reason === "string") response.finishReason = body.stop_reason;
  return response;
}

/**
 * A ToolCall from a `tool_use` block. Valid input is re-serialised compactly, so a streamed
 * call (assembled from `input_json_delta` fragments) and a non-streamed one (an `input` object)
 * carry the same `rawArgs`.
 */
export function toolUseCall(id: string, name: unknown, raw: string): ToolCall {
  const call = toolCall(id, typeof name === "string" ? name : "", raw);
  return call.argsError === undefined ? { ...call, rawArgs: JSON.stringify(call.args) } : call;
}

/** Maps `input_tokens` / `output_tokens` to a {@link Usage}. */
export function usageOf(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (usage === undefined) return undefined;
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  return usageFrom(input ?? 0, output ?? 0);
}

/** A {@link Usage} from input and output token counts. */
export function usageFrom(input: number, output: number): Usage {
  return { promptTokens: input, completionTokens: output, totalTokens: input + output };
}

/** A finite number, or `undefined`. */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The error of a `{ type: "error", error: { type, message } }` body or stream event. */
export function errorEvent(
  body: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): ProviderError {
  const error = asRecord(body.error);
  const raw = typeof error?.message === "string" ? error.message : JSON.stringify(body.error);
  const providerMessage = redact(raw, context.secrets);
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider: context.provider,
    providerMessage,
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

function malformed(context: ParseContext, problem: string): ProviderError {
  return new ProviderError("provider_response", `${context.provider}: ${problem}`, {
    provider: context.provider,
  });
}
