// Cancelling a run: at once when no live worker holds it, else marked for its worker to see at
// its next lease renewal; the same for every run of its sub-agents (ids under `<runId>/`).
import {
  type CancelInfo,
  type CancelReceipt,
  type CancelRequest,
  checkActor,
  checkCancelReason,
  RunNotFoundError,
} from "@toolnexus/core";
import type { Db } from "./driver.js";
import type { EventOps } from "./events.js";
import { cancelData, type RunRow, runState } from "./rows.js";

type CancelRow = Pick<
  RunRow,
  "run_id" | "state" | "wake_ms" | "lease_expires_ms" | "cancel_by" | "cancel_reason" | "cancel_at"
>;

/** The cancel writes. */
export interface CancelOps {
  /**
   * Ends a run `cancelled` now (inside the caller's write transaction): its open requests
   * `cancelled`, its lease dropped, a `cancelled` event recorded.
   */
  endCancelled(runId: string, cancel: CancelInfo): void;
  cancel(runId: string, request?: CancelRequest): CancelReceipt;
}

/** Prepares the statements once and returns the cancel writes. */
export function cancelOps(db: Db, events: EventOps): CancelOps {
  const columns = "run_id, state, wake_ms, lease_expires_ms, cancel_by, cancel_reason, cancel_at";
  const runById = db.prepare<[string], CancelRow>(`SELECT ${columns} FROM runs WHERE run_id = ?`);
  // The runs of its sub-agents: ids from `<runId>/` up to (not including) `<runId>0`, `0` being
  // the character after `/`. A range, not LIKE, so `%` and `_` in ids mean nothing.
  const descendants = db.prepare<[string, string], CancelRow>(
    `SELECT ${columns} FROM runs WHERE run_id >= ? AND run_id < ? ORDER BY run_id`,
  );
  const ended = db.prepare<
    [{ runId: string; by: string | null; reason: string | null; at: string; now: number }]
  >(
    `UPDATE runs SET state = 'cancelled', cancel_by = @by, cancel_reason = @reason,
       cancel_at = @at, owner = NULL, lease_expires_ms = NULL, ready_ms = NULL, wake_ms = NULL,
       finished_ms = @now, updated_ms = @now
     WHERE run_id = @runId`,
  );
  const cancelRequests = db.prepare<[string]>(
    `UPDATE requests SET state = 'cancelled'
      WHERE run_id = ? AND state IN ('waiting', 'answered')`,
  );
  const clearJournal = db.prepare<[string]>("DELETE FROM journal WHERE run_id = ?");
  const asked = db.prepare<[string | null, string | null, string, number, string]>(
    `UPDATE runs SET cancel_by = ?, cancel_reason = ?, cancel_at = ?, updated_ms = ?
      WHERE run_id = ?`,
  );

  const endCancelled = (runId: string, cancel: CancelInfo): void => {
    const now = Date.now();
    ended.run({
      runId,
      by: cancel.by ?? null,
      reason: cancel.reason ?? null,
      at: cancel.at,
      now,
    });
    cancelRequests.run(runId);
    clearJournal.run(runId);
    events.record(runId, [{ type: "cancelled", data: cancelData(cancel) }]);
  };

  /** Cancels one run; what happened to it. */
  const cancelOne = (row: CancelRow, cancel: CancelInfo, now: number): CancelReceipt => {
    const runId = row.run_id;
    if (row.state === "done") return { runId, outcome: "finished", state: "done" };
    if (row.state === "cancelled") {
      return { runId, outcome: "already_cancelled", state: "cancelled" };
    }
    const live =
      row.state === "running" && row.lease_expires_ms !== null && row.lease_expires_ms > now;
    if (!live) {
      endCancelled(runId, cancel);
      return { runId, outcome: "cancelled", state: "cancelled" };
    }
    // Asked once: asking again keeps who asked first and records nothing more.
    if (row.cancel_at === null) {
      asked.run(cancel.by ?? null, cancel.reason ?? null, cancel.at, now, runId);
      events.record(runId, [{ type: "cancel_requested", data: cancelData(cancel) }]);
    }
    return { runId, outcome: "requested", state: runState(row, now) };
  };

  const cancelTx = db.transaction((runId: string, cancel: CancelInfo): CancelReceipt => {
    const now = Date.now();
    const row = runById.get(runId);
    if (row === undefined) throw new RunNotFoundError(runId);
    const receipt = cancelOne(row, cancel, now);
    // A finished run changes nothing, its sub-agents' runs included.
    if (receipt.outcome === "finished" || receipt.outcome === "already_cancelled") return receipt;
    for (const child of descendants.all(`${runId}/`, `${runId}0`)) cancelOne(child, cancel, now);
    return receipt;
  });

  return {
    endCancelled,
    cancel(runId, request) {
      if (typeof runId !== "string") throw new TypeError("cancel(): runId must be a string");
      if (request !== undefined && (typeof request !== "object" || request === null)) {
        throw new TypeError("cancel(): the request must be { by?, reason? }");
      }
      const by = checkActor(request?.by, "by");
      const reason = checkCancelReason(request?.reason, "reason");
      const cancel: CancelInfo = { at: new Date().toISOString() };
      if (by !== undefined) cancel.by = by;
      if (reason !== undefined) cancel.reason = reason;
      return cancelTx.immediate(runId, cancel);
    },
  };
}
