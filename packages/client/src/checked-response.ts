// What the loop accepts from a model before anything is recorded: ids and names of a size every
// store, event and span can keep, and arguments no deeper than raw text may nest. A provider
// never sends more; a model (or a custom adapter) that does fails its turn with a clear error,
// inside the model call, so a durable run never journals a response it cannot record.
import { deeperThan, MAX_WIRE_DEPTH, type ModelResponse, type ToolCall } from "@toolnexus/core";

/**
 * The longest response id, finish reason, tool call id or tool name a model may give, in
 * characters. Providers'
 * ids are about 40 (`call_…`, `toolu_…`, `chatcmpl-…`) and tool names at most 64 to 128; a
 * sub-agent's run id is its parent's joined with the call's id, so an id this long still leaves
 * room for several levels under the stores' 1,024-character ids.
 */
export const MAX_MODEL_ID_CHARS = 256;

/**
 * The response the loop takes (`response` itself, or a copy where a call whose object arguments
 * nest too deep has an `argsError`, as `toolCall` gives text that does), or the problem that
 * makes it unusable, as a string. No allocation for a response that passes.
 */
export function checkResponse(response: ModelResponse): ModelResponse | string {
  if (typeof response.id === "string" && response.id.length > MAX_MODEL_ID_CHARS) {
    return tooLong("its response id", response.id);
  }
  const reason = response.finishReason;
  if (typeof reason === "string" && reason.length > MAX_MODEL_ID_CHARS) {
    return tooLong("its finish reason", reason);
  }
  const calls = response.toolCalls;
  let checked: ToolCall[] | undefined;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    if (call.id.length > MAX_MODEL_ID_CHARS) return tooLong("a tool call id", call.id);
    if (call.name.length > MAX_MODEL_ID_CHARS) return tooLong("a tool name", call.name);
    // Text this short cannot nest past the limit (two brackets a level): most skip the walk.
    if (
      call.argsError === undefined &&
      !(typeof call.rawArgs === "string" && call.rawArgs.length < 2 * (MAX_WIRE_DEPTH + 1)) &&
      deeperThan(call.args, MAX_WIRE_DEPTH)
    ) {
      checked ??= calls.slice();
      checked[i] = {
        ...call,
        args: {},
        argsError: `arguments nest deeper than ${MAX_WIRE_DEPTH} levels`,
      };
    }
  }
  return checked === undefined ? response : { ...response, toolCalls: checked };
}

const tooLong = (what: string, value: string) =>
  `${what} is ${value.length} characters long (${JSON.stringify(value.slice(0, 40))}…); at most ${MAX_MODEL_ID_CHARS} are accepted`;
