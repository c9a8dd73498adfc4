import {
  type CancelInfo,
  type CancelReceipt,
  type CancelRequest,
  checkActor,
  checkCancelReason,
  RunNotFoundError,
} from "@toolnexus/core";
import type { Run } from "./connection.js";
import { key } from "./connection.js";
import type { Context } from "./context.js";
import { recordEvents } from "./events.js";
import {
  cancelEventData,
  type Int8,
  ms,
  NOW_MS,
  plain,
  readCancel,
  type StoredRunState,
} from "./rows.js";

/**
 * Ends a run `cancelled` in the caller's transaction (its row locked by the caller): who and why
 * kept, its open requests `cancelled`, its journal dropped, the `cancelled` event written.
 */
export async function cancelNow(
  ctx: Context,
  run: Run,
  runKey: Buffer,
  cancelJson: string,
): Promise<void> {
  const { s, name } = ctx;
  await run({
    name: name("cancel_now"),
    text: `WITH u AS (
             UPDATE ${s}.runs SET state = 'cancelled', cancel_json = $2, owner = NULL,
               lease_expires_ms = NULL, ready_ms = NULL, wake_ms = NULL,
               finished_ms = ${NOW_MS}, updated_ms = ${NOW_MS}
             WHERE run_key = $1 RETURNING run_key),
           q AS (UPDATE ${s}.requests SET state = 'cancelled'
                  WHERE run_key IN (SELECT run_key FROM u) AND state IN ('waiting', 'answered'))
           DELETE FROM ${s}.journal WHERE run_key IN (SELECT run_key FROM u)`,
    values: [runKey, cancelJson],
  });
  const info = readCancel(cancelJson) ?? { at: new Date().toISOString() };
  await recordEvents(ctx, run, runKey, [{ type: "cancelled", data: cancelEventData(info) }]);
}

interface Target {
  run_key: Buffer;
  run_id: string;
  state: StoredRunState;
  wake_ms: Int8;
  lease_expires_ms: Int8;
  cancel_json: string | null;
  now_ms: Int8;
}

/** Builds `cancel` over the store's context. */
export function cancelOp(
  ctx: Context,
): (runId: string, request?: CancelRequest) => Promise<CancelReceipt> {
  const { db, s, name } = ctx;
  return async (runId, request = {}) => {
    if (typeof runId !== "string") throw new TypeError("cancel(): runId must be a string");
    if (typeof request !== "object" || request === null) {
      throw new TypeError("cancel(): the request must be { by?, reason? }");
    }
    const by = checkActor(request.by, "cancel(): by");
    const reason = checkCancelReason(request.reason, "cancel(): reason");
    const id = runId;
    return db.retrying(async (uncertain) => {
      await ctx.ready();
      return db.tx(async (run) => {
        // The run and its sub-agents' runs (ids under `<runId>/`), locked in one order (by key)
        // so that two cancels of overlapping trees never deadlock. `left` compares characters
        // exactly: no LIKE pattern, so `%` and `_` in an id mean themselves. Ids are kept
        // exactly in `run_id` (those PostgreSQL text cannot hold are refused).
        const { rows } = await run<Target>({
          name: name("cancel_lock"),
          text: `SELECT run_key, run_id, state, wake_ms, lease_expires_ms, cancel_json,
                        ${NOW_MS} AS now_ms
                   FROM ${s}.runs
                  WHERE run_key = $1
                     OR left(run_id, char_length($2) + 1) = $2 || '/'
                  ORDER BY run_key FOR NO KEY UPDATE`,
          values: [key(id), plain(id)],
        });
        const topKey = key(id);
        const top = rows.find((row) => row.run_key.equals(topKey));
        if (top === undefined) throw new RunNotFoundError(id);
        const now = ms(top.now_ms)!;
        const info: CancelInfo = { at: new Date(now).toISOString() };
        if (by !== undefined) info.by = by;
        if (reason !== undefined) info.reason = reason;
        const json = JSON.stringify(info);

        let receipt: CancelReceipt | undefined;
        for (const row of rows) {
          const outcome = await cancelOne(row, now, json);
          if (row === top) receipt = { runId: id, outcome: outcome.outcome, state: outcome.state };
        }
        if (uncertain && receipt!.outcome === "already_cancelled") {
          // An earlier attempt's commit went unanswered: cancelled with this very who and why,
          // it was that attempt that cancelled it.
          const kept = readCancel(top.cancel_json);
          if (kept?.by === by && kept?.reason === reason) receipt!.outcome = "cancelled";
        }
        return receipt!;

        async function cancelOne(
          row: Target,
          nowMs: number,
          cancelJson: string,
        ): Promise<Pick<CancelReceipt, "outcome" | "state">> {
          switch (row.state) {
            case "cancelled":
              return { outcome: "already_cancelled", state: "cancelled" };
            case "done":
              return { outcome: "finished", state: "done" };
            case "running": {
              const expires = ms(row.lease_expires_ms);
              if (expires !== null && expires > nowMs) {
                // Its worker is alive: it is asked, and stops at its next renew.
                if (row.cancel_json === null) {
                  await run({
                    name: name("cancel_ask"),
                    text: `UPDATE ${s}.runs SET cancel_json = $2, updated_ms = ${NOW_MS}
                            WHERE run_key = $1`,
                    values: [row.run_key, cancelJson],
                  });
                  const asked = readCancel(cancelJson)!;
                  await recordEvents(ctx, run, row.run_key, [
                    { type: "cancel_requested", data: cancelEventData(asked) },
                  ]);
                }
                return { outcome: "requested", state: "running" };
              }
              // Its worker is gone (the lease lapsed by the database's clock): ended now, with
              // who asked first if someone had.
              await cancelNow(ctx, run, row.run_key, row.cancel_json ?? cancelJson);
              return { outcome: "cancelled", state: "cancelled" };
            }
            default:
              // waiting (or expired: a waiting run past a deadline), ready, failed.
              await cancelNow(ctx, run, row.run_key, cancelJson);
              return { outcome: "cancelled", state: "cancelled" };
          }
        }
      });
    });
  };
}
