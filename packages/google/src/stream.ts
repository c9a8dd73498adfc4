import type { ModelResponse, ModelStreamPart, Usage } from "@toolnexus/core";
import { asRecord, ProviderError } from "@toolnexus/provider-utils";
import {
  callIdPrefix,
  finishReasonOf,
  type ParseContext,
  PartsAccumulator,
  stopReasonOf,
  throwIfErrorBody,
  usageOf,
} from "./response.js";

/**
 * Folds `streamGenerateContent?alt=sse` events into stream parts. Each event is a whole
 * `GenerateContentResponse` holding the next parts: text and thought summaries (as `reasoning`
 * parts, ahead of the chunk's text) pass through as they arrive,
 * `functionCall` parts arrive whole and are emitted at once, `usageMetadata` (the counts so
 * far) is taken from the last event that has it, and the candidate's `finishReason` marks the
 * end. Gemini sends no `[DONE]`: a stream that closes without a finish reason (or a blocked
 * prompt) was cut off and is a {@link ProviderError}.
 */
export class GeminiStreamAssembler {
  readonly #context: ParseContext;
  #id: string | undefined;
  #parts: PartsAccumulator;
  #usage: Usage | undefined;
  #finishReason: string | undefined;
  #blocked = false;

  constructor(context: ParseContext) {
    this.#context = context;
    this.#parts = new PartsAccumulator(() => callIdPrefix(this.#id)());
  }

  /** Takes one parsed event and returns the parts it completes. */
  push(event: unknown): ModelStreamPart[] {
    const body = asRecord(event);
    if (body === undefined) return [];
    throwIfErrorBody(body, this.#context, "provider_stream");
    if (this.#id === undefined && typeof body.responseId === "string" && body.responseId !== "") {
      this.#id = body.responseId;
    }
    const usage = usageOf(body.usageMetadata);
    if (usage !== undefined) this.#usage = usage;
    const candidates = Array.isArray(body.candidates) ? body.candidates : [];
    const candidate = asRecord(candidates[0]);
    const blockReason = asRecord(body.promptFeedback)?.blockReason;
    if (typeof blockReason === "string" && blockReason !== "") this.#blocked = true;
    const { text, reasoning, calls } = this.#parts.push(asRecord(candidate?.content)?.parts);
    const finish = finishReasonOf(candidate, blockReason);
    if (finish !== undefined) this.#finishReason = finish;
    const parts: ModelStreamPart[] = [];
    if (reasoning !== "") parts.push({ type: "reasoning", delta: reasoning });
    if (text !== "") parts.push({ type: "text", delta: text });
    for (const call of calls) parts.push({ type: "tool_call", call });
    return parts;
  }

  /** Ends the stream and returns the `finish` part. */
  end(): ModelStreamPart[] {
    if (this.#finishReason === undefined) {
      throw new ProviderError(
        "provider_stream",
        `${this.#context.provider}: the stream ended before the response was complete`,
        { provider: this.#context.provider },
      );
    }
    return [{ type: "finish", response: this.response() }];
  }

  /** The response assembled so far. */
  response(): ModelResponse {
    const response: ModelResponse = { text: this.#parts.text, toolCalls: [...this.#parts.calls] };
    if (this.#parts.reasoning !== "") response.reasoning = this.#parts.reasoning;
    if (this.#id !== undefined) response.id = this.#id;
    if (this.#usage !== undefined) response.usage = this.#usage;
    if (this.#finishReason !== undefined) response.finishReason = this.#finishReason;
    const stopReason = stopReasonOf(
      this.#finishReason,
      this.#parts.calls.length > 0,
      this.#blocked,
    );
    if (stopReason !== undefined) response.stopReason = stopReason;
    const providerData = this.#parts.providerData();
    if (providerData !== undefined) response.providerData = providerData;
    return response;
  }
}
