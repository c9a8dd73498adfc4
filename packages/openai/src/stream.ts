import {
  type ModelResponse,
  type ModelStreamPart,
  randomId,
  type ToolCall,
  toolCall,
  type Usage,
} from "@toolnexus/core";
import { asRecord, ProviderError } from "@toolnexus/provider-utils";
import {
  argumentsText,
  type ParseContext,
  reasoningOf,
  stopReasonOf,
  throwIfErrorBody,
  usageOf,
} from "./response.js";

interface PartialCall {
  index: number;
  id: string;
  name: string;
  args: string;
}

/**
 * Folds Chat Completions stream chunks into stream parts. Text deltas pass through as they
 * arrive, and so do the reasoning deltas some compatible servers send (`reasoning_content` or
 * `reasoning`, as `reasoning` parts). Tool calls are assembled by `index` from argument fragments that may be cut anywhere
 * (the fragments are joined as text and parsed only when the call is complete) and are emitted
 * when the stream ends (`[DONE]` or its close after a finish reason), so a fragment a server sends
 * after `finish_reason` still lands in the arguments. Usage comes from the final chunk
 * (`stream_options.include_usage`). A stream in which no chunk carried a choice is a
 * {@link ProviderError}, as a response without `choices[0].message` is.
 */
export class ChatStreamAssembler {
  readonly #context: ParseContext;
  #id: string | undefined;
  #text = "";
  #reasoning = "";
  #refused = false;
  #calls = new Map<number, PartialCall>();
  #lastIndex = -1;
  #usage: Usage | undefined;
  #finishReason: string | undefined;
  /** Whether any chunk carried the followed choice (an empty stream is no answer). */
  #sawChoice = false;
  #emitted: ToolCall[] | undefined;

  constructor(context: ParseContext) {
    this.#context = context;
  }

  /** True once the choice reported its `finish_reason`. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Takes one parsed chunk and returns the parts it completes. */
  push(chunk: unknown): ModelStreamPart[] {
    const body = asRecord(chunk);
    if (body === undefined) return [];
    throwIfErrorBody(body, this.#context, "provider_stream");
    if (this.#id === undefined && typeof body.id === "string" && body.id !== "") {
      this.#id = body.id;
    }
    const usage = usageOf(body.usage);
    if (usage !== undefined) this.#usage = usage;

    const parts: ModelStreamPart[] = [];
    const choices = Array.isArray(body.choices) ? body.choices : [];
    for (const item of choices) {
      const choice = asRecord(item);
      // Only the first choice is followed (`n` > 1 is not supported by the loop).
      if (choice === undefined || (choice.index !== undefined && choice.index !== 0)) continue;
      this.#sawChoice = true;
      const delta = asRecord(choice.delta);
      if (delta !== undefined) {
        const reasoning = reasoningOf(delta);
        if (reasoning !== "") {
          this.#reasoning += reasoning;
          parts.push({ type: "reasoning", delta: reasoning });
        }
        const refusal = typeof delta.refusal === "string" ? delta.refusal : "";
        if (refusal !== "") this.#refused = true;
        const text = typeof delta.content === "string" ? delta.content : refusal;
        if (text !== "") {
          this.#text += text;
          parts.push({ type: "text", delta: text });
        }
        if (Array.isArray(delta.tool_calls)) {
          for (const fragment of delta.tool_calls) this.#addFragment(fragment);
        }
      }
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        this.#finishReason = choice.finish_reason;
      }
    }
    return parts;
  }

  /**
   * Ends the stream and returns the remaining parts, the last being `finish`. `sawDone` tells
   * whether `data: [DONE]` arrived; a stream with neither `[DONE]` nor a finish reason was cut
   * off, and one in which no chunk carried a choice has no answer: both are a
   * {@link ProviderError}.
   */
  end(sawDone: boolean): ModelStreamPart[] {
    if (!sawDone && this.#finishReason === undefined) {
      throw new ProviderError(
        "provider_stream",
        `${this.#context.provider}: the stream ended before the response was complete`,
        { provider: this.#context.provider },
      );
    }
    if (!this.#sawChoice) {
      throw new ProviderError(
        "provider_stream",
        `${this.#context.provider}: the stream carried no choices[0]`,
        { provider: this.#context.provider },
      );
    }
    const parts = this.#emitCalls();
    parts.push({ type: "finish", response: this.response() });
    return parts;
  }

  /** The response assembled so far. */
  response(): ModelResponse {
    const response: ModelResponse = {
      text: this.#text,
      toolCalls: this.#emitted ?? this.#buildCalls(),
    };
    if (this.#reasoning !== "") response.reasoning = this.#reasoning;
    if (this.#id !== undefined) response.id = this.#id;
    if (this.#usage !== undefined) response.usage = this.#usage;
    if (this.#finishReason !== undefined) response.finishReason = this.#finishReason;
    const stopReason = stopReasonOf(
      this.#finishReason,
      response.toolCalls.length > 0,
      this.#refused,
    );
    if (stopReason !== undefined) response.stopReason = stopReason;
    return response;
  }

  #addFragment(value: unknown): void {
    const fragment = asRecord(value);
    if (fragment === undefined) return;
    const fn = asRecord(fragment.function);
    const id = typeof fragment.id === "string" ? fragment.id : "";
    let index: number;
    if (typeof fragment.index === "number") {
      index = fragment.index;
    } else {
      // Servers that leave out `index`: a new id starts a new call, anything else continues.
      const last = this.#calls.get(this.#lastIndex);
      index =
        last === undefined || (id !== "" && last.id !== "" && id !== last.id)
          ? this.#lastIndex + 1
          : this.#lastIndex;
    }
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { index, id: "", name: "", args: "" };
      this.#calls.set(index, call);
    }
    this.#lastIndex = index;
    if (id !== "" && call.id === "") call.id = id;
    if (typeof fn?.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name;
    if (fn?.arguments !== undefined) call.args += argumentsText(fn.arguments);
  }

  #buildCalls(): ToolCall[] {
    return [...this.#calls.values()]
      .sort((a, b) => a.index - b.index)
      .map((call) => toolCall(call.id === "" ? randomId("call") : call.id, call.name, call.args));
  }

  #emitCalls(): ModelStreamPart[] {
    if (this.#emitted !== undefined) return [];
    this.#emitted = this.#buildCalls();
    return this.#emitted.map((call) => ({ type: "tool_call", call }));
  }
}
