import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ToolCall,
  Usage,
} from "@toolnexus/core";
import { toolCall } from "@toolnexus/core";

/** A tool call as a function-backed model writes it: arguments as an object or JSON text. */
export interface SimpleToolCall {
  /** Leave it out and the loop makes one. */
  id?: string;
  name: string;
  arguments?: Record<string, unknown> | string;
}

/** One model turn as a function-backed model writes it. */
export interface SimpleTurn {
  /** The response id; becomes the assistant message's id. */
  id?: string;
  content?: string;
  /** The reasoning the model shows before its answer ({@link ModelResponse.reasoning}). */
  reasoning?: string;
  toolCalls?: SimpleToolCall[];
  usage?: Partial<Usage>;
}

/** Turns a {@link SimpleTurn} into the {@link ModelResponse} the loop reads. */
export function toModelResponse(turn: SimpleTurn): ModelResponse {
  const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((call) => {
    const id = call.id ?? "";
    if (typeof call.arguments === "string") return toolCall(id, call.name, call.arguments);
    const args = call.arguments ?? {};
    return { id, name: call.name, args, rawArgs: JSON.stringify(args) };
  });
  const response: ModelResponse = { text: turn.content ?? "", toolCalls };
  if (turn.id !== undefined) response.id = turn.id;
  if (turn.reasoning !== undefined) response.reasoning = turn.reasoning;
  if (turn.usage !== undefined) {
    const promptTokens = turn.usage.promptTokens ?? 0;
    const completionTokens = turn.usage.completionTokens ?? 0;
    response.usage = {
      promptTokens,
      completionTokens,
      totalTokens: turn.usage.totalTokens ?? promptTokens + completionTokens,
    };
  }
  response.finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
  return response;
}

/** What {@link inProcessModel} takes. */
export interface InProcessModelOptions {
  id: string;
  generate(request: ModelRequest, options: ModelCallOptions): SimpleTurn | Promise<SimpleTurn>;
}

/**
 * A Model backed by your own function, with no network: a rules engine, a router, a fake for
 * tests, or a model you call yourself. Return `{ content }` to answer or `{ toolCalls }` to call
 * tools (arguments as an object or a JSON string), plus optional `usage`.
 *
 * @example
 * const model = inProcessModel({
 *   id: "echo",
 *   generate: ({ messages }) => ({ content: `you said: ${messages.at(-1)?.content}` }),
 * });
 */
export function inProcessModel(options: InProcessModelOptions): Model {
  if (typeof options?.generate !== "function") {
    throw new TypeError("inProcessModel: `generate` must be a function");
  }
  return {
    id: options.id,
    async generate(request, callOptions = {}) {
      return toModelResponse(await options.generate(request, callOptions));
    },
  };
}
