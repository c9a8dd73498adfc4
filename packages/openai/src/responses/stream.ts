import type { ModelResponse, ModelStreamPart, ToolCall } from "@toolnexus/core";
import { asRecord, ProviderError } from "@toolnexus/provider-utils";
import {
  errorOf,
  functionCall,
  type ParseContext,
  parseResponse,
  SUMMARY_SEPARATOR,
} from "./response.js";

/**
 * Folds Responses API stream events into stream parts: `response.output_text.delta` and
 * `response.refusal.delta` pass through as text, `response.reasoning_summary_text.delta` as
 * reasoning (a new summary part's first delta carries the blank line between parts); a function call is emitted when its
 * `response.output_item.done` arrives (its `arguments` whole; the
 * `response.function_call_arguments.delta` fragments, cut anywhere, are only a fallback, and a
 * call announced by `response.output_item.added` whose done never comes is emitted from them at
 * the terminal event when the final output lacks it too); the
 * terminal `response.completed` or `response.incomplete` carries the whole response (usage,
 * status, reasoning items). `error` and `response.failed` are a {@link ProviderError}; other
 * events (`response.created`…) are skipped.
 */
export class ResponsesStreamAssembler {
  readonly #context: ParseContext;
  #text = "";
  /**
   * The reasoning text in the pieces it arrived in, joined once at the terminal event: a stream
   * of many small summary deltas must not copy the whole text so far at each one.
   */
  #reasoning: string[] = [];
  /** The summary part the last reasoning delta belonged to (`item_id` and `summary_index`). */
  #summaryPart = "";
  #calls: ToolCall[] = [];
  #args = new Map<string, string>();
  /**
   * Function call items announced (`output_item.added`) and not yet done, by item id: one whose
   * `output_item.done` never comes is still a call, from its announcement and its fragments.
   */
  #open = new Map<string, Record<string, unknown>>();
  #final: ModelResponse | undefined;

  constructor(context: ParseContext) {
    this.#context = context;
  }

  /** True once the terminal event arrived. */
  get done(): boolean {
    return this.#final !== undefined;
  }

  /** Takes one parsed event and returns the parts it completes. */
  push(event: unknown): ModelStreamPart[] {
    const body = asRecord(event);
    if (body === undefined) return [];
    switch (body.type) {
      case "response.output_text.delta":
      case "response.refusal.delta": {
        if (typeof body.delta !== "string" || body.delta === "") return [];
        this.#text += body.delta;
        return [{ type: "text", delta: body.delta }];
      }
      case "response.reasoning_summary_text.delta": {
        if (typeof body.delta !== "string" || body.delta === "") return [];
        const part = `${String(body.item_id)}/${String(body.summary_index)}`;
        // A new summary part's first delta carries the separator joinSummary puts between parts.
        const delta =
          part !== this.#summaryPart && this.#reasoning.length > 0
            ? `${SUMMARY_SEPARATOR}${body.delta}`
            : body.delta;
        this.#summaryPart = part;
        this.#reasoning.push(delta);
        return [{ type: "reasoning", delta }];
      }
      case "response.function_call_arguments.delta": {
        if (typeof body.item_id === "string" && typeof body.delta === "string") {
          this.#args.set(body.item_id, (this.#args.get(body.item_id) ?? "") + body.delta);
        }
        return [];
      }
      case "response.output_item.added": {
        const item = asRecord(body.item);
        if (item?.type === "function_call" && typeof item.id === "string") {
          this.#open.set(item.id, item);
        }
        return [];
      }
      case "response.output_item.done": {
        const item = asRecord(body.item);
        if (item?.type !== "function_call") return [];
        if (typeof item.id === "string") this.#open.delete(item.id);
        const fragments = typeof item.id === "string" ? this.#args.get(item.id) : undefined;
        const call = functionCall(
          typeof item.arguments === "string" || fragments === undefined
            ? item
            : { ...item, arguments: fragments },
        );
        this.#calls.push(call);
        return [{ type: "tool_call", call }];
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        const final = parseResponse(body.response, this.#context, "provider_stream");
        // A call announced and streamed whose `output_item.done` never came, and that the final
        // output does not hold either, is not dropped: it is emitted now, from its fragments.
        const late: ModelStreamPart[] = [];
        for (const [id, item] of this.#open) {
          const known = (call: ToolCall) => call.id === item.call_id;
          if (this.#calls.some(known) || final.toolCalls.some(known)) continue;
          const call = functionCall({ ...item, arguments: this.#args.get(id) ?? "" });
          this.#calls.push(call);
          late.push({ type: "tool_call", call });
        }
        this.#open.clear();
        // What was streamed is what the caller saw: the same calls, the same text.
        final.toolCalls = this.#calls.length > 0 ? [...this.#calls] : final.toolCalls;
        if (final.text === "") final.text = this.#text;
        if (this.#reasoning.length > 0) final.reasoning = this.#reasoning.join("");
        if (final.toolCalls.length > 0) final.stopReason = "tool_calls";
        this.#final = final;
        return late;
      }
      case "error":
        throw errorOf(asRecord(body.error) ?? body, this.#context, "provider_stream");
      default:
        return [];
    }
  }

  /** Ends the stream and returns the `finish` part; without a terminal event it was cut off. */
  end(): ModelStreamPart[] {
    if (this.#final === undefined) {
      throw new ProviderError(
        "provider_stream",
        `${this.#context.provider}: the stream ended before the response was complete`,
        { provider: this.#context.provider },
      );
    }
    return [{ type: "finish", response: this.#final }];
  }
}
