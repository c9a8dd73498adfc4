// A push-style question (2025 servers' `elicitation/create` in the middle of a call): answered
// from a replay's record, by the host's `waitFor` while the call waits, or it halts the call.
import { type Answer, type Request, randomId } from "@toolnexus/core";
import { isObject, type ServerConnection as Server } from "./connection.js";
import {
  type Elicitation,
  type ElicitResult,
  elicitationKey,
  elicitationRequest,
  toElicitResult,
} from "./mapping.js";

/** `elicitation` is already scrubbed of every configured secret. */
export async function onElicit(
  server: Server,
  elicitation: Elicitation,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const call = server.calls[server.calls.length - 1];
  const key = elicitationKey(elicitation);
  // A replayed call asks again what was answered before it halted: answer from the record.
  if (call !== undefined && call.replay.length > 0 && call.replay[0]!.key === key) {
    return call.replay.shift()!.result;
  }
  const { waitFor, waitTimeoutMs } = server.options;
  if (waitFor === undefined) {
    // Nobody can answer while the call waits: halt it, and replay it after the answer.
    if (call !== undefined) call.halt(elicitation);
    return { action: "cancel" };
  }
  const request: Request = { id: randomId("mcp"), ...elicitationRequest(elicitation, server.name) };
  if (waitTimeoutMs !== undefined) {
    request.expiresAt = new Date(Date.now() + waitTimeoutMs).toISOString();
  }
  const resume = call?.pause();
  // The wait's own signal: aborts when the call or the server's request ends, or the limit passes.
  const wait = new AbortController();
  const upstream = call === undefined ? signal : AbortSignal.any([signal, call.signal]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlink: (() => void) | undefined;
  try {
    const answer = await new Promise<Answer>((resolve, reject) => {
      if (waitTimeoutMs !== undefined) {
        timer = setTimeout(() => {
          wait.abort(new DOMException("the wait for an answer expired", "TimeoutError"));
          resolve({ id: request.id, ok: false, reason: "expired" });
        }, waitTimeoutMs);
      }
      const onAbort = () => {
        wait.abort(upstream.reason);
        resolve({ id: request.id, ok: false, reason: "cancelled" });
      };
      if (upstream.aborted) onAbort();
      else {
        upstream.addEventListener("abort", onAbort, { once: true });
        unlink = () => upstream.removeEventListener("abort", onAbort);
      }
      const ctx = call?.ctx;
      Promise.resolve()
        .then(() =>
          waitFor(request, {
            call: {
              id: ctx?.callId ?? "",
              name: call?.toolName ?? "",
              args: call?.args ?? {},
              rawArgs: JSON.stringify(call?.args ?? {}),
            },
            tool: call?.toolName ?? "",
            signal: wait.signal,
            sessionId: ctx?.sessionId,
            agent: ctx?.agent,
          }),
        )
        .then(resolve, reject);
    });
    if (!isObject(answer) || typeof answer.ok !== "boolean") return { action: "cancel" };
    return toElicitResult(answer, elicitation);
  } catch {
    return { action: "cancel" };
  } finally {
    clearTimeout(timer);
    unlink?.();
    resume?.();
  }
}
