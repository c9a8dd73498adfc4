import type { ModelResponse, ModelStreamPart, ToolCall } from "@toolnexus/core";
import { asRecord, tokenCount as count, ProviderError } from "@toolnexus/provider-utils";
import {
  type AnthropicCounts,
  countsOf,
  errorEvent,
  type ParseContext,
  providerDataOf,
  REASONING_SEPARATOR,
  stopReasonOf,
  thinkingBlock,
  toolUseCall,
  usageFrom,
} from "./response.js";
import type { RedactedThinkingBlockParam, ThinkingBlockParam } from "./wire.js";

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  /** A thinking block's text and signature, or a redacted one's data, as they arrive. */
  thinking: string;
  signature: string;
  data: string;
}

/**
 * Folds Messages API stream events into stream parts: `message_start` (id, input tokens),
 * `content_block_start` / `content_block_delta` / `content_block_stop` (text deltas pass through
 * as they arrive; `input_json_delta` fragments, cut anywhere, are joined and parsed when their
 * block stops, which emits the tool call (a `tool_use` block still open at `message_stop` is
 * emitted then, unless the reply was cut at the token limit; fragments for a block never opened
 * are a {@link ProviderError}); `thinking_delta` and `signature_delta` build a thinking
 * block, kept with `redacted_thinking` blocks in `providerData.anthropic` of the response, and
 * each `thinking_delta` passes through as a `reasoning` part),
 * `message_delta` (stop reason, cumulative usage),
 * `message_stop`, `ping` (ignored) and `error` (a {@link ProviderError}). Unknown events and
 * block kinds are skipped, so new API features do not break old adapters.
 */
export class MessageStreamAssembler {
  readonly #context: ParseContext;
  #id: string | undefined;
  #text = "";
  /**
   * The reasoning text in the pieces it arrived in, joined once by {@link response}: a stream of
   * many small thinking deltas must not copy the whole text so far at each one.
   */
  #reasoning: string[] = [];
  #blocks = new Map<number, OpenBlock>();
  #calls: ToolCall[] = [];
  #thinking: (ThinkingBlockParam | RedactedThinkingBlockParam)[] = [];
  #counts: AnthropicCounts = {};
  #stopReason: string | undefined;
  #stopped = false;

  constructor(context: ParseContext) {
    this.#context = context;
  }

  /** True once `message_stop` arrived. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Takes one parsed event and returns the parts it completes. */
  push(event: unknown): ModelStreamPart[] {
    const body = asRecord(event);
    if (body === undefined) return [];
    switch (body.type) {
      case "message_start": {
        const message = asRecord(body.message);
        if (typeof message?.id === "string") this.#id = message.id;
        this.#takeUsage(message?.usage);
        return [];
      }
      case "content_block_start": {
        const block = asRecord(body.content_block);
        const index = count(body.index);
        if (block === undefined || index === undefined) return [];
        const open: OpenBlock = {
          type: typeof block.type === "string" ? block.type : "",
          id: typeof block.id === "string" ? block.id : "",
          name: typeof block.name === "string" ? block.name : "",
          json: "",
          thinking: typeof block.thinking === "string" ? block.thinking : "",
          signature: typeof block.signature === "string" ? block.signature : "",
          data: typeof block.data === "string" ? block.data : "",
        };
        this.#blocks.set(index, open);
        // A text block may start with text already in it.
        if (open.type === "text" && typeof block.text === "string" && block.text !== "") {
          return [this.#textPart(block.text)];
        }
        if (open.type === "thinking" && open.thinking !== "") {
          return [this.#reasoningPart("", open.thinking)];
        }
        return [];
      }
      case "content_block_delta": {
        const delta = asRecord(body.delta);
        const open = this.#blocks.get(count(body.index) ?? -1);
        if (delta?.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
          return [this.#textPart(delta.text)];
        }
        if (delta?.type === "input_json_delta" && typeof delta.partial_json === "string") {
          // Arguments for no open block belong to no call: dropping them would lose the call.
          if (open === undefined) {
            throw this.#malformed(
              `an input_json_delta arrived for content block ${String(body.index)}, which is not open`,
            );
          }
          open.json += delta.partial_json;
        }
        if (delta?.type === "thinking_delta" && typeof delta.thinking === "string") {
          if (open === undefined || delta.thinking === "") return [];
          const before = open.thinking;
          open.thinking += delta.thinking;
          return [this.#reasoningPart(before, delta.thinking)];
        }
        if (delta?.type === "signature_delta" && typeof delta.signature === "string") {
          if (open !== undefined) open.signature += delta.signature;
        }
        return [];
      }
      case "content_block_stop": {
        const index = count(body.index) ?? -1;
        const open = this.#blocks.get(index);
        this.#blocks.delete(index);
        const thinking = thinkingBlock(open as Record<string, unknown> | undefined);
        if (thinking !== undefined) this.#thinking.push(thinking);
        if (open?.type !== "tool_use") return [];
        return [this.#callPart(open)];
      }
      case "message_delta": {
        const delta = asRecord(body.delta);
        if (typeof delta?.stop_reason === "string") this.#stopReason = delta.stop_reason;
        this.#takeUsage(body.usage);
        return [];
      }
      case "message_stop":
        this.#stopped = true;
        return this.#unstoppedCalls();
      case "error":
        throw errorEvent(body, this.#context, "provider_stream");
      default:
        // `ping` and anything newer than this adapter.
        return [];
    }
  }

  /**
   * Ends the stream and returns the `finish` part. A stream that closed before `message_stop`
   * (and without a stop reason) was cut off and is a {@link ProviderError}.
   */
  end(): ModelStreamPart[] {
    if (!this.#stopped && this.#stopReason === undefined) {
      throw this.#malformed("the stream ended before message_stop");
    }
    return [...this.#unstoppedCalls(), { type: "finish", response: this.response() }];
  }

  /** The response assembled so far. */
  response(): ModelResponse {
    const response: ModelResponse = { text: this.#text, toolCalls: [...this.#calls] };
    if (this.#reasoning.length > 0) {
      const reasoning = this.#reasoning.join("");
      this.#reasoning = [reasoning];
      response.reasoning = reasoning;
    }
    if (this.#id !== undefined) response.id = this.#id;
    if (this.#counts.input !== undefined || this.#counts.output !== undefined) {
      response.usage = usageFrom(this.#counts);
    }
    if (this.#stopReason !== undefined) response.finishReason = this.#stopReason;
    const stopReason = stopReasonOf(this.#stopReason, this.#calls.length > 0);
    if (stopReason !== undefined) response.stopReason = stopReason;
    if (this.#thinking.length > 0) response.providerData = providerDataOf([...this.#thinking]);
    return response;
  }

  #callPart(open: OpenBlock): ModelStreamPart {
    const call = toolUseCall(open.id, open.name, open.json);
    this.#calls.push(call);
    return { type: "tool_call", call };
  }

  /**
   * The calls of `tool_use` blocks still open when the message ended (no `content_block_stop`):
   * kept, not dropped; arguments cut short are an `argsError` there. Except in a reply cut at
   * the token limit (`max_tokens`, `model_context_window_exceeded`): the API leaves the block it
   * was writing open, and that call was never finished; the response says so with stopReason
   * `length`.
   */
  #unstoppedCalls(): ModelStreamPart[] {
    if (stopReasonOf(this.#stopReason, false) === "length") return [];
    const parts: ModelStreamPart[] = [];
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) {
      const open = this.#blocks.get(index);
      if (open?.type !== "tool_use") continue;
      this.#blocks.delete(index);
      parts.push(this.#callPart(open));
    }
    return parts;
  }

  #malformed(what: string): ProviderError {
    return new ProviderError("provider_stream", `${this.#context.provider}: ${what}`, {
      provider: this.#context.provider,
    });
  }

  #textPart(text: string): ModelStreamPart {
    this.#text += text;
    return { type: "text", delta: text };
  }

  /**
   * A thinking block's next (non-empty) text, after `before` of it: a new block's first text
   * carries the separator {@link joinReasoning} puts between blocks. Only the delta is kept, so
   * each one costs its own length.
   */
  #reasoningPart(before: string, text: string): ModelStreamPart {
    const delta =
      before === "" && this.#reasoning.length > 0 ? `${REASONING_SEPARATOR}${text}` : text;
    this.#reasoning.push(delta);
    return { type: "reasoning", delta };
  }

  /**
   * Usage counts are cumulative: a later event's count replaces an earlier one, and one it
   * leaves out or sends as `null` keeps the earlier (message_start's cache counts).
   */
  #takeUsage(value: unknown): void {
    for (const [key, found] of Object.entries(countsOf(value))) {
      if (found !== undefined) this.#counts[key as keyof AnthropicCounts] = found;
    }
  }
}
