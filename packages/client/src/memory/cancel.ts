import {
  type CancelInfo,
  type CancelReceipt,
  checkActor,
  checkCancelReason,
  jsonText,
  RunNotFoundError,
  WireFormatError,
} from "@toolnexus/core";
import type { Retention } from "./retention.js";
import { type MemoryState, type RunRow, toIso } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// Cancel: a run nobody works on ends `cancelled` at once; a running one is marked, and its
// worker learns it from its next renew. Sub-agents' runs (`<runId>/…`) go the same way.

/** A cancel's JSON, written by hand: every cancel of a run that ends is kept as text. */
function cancelJson(cancel: CancelInfo): string {
  let json = `{"at":${jsonText(cancel.at)}`;
  if (cancel.by !== undefined) json += `,"by":${jsonText(cancel.by)}`;
  if (cancel.reason !== undefined) json += `,"reason":${jsonText(cancel.reason)}`;
  return `${json}}`;
}

/** Ends `run` cancelled now: its open requests cancelled, nothing left to claim. */
export function endCancelled(
  state: MemoryState,
  retention: Retention,
  run: RunRow,
  cancel: CancelInfo,
  now: number,
): void {
  run.state = "cancelled";
  run.cancelJson = cancelJson(cancel);
  for (const row of run.requests.values()) {
    if (row.state === "waiting" || row.state === "answered") row.state = "cancelled";
  }
  run.journal = [];
  run.owner = undefined;
  run.leaseExpiresMs = undefined;
  run.readyMs = undefined;
  run.finishedMs = now;
  run.updatedMs = now;
  const data: Record<string, unknown> = {};
  if (cancel.by !== undefined) data.by = cancel.by;
  if (cancel.reason !== undefined) data.reason = cancel.reason;
  state.record(run, "cancelled", data);
  retention.finished(run);
}

export function cancelOp(state: MemoryState, retention: Retention): MemoryRunStore["cancel"] {
  const { runs } = state;

  const cancelOne = (run: RunRow, cancel: CancelInfo, now: number): CancelReceipt["outcome"] => {
    switch (run.state) {
      case "cancelled":
        return "already_cancelled";
      case "done":
        return "finished";
      case "running":
        if ((run.leaseExpiresMs ?? 0) > now) {
          // Asked once: a second ask changes nothing (the first who asked is kept).
          if (run.cancelJson === undefined) {
            run.cancelJson = cancelJson(cancel);
            run.updatedMs = now;
            const data: Record<string, unknown> = {};
            if (cancel.by !== undefined) data.by = cancel.by;
            if (cancel.reason !== undefined) data.reason = cancel.reason;
            state.record(run, "cancel_requested", data);
          }
          return "requested";
        }
        // Its worker is gone (the lease lapsed): nobody would see the request.
        endCancelled(state, retention, run, cancel, now);
        return "cancelled";
      default:
        endCancelled(state, retention, run, cancel, now);
        return "cancelled";
    }
  };

  return (runId, request = {}) => {
    if (typeof request !== "object" || request === null) {
      throw new WireFormatError("options", [
        { message: "memoryRunStore.cancel(): the request must be { by?, reason? }" },
      ]);
    }
    const by = checkActor(request.by, "cancel: by");
    const reason = checkCancelReason(request.reason, "cancel: reason");
    const run = runs.get(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const now = Date.now();
    const cancel: CancelInfo = { at: toIso(now) };
    if (by !== undefined) cancel.by = by;
    if (reason !== undefined) cancel.reason = reason;
    // Listed before any is changed: ending a run may drop older finished ones (retention).
    const prefix = `${runId}/`;
    const subRuns: RunRow[] = [];
    if (state.nested > 0) {
      for (const sub of runs.values()) if (sub.runId.startsWith(prefix)) subRuns.push(sub);
    }
    const outcome = cancelOne(run, cancel, now);
    for (const sub of subRuns) cancelOne(sub, cancel, now);
    return { runId, outcome, state: run.state };
  };
}
