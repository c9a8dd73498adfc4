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

/** Who is parsing (the stream assemblers take it from here). */
export type { ParseContext };

/**
 * Reads a Chat Completions response: the first choice's text and tool calls, the reasoning some
 * compatible servers add to the message (see {@link reasoningOf}), the usage, the response id, the finish reason and the normalized stop reason (a `refusal` on the message is
 * `"refusal"`). A body without choices, or one carrying an `error` object (some gateways answer
 * errors with status 200), is a {@link ProviderError}.
 */
export function parseChatCompletion(json: unknown, context: ParseContext): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformedResponse(context, "the response is not a JSON object");
  throwIfErrorBody(body, context, "provider_response");
  const choices = Array.isArray(body.choices) ? body.choices : [];
  const choice = asRecord(choices.find((c) => asRecord(c)?.index === 0) ?? choices[0]);
  const message = asRecord(choice?.message);
  if (choice === undefined || message === undefined) {
    throw malformedResponse(context, "the response has no choices[0].message");
  }

  const response: ModelResponse = {
    text: textOf(message),
    toolCalls: toolCallsOf(message.tool_calls, context),
  };
  const reasoning = reasoningOf(message);
  if (reasoning !== "") response.reasoning = reasoning;
  if (typeof body.id === "string" && body.id !== "") response.id = body.id;
  const usage = usageOf(body.usage);
  if (usage !== undefined) response.usage = usage;
  if (typeof choice.finish_reason === "string") response.finishReason = choice.finish_reason;
  const refused = typeof message.refusal === "string" && message.refusal !== "";
  const stopReason = stopReasonOf(response.finishReason, response.toolCalls.length > 0, refused);
  if (stopReason !== undefined) response.stopReason = stopReason;
  return response;
}

/**
 * The normalized {@link StopReason} of a choice: `tool_calls` whenever the model called a tool,
 * `refusal` when the message carries a refusal, else from `finish_reason` (`stop`, `tool_calls`,
 * `function_call`, `length`, `content_filter`; anything else a server sends is `stop`).
 * `undefined` when there is nothing to go by (no finish reason, no call, no refusal).
 */
export function stopReasonOf(
  finishReason: string | undefined,
  calledTools: boolean,
  refused: boolean,
): StopReason | undefined {
  if (calledTools) return "tool_calls";
  if (refused) return "refusal";
  switch (finishReason) {
    case undefined:
      return undefined;
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      // A call the model announced but did not send; the turn asked for tools.
      return "tool_calls";
    default:
      return "stop";
  }
}

/**
 * The reasoning text a compatible server puts on a message or a stream delta: `reasoning_content`
 * (DeepSeek, vLLM) or `reasoning` (OpenRouter, newer vLLM). One of them only, so a server that
 * sends both copies is not read twice; `""` when neither is a string.
 */
export function reasoningOf(message: Record<string, unknown>): string {
  const content = message.reasoning_content;
  if (typeof content === "string" && content !== "") return content;
  return typeof message.reasoning === "string" ? message.reasoning : "";
}

function textOf(message: Record<string, unknown>): string {
  if (typeof message.content === "string") return message.content;
  // Content given as parts by some compatible servers.
  if (Array.isArray(message.content)) {
    return message.content
      .map((part) => {
        const record = asRecord(part);
        return typeof record?.text === "string" ? record.text : "";
      })
      .join("");
  }
  // A refusal is the model's answer too; the loop shows it as text.
  return typeof message.refusal === "string" ? message.refusal : "";
}

/**
 * The message's tool calls. An entry without a `function` object names no tool to run and would
 * vanish: it is a {@link ProviderError} (`provider_response`) rather than a turn that says
 * `tool_calls` with the call missing.
 */
function toolCallsOf(value: unknown, context: ParseContext): ToolCall[] {
  if (!Array.isArray(value)) return [];
  const calls: ToolCall[] = [];
  for (const [index, item] of value.entries()) {
    const record = asRecord(item);
    const fn = asRecord(record?.function);
    if (record === undefined || fn === undefined) {
      throw malformedResponse(
        context,
        `the response's choices[0].message.tool_calls[${index}] has no function object`,
      );
    }
    const id = typeof record.id === "string" && record.id !== "" ? record.id : randomId("call");
    const name = typeof fn.name === "string" ? fn.name : "";
    calls.push(toolCall(id, name, argumentsText(fn.arguments)));
  }
  return calls;
}

/**
 * The raw argument text. The API sends a string; a few compatible servers send the parsed
 * object, which is serialised back.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

/**
 * Maps `prompt_tokens` / `completion_tokens` / `total_tokens` to a {@link Usage}, with
 * `prompt_tokens_details.cached_tokens` as `cacheReadTokens` and
 * `completion_tokens_details.reasoning_tokens` as `reasoningTokens` (each left out when zero or
 * not reported; both are already counted in the prompt and completion totals).
 */
export function usageOf(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (usage === undefined) return undefined;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  return usageFromCounts({
    prompt: prompt ?? 0,
    completion: completion ?? 0,
    total,
    cacheRead: count(asRecord(usage.prompt_tokens_details)?.cached_tokens),
    reasoning: count(asRecord(usage.completion_tokens_details)?.reasoning_tokens),
  });
}

/** Throws when a 200 body (or a stream chunk) is an error report: `{ error: { message } }`. */
export function throwIfErrorBody(
  body: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): void {
  if (body.error === undefined || body.error === null) return;
  const error = asRecord(body.error);
  const raw =
    typeof body.error === "string"
      ? body.error
      : typeof error?.message === "string"
        ? error.message
        : JSON.stringify(body.error);
  // Not redacted here: ProviderError redacts every field, after this and before any cut.
  const providerMessage = raw;
  const type = typeof error?.type === "string" ? error.type : error?.code;
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider: context.provider,
    providerMessage,
    secrets: context.secrets,
  };
  if (typeof type === "string" || typeof type === "number") init.providerType = String(type);
  const providerCode = error?.code;
  if (
    (typeof providerCode === "string" && providerCode !== "") ||
    typeof providerCode === "number"
  ) {
    init.providerCode = String(providerCode);
  }
  throw new ProviderError(
    code,
    `${context.provider}: the provider reported an error: ${providerMessage}`,
    init,
  );
}
