// What a listener (`onEvent`, a stream's reader) gets: an event whose objects are its own. The
// run's transcript, calls and records stay the loop's: a listener that masks `args.password`
// before logging it must not change what the tool receives, what the model reads next or what
// is stored. Copies are made only for a run someone listens to, and strings are shared.
import { jsonCopy, type ToolCall } from "@toolnexus/core";
import type { RunEvent } from "./types.js";

/** A call a hook or listener may change without changing the transcript's. */
export const copyCall = (call: ToolCall): ToolCall => ({ ...call, args: jsonCopy(call.args) });

/** `event` with every object a listener could change in it copied; other events as they are. */
export function detached(event: RunEvent): RunEvent {
  switch (event.type) {
    case "message":
      return { ...event, message: jsonCopy(event.message) };
    case "tool_call":
      return { ...event, call: copyCall(event.call) };
    case "pending":
      return { ...event, call: copyCall(event.call), request: jsonCopy(event.request) };
    case "tool_result": {
      const { record } = event;
      return {
        ...event,
        call: copyCall(event.call),
        record: { ...record, args: jsonCopy(record.args), result: jsonCopy(record.result) },
      };
    }
    default:
      return event;
  }
}
