import type { Message, Model, ModelRequest, ModelStreamPart, ToolSpec } from "@toolnexus/core";
import { type SimpleTurn, toModelResponse } from "./in-process-model.js";

/** One recorded model request, as the model saw it at that moment. */
export interface RecordedRequest {
  messages: Message[];
  tools: ToolSpec[];
}

/** A scripted turn: fixed, or computed from the request the model receives. */
export type ScriptTurn = SimpleTurn | ((request: ModelRequest) => SimpleTurn);

/** A {@link Model} that replays a script and records what it was asked. */
export interface ScriptedModel extends Model {
  /** Every request received so far, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** How many turns were played. */
  readonly calls: number;
}

/**
 * A Model that plays fixed turns in order and records every request it received, so you can
 * test your tools and hosts through the real loop without an LLM.
 *
 * It also streams (text in small chunks), so `client.stream` exercises the streaming path.
 *
 * @example
 * const model = scriptedModel([
 *   { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
 *   { content: "2 + 3 = 5" },
 * ]);
 */
export function scriptedModel(
  turns: readonly ScriptTurn[],
  options: { id?: string } = {},
): ScriptedModel {
  // The loop only ever appends to a run's transcript, so recording the array and its length is
  // enough to reproduce what the model saw, without copying the transcript on every turn.
  const seen: { messages: readonly Message[]; length: number; tools: readonly ToolSpec[] }[] = [];
  let played = 0;

  const next = (request: ModelRequest) => {
    const turn = turns[played];
    if (turn === undefined) {
      throw new Error(
        `scriptedModel: the script has ${turns.length} turn(s) but the loop asked for turn ${played + 1}; add a turn or lower maxTurns`,
      );
    }
    played++;
    seen.push({
      messages: request.messages,
      length: request.messages.length,
      tools: request.tools,
    });
    return toModelResponse(typeof turn === "function" ? turn(request) : turn);
  };

  return {
    id: options.id ?? "scripted",
    get requests() {
      return seen.map((entry) => ({
        messages: entry.messages.slice(0, entry.length),
        tools: [...entry.tools],
      }));
    },
    get calls() {
      return played;
    },
    async generate(request, callOptions = {}) {
      callOptions.signal?.throwIfAborted();
      return next(request);
    },
    async *stream(request, callOptions = {}): AsyncIterable<ModelStreamPart> {
      callOptions.signal?.throwIfAborted();
      const response = next(request);
      for (const piece of response.reasoning?.match(/.{1,8}/gs) ?? []) {
        yield { type: "reasoning", delta: piece };
      }
      for (const piece of response.text.match(/.{1,8}/gs) ?? []) {
        yield { type: "text", delta: piece };
      }
      for (const call of response.toolCalls) yield { type: "tool_call", call };
      yield { type: "finish", response };
    },
  };
}

export type { SimpleToolCall, SimpleTurn } from "./in-process-model.js";
