// A 2026 server's task handle (`resultType: "task"`, the Tasks extension) reaching the SDK client:
// the SDK (2.4.0) knows only `complete` and `input_required` results and rejects the handle, so
// the transport hands it on as an `input_required` result whose requestState carries the handle
// behind a mark no server can know (random per process). send.ts reads it back with `taskOf`.
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { isObject } from "./connection.js";

const MARK = `toolnexus-task:${randomUUID()}:`;
/** Where a 2025 task handle travels in a wrapped result's `_meta`. */
export const META_KEY = "dev.toolnexus/task";
/** Requests in flight we watch the answers of; bounded in case a server never answers. */
const MAX_WATCHED = 1024;

type Id = string | number;
type Listener = (message: JSONRPCMessage, extra?: unknown) => void;

/**
 * Watches `tools/call` answers on a connected client's transport: a task handle among them goes
 * on to the SDK wrapped as described above. Call it after `client.connect(transport)`.
 */
export function interceptTasks(transport: Transport): void {
  const calls = new Set<Id>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === "tools/call" && (typeof m.id === "string" || typeof m.id === "number")) {
      if (calls.size >= MAX_WATCHED) calls.delete(calls.values().next().value as Id);
      calls.add(m.id);
    }
    return send(message, options);
  };
  const inner = transport.onmessage as Listener | undefined;
  if (inner === undefined) return;
  transport.onmessage = ((message: JSONRPCMessage, extra?: unknown) => {
    const m = message as { id?: Id; result?: unknown };
    if (m.id !== undefined && calls.delete(m.id) && isObject(m.result)) {
      const { resultType, _meta: _m, content: _c, ...task } = m.result;
      if (resultType === "task") {
        const wrapped = { resultType: "input_required", requestState: MARK + JSON.stringify(task) };
        inner({ ...message, result: wrapped } as JSONRPCMessage, extra);
        return;
      }
      // A 2025 server's CreateTaskResult (`{ task }`): a result with no content, the handle in
      // `_meta` behind the same mark (that era has no input_required).
      if (resultType === undefined && isObject(m.result.task)) {
        const wrapped = {
          content: [],
          _meta: { [META_KEY]: MARK + JSON.stringify(m.result.task) },
        };
        inner({ ...message, result: wrapped } as JSONRPCMessage, extra);
        return;
      }
    }
    inner(message, extra);
  }) as Transport["onmessage"];
}

/** The task handle inside a wrapped result's requestState, or undefined for any other state. */
export function taskOf(requestState: unknown): Record<string, unknown> | undefined {
  if (typeof requestState !== "string" || !requestState.startsWith(MARK)) return undefined;
  const parsed = JSON.parse(requestState.slice(MARK.length)) as unknown;
  return isObject(parsed) ? parsed : undefined;
}
