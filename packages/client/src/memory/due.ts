// Reminders and escalations of waiting requests: kept with each request row at its first halt,
// handed out once by `claimDue` (marked fired in the same synchronous step), an escalation
// re-addressing its request.
import {
  checkClaimDue,
  type DueTimer,
  jsonCopy,
  type PendingCall,
  readdressed,
  storedTimers,
} from "@toolnexus/core";
import { type MemoryState, type RequestRow, requestState, toIso } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

/** A halted call's timers, kept once per request row: a later halt never re-arms one that fired. */
export function keepTimers(row: RequestRow, call: Pick<PendingCall, "timers">): void {
  if (row.timers === undefined) {
    const timers = storedTimers(call.timers);
    if (timers.length > 0) row.timers = timers.map((timer) => ({ ...timer, fired: false }));
    return;
  }
  // The halt refreshed the request from the checkpoint: an escalation that fired still holds.
  const escalated = row.timers.filter((timer) => timer.fired && timer.to !== undefined).pop();
  if (escalated?.to !== undefined) {
    row.request = readdressed(jsonCopy(row.request), escalated.to);
  }
}

export function claimDueOp(state: MemoryState): MemoryRunStore["claimDue"] {
  return (options) => {
    const { now, limit } = checkClaimDue(options, "memoryRunStore.claimDue()");
    const due: DueTimer[] = [];
    for (const run of state.runs.values()) {
      for (const row of run.requests.values()) {
        if (row.timers === undefined || requestState(row, now) !== "waiting") continue;
        for (let index = 0; index < row.timers.length; index++) {
          const timer = row.timers[index]!;
          if (timer.fired || timer.atMs > now) continue;
          if (due.length === limit) return due;
          timer.fired = true;
          if (timer.to !== undefined) {
            row.request = readdressed(jsonCopy(row.request), timer.to);
          }
          const item: DueTimer = {
            runId: run.runId,
            requestId: row.id,
            index,
            kind: timer.kind,
            at: toIso(timer.atMs),
            request: jsonCopy(row.request),
          };
          if (timer.to !== undefined) item.to = timer.to;
          if (run.sessionId !== undefined) item.sessionId = run.sessionId;
          if (run.agent !== undefined) item.agent = run.agent;
          due.push(item);
        }
      }
    }
    return due;
  };
}
