import {
  assertCheckpoint,
  assertJournalEntry,
  type CancelInfo,
  type Checkpoint,
  CheckpointError,
  checkActor,
  checkCancelReason,
  encodeCheckpoint,
  type HaltReceipt,
  type JournalEntry,
  type Lease,
  LeaseLostError,
  type PruneOptions,
  type RunErrorInfo,
  type RunOutcome,
  ToolnexusError,
} from "@toolnexus/core";
import { cancelNow } from "./cancel.js";
import { key, type Run } from "./connection.js";
import type { Context } from "./context.js";
import { withTimers } from "./due.js";
import type { StoreEvent } from "./events.js";
import {
  cancelEventData,
  checkLease,
  checkLeaseMs,
  checkOwner,
  errorInfo,
  type Int8,
  ms,
  NOW_MS,
  plain,
  readCancel,
  type StoredRunState,
  short,
  toMs,
} from "./rows.js";

/** The writes of a run's life: the ones a worker makes under its lease, and pruning. */
export interface RunOps {
  halt(checkpoint: Checkpoint, lease?: Lease): Promise<HaltReceipt>;
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Promise<Lease>;
  step(lease: Lease, checkpoint: Checkpoint): Promise<void>;
  journal(lease: Lease, entry: JournalEntry): Promise<void>;
  renew(lease: Lease, leaseMs: number): Promise<Lease>;
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): Promise<void>;
  finish(lease: Lease, outcome: RunOutcome): Promise<void>;
  prune(options: PruneOptions): Promise<number>;
  /** Throws the `LeaseLostError` saying why `lease` no longer holds. */
  lost(lease: Lease, run?: Run): Promise<never>;
}

function runExists(runId: string): ToolnexusError {
  return new ToolnexusError(
    "run_exists",
    `a durable run with id "${short(runId)}" is already in the store; a new run needs a new id`,
  );
}

function otherRun(checkpoint: { runId: string }, lease: Lease): CheckpointError {
  return new CheckpointError(
    undefined,
    `it belongs to run "${short(checkpoint.runId)}", but the lease is on run "${short(lease.runId)}"`,
  );
}

/** The pending calls of a halt as column arrays (one row per request id: the last call wins). */
function requestColumns(checkpoint: Checkpoint) {
  const byId = new Map<string, number>();
  checkpoint.pending.forEach((call, position) => {
    byId.delete(call.request.id);
    byId.set(call.request.id, position);
  });
  const keys: Buffer[] = [];
  const ids: string[] = [];
  const positions: number[] = [];
  const kinds: string[] = [];
  const prompts: string[] = [];
  const jsons: string[] = [];
  const expiresAt: (string | null)[] = [];
  const expiresMs: (number | null)[] = [];
  for (const [id, position] of byId) {
    const call = checkpoint.pending[position]!;
    const deadline = call.deadline ?? call.request.expiresAt ?? null;
    keys.push(key(id));
    ids.push(plain(id));
    positions.push(position);
    kinds.push(plain(String(call.request.kind)));
    prompts.push(plain(String(call.request.prompt)));
    // With its reminders, which a trigger moves to their table in the same transaction.
    jsons.push(withTimers(call));
    expiresAt.push(deadline === null ? null : plain(String(deadline)));
    expiresMs.push(toMs(deadline));
  }
  return [keys, ids, positions, kinds, prompts, jsons, expiresAt, expiresMs];
}

/** The data of a run's `started` event. */
export function startedData(checkpoint: Checkpoint): string {
  const data: { sessionId?: string; agent?: string } = {};
  if (checkpoint.sessionId !== undefined) data.sessionId = checkpoint.sessionId;
  if (checkpoint.agent !== undefined) data.agent = checkpoint.agent;
  return JSON.stringify(data);
}

/** The data of a `suspended` event: the requests as asked. */
function suspendedData(checkpoint: Checkpoint): string {
  return JSON.stringify({ requests: checkpoint.pending.map((call) => call.request) });
}

/** Builds the run writes over the store's context. */
export function runOps(ctx: Context): RunOps {
  const { db, s, name } = ctx;
  // Fencing: a write goes through only while the lease is the run's current one. Expiry alone
  // does not fail it: only another claim (which bumps the token) takes the run away.
  const FENCE = "run_key = $1 AND owner = $2 AND token = $3 AND state = 'running'";
  const fenceValues = (lease: Lease) => [key(lease.runId), lease.owner, lease.token];

  /** Why a lease no longer holds (it was refused by a fenced write). */
  const why = async (lease: Lease, run: Run = db.run): Promise<string> => {
    const { rows } = await run<{ state: StoredRunState; owner: string | null; token: number }>({
      name: name("holder"),
      text: `SELECT state, owner, token FROM ${s}.runs WHERE run_key = $1`,
      values: [key(lease.runId)],
    });
    const row = rows[0];
    if (row === undefined) return "the run is no longer in the store";
    if (row.state !== "running") return `the run is ${row.state}`;
    return `the run was claimed again (lease ${row.token}, held by "${short(row.owner ?? "")}")`;
  };
  const lost = async (lease: Lease, run?: Run): Promise<never> => {
    throw new LeaseLostError(lease.runId, await why(lease, run));
  };

  return {
    lost,
    async halt(checkpoint, lease) {
      if (lease !== undefined) checkLease(lease, "halt()");
      assertCheckpoint(checkpoint);
      // A halt with nothing to wait for could never become claimable again.
      if (checkpoint.pending.length === 0) {
        throw new CheckpointError(undefined, "a halted run needs at least one pending call");
      }
      // Everything is copied before the first await: the caller may change the checkpoint.
      const json = encodeCheckpoint(checkpoint);
      const runId = checkpoint.runId;
      const sessionId = checkpoint.sessionId ?? null;
      const agent = checkpoint.agent ?? null;
      const columns = requestColumns(checkpoint);
      const held = lease === undefined ? undefined : { ...lease };
      const runKey = key(held?.runId ?? runId);
      const events: StoreEvent[] = [];
      if (held === undefined) events.push({ type: "started", data: startedData(checkpoint) });
      events.push({ type: "suspended", data: suspendedData(checkpoint) });
      // A halt whose commit went unanswered (the connection broke) is tried again; then a run
      // already stored exactly as this halt leaves it is this halt's own write.
      const landed = async (token: number) => {
        const { rows } = await db.run<{ state: "waiting" | "ready" }>({
          name: name("halt_landed"),
          text: `SELECT state FROM ${s}.runs WHERE run_key = $1 AND token = $2
                   AND owner IS NULL AND state IN ('waiting', 'ready') AND checkpoint_json = $3`,
          values: [runKey, token, json],
        });
        return rows[0]?.state;
      };
      return db.retrying(async (uncertain): Promise<HaltReceipt> => {
        await ctx.ready();
        if (held !== undefined && runId !== held.runId) {
          // Fenced first, as every write: a lost lease is LeaseLostError whatever it writes.
          const { rows } = await db.run<{ n: number }>({
            name: name("fenced"),
            text: `SELECT count(*)::int AS n FROM ${s}.runs WHERE ${FENCE}`,
            values: fenceValues(held),
          });
          if (rows[0]!.n === 0) await lost(held);
          throw otherRun(checkpoint, held);
        }
        // One round trip: the fence (or the new run's insert), the requests, the run, its events
        // and a cancel asked meanwhile, in order, in one transaction (schema.ts, halt_run).
        const { rows } = await db.run<{ o_state: string; o_cancel: string | null }>({
          name: name("halt"),
          text: `SELECT o_state, o_cancel FROM ${s}.halt_run($1, $2, $3, $4, $5, $6, $7, $8, $9,
                   $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
          values: [
            runKey,
            plain(runId),
            sessionId === null ? null : key(sessionId),
            plain(sessionId),
            plain(agent),
            plain(checkpoint.createdAt),
            json,
            held?.owner ?? null,
            held?.token ?? 0,
            new Date().toISOString(),
            ...columns,
            events.map((e) => e.type),
            events.map((e) => e.data),
            ctx.channel,
            ctx.eventsChannel,
          ],
        });
        const { o_state: state, o_cancel: cancel } = rows[0]!;
        if (state === "exists" || state === "lost") {
          const already = uncertain ? await landed(held?.token ?? 0) : undefined;
          if (already !== undefined) return { state: already };
          if (held === undefined) throw runExists(runId);
          return lost(held);
        }
        if (cancel !== null) {
          // Asked to stop while it ran: it stopped here, its requests never to be answered.
          return {
            state: "cancelled",
            cancel: readCancel(cancel) ?? { at: new Date().toISOString() },
          };
        }
        return { state: state as "waiting" | "ready" };
      });
    },

    async start(checkpoint, owner, leaseMs) {
      assertCheckpoint(checkpoint);
      checkOwner(owner, "start()");
      checkLeaseMs(leaseMs, "start()");
      const json = encodeCheckpoint(checkpoint);
      const { runId, createdAt } = checkpoint;
      const sessionId = checkpoint.sessionId ?? null;
      const agent = checkpoint.agent ?? null;
      return db.retrying(async (uncertain) => {
        await ctx.ready();
        // The lease runs out by the database's clock.
        // One statement: the run and its `started` event are written together.
        const inserted = await db.run<{ expires: Int8 }>({
          name: name("start"),
          text: `WITH r AS (
                   INSERT INTO ${s}.runs (run_key, run_id, session_id, agent, state, created_at,
                     updated_ms, owner, token, lease_expires_ms, checkpoint_json, events_last)
                   VALUES ($1, $2, $3, $4, 'running', $5, ${NOW_MS}, $6, 1, ${NOW_MS} + $7, $8, 1)
                   ON CONFLICT (run_key) DO NOTHING
                   RETURNING run_key, run_id, lease_expires_ms),
                 e AS (
                   INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
                   SELECT run_key, 1, run_id, ${NOW_MS}, 'started', $9 FROM r)
                 SELECT lease_expires_ms AS expires,
                        pg_notify($10, encode(run_key, 'hex'))::text AS n FROM r`,
          values: [
            key(runId),
            plain(runId),
            plain(sessionId),
            plain(agent),
            plain(createdAt),
            owner,
            Math.ceil(leaseMs),
            json,
            startedData(checkpoint),
            ctx.eventsChannel,
          ],
        });
        let expires = inserted.rows[0]?.expires;
        if (expires === undefined && uncertain) {
          // An earlier attempt's commit went unanswered: the run it started is this start's.
          const { rows } = await db.run<{ expires: Int8 }>({
            name: name("start_landed"),
            text: `SELECT lease_expires_ms AS expires FROM ${s}.runs
                    WHERE run_key = $1 AND owner = $2 AND token = 1 AND state = 'running'
                      AND checkpoint_json = $3`,
            values: [key(runId), owner, json],
          });
          expires = rows[0]?.expires;
        }
        if (expires === undefined) throw runExists(runId);
        return { runId, owner, token: 1, expiresAt: ms(expires)! };
      });
    },

    async step(lease, checkpoint) {
      checkLease(lease, "step()");
      assertCheckpoint(checkpoint);
      const held = { ...lease };
      const json = encodeCheckpoint(checkpoint);
      const runId = checkpoint.runId;
      // The same checkpoint written twice is written once: safe to try again.
      return db.retrying(async () => {
        await ctx.ready();
        if (runId !== held.runId) {
          // Fenced first, as every write: a lost lease is LeaseLostError whatever it writes.
          const { rows } = await db.run<{ n: number }>({
            name: name("fenced"),
            text: `SELECT count(*)::int AS n FROM ${s}.runs WHERE ${FENCE}`,
            values: fenceValues(held),
          });
          if (rows[0]!.n === 0) await lost(held);
          throw otherRun({ runId }, held);
        }
        const { rows } = await db.run<{ n: number }>({
          name: name("step"),
          text: `WITH u AS (
                 UPDATE ${s}.runs SET checkpoint_json = $4, updated_ms = ${NOW_MS},
                   failures = 0, error_json = NULL
                 WHERE ${FENCE} RETURNING run_key),
               j AS (DELETE FROM ${s}.journal WHERE run_key IN (SELECT run_key FROM u))
               SELECT count(*)::int AS n FROM u`,
          values: [...fenceValues(held), json],
        });
        if (rows[0]!.n === 0) await lost(held);
      });
    },

    async journal(lease, entry) {
      checkLease(lease, "journal()");
      assertJournalEntry(entry, lease.runId);
      const held = { ...lease };
      const json = JSON.stringify(entry);
      const answered = typeof entry.answered === "string" ? key(entry.answered) : null;
      return db.retrying(async (uncertain) => {
        await ctx.ready();
        // The fenced update locks the run row, so a claim that takes the run over either comes
        // first (and this write is refused) or reads this entry. Tried again after a commit that
        // went unanswered, an entry already journaled is not added twice.
        const once = uncertain
          ? `AND NOT EXISTS (SELECT 1 FROM ${s}.journal j WHERE j.run_key = u.run_key AND j.json = $4)`
          : "";
        const { rows } = await db.run<{ n: number }>({
          name: name(uncertain ? "journal_once" : "journal"),
          text: `WITH u AS (
                   UPDATE ${s}.runs SET updated_ms = ${NOW_MS} WHERE ${FENCE} RETURNING run_key),
                 i AS (INSERT INTO ${s}.journal (run_key, json) SELECT run_key, $4 FROM u
                        WHERE true ${once}),
                 a AS (UPDATE ${s}.requests SET state = 'applied'
                        WHERE run_key IN (SELECT run_key FROM u) AND request_key = $5::bytea)
                 SELECT count(*)::int AS n FROM u`,
          values: [...fenceValues(held), json, answered],
        });
        if (rows[0]!.n === 0) await lost(held);
      });
    },

    async renew(lease, leaseMs) {
      checkLease(lease, "renew()");
      checkLeaseMs(leaseMs, "renew()");
      const held = { ...lease };
      return db.retrying(async () => {
        await ctx.ready();
        // By the database's clock, as every lease.
        // A cancel asked meanwhile comes back with the lease: the worker stops the run.
        const renewed = await db.run<{ expires: Int8; cancel_json: string | null }>({
          name: name("renew"),
          text: `UPDATE ${s}.runs SET lease_expires_ms = ${NOW_MS} + $4, updated_ms = ${NOW_MS}
                 WHERE ${FENCE} RETURNING lease_expires_ms AS expires, cancel_json`,
          values: [...fenceValues(held), Math.ceil(leaseMs)],
        });
        const row = renewed.rows[0];
        if (row === undefined) return lost(held);
        const next: Lease = {
          runId: held.runId,
          owner: held.owner,
          token: held.token,
          expiresAt: ms(row.expires)!,
        };
        const cancel = readCancel(row.cancel_json);
        if (cancel !== undefined) next.cancel = cancel;
        return next;
      });
    },

    async release(lease, error, retryAt) {
      checkLease(lease, "release()");
      if (retryAt !== undefined && (typeof retryAt !== "number" || !Number.isFinite(retryAt))) {
        throw new TypeError("release(): retryAt must be an epoch time in milliseconds");
      }
      const errorJson = error === undefined ? null : JSON.stringify(errorInfo(error, "release()"));
      const held = { ...lease };
      // retryAt is a time on this machine's clock: it is kept as a delay from now, and the run
      // becomes claimable that long after now on the database's clock.
      const delayMs = retryAt === undefined ? 0 : Math.round(retryAt - Date.now());
      // A lost lease is not an error here: the worker is giving the run up anyway. Released
      // twice (tried again), the second finds the lease gone and changes nothing.
      await db.retrying(async () => {
        await ctx.ready();
        // Given back after a cancel was asked, the run ends cancelled instead. The run row is
        // locked first, so a cancel asked meanwhile either comes first (and is seen here) or
        // finds the run given back (and cancels it at once).
        await db.tx(async (run) => {
          const { rows } = await run<{ cancel_json: string | null }>({
            name: name("release_fence"),
            text: `SELECT cancel_json FROM ${s}.runs WHERE ${FENCE} FOR NO KEY UPDATE`,
            values: fenceValues(held),
          });
          const row = rows[0];
          if (row === undefined) return;
          if (row.cancel_json !== null) {
            await cancelNow(ctx, run, key(held.runId), row.cancel_json);
            return;
          }
          await run({
            name: name("release"),
            text: `WITH u AS (
                     UPDATE ${s}.runs SET state = 'ready', owner = NULL, lease_expires_ms = NULL,
                       ready_ms = ${NOW_MS} + $4, updated_ms = ${NOW_MS},
                       failures = failures + $5, error_json = coalesce($6, error_json)
                     WHERE ${FENCE} RETURNING 1)
                   SELECT pg_notify($7, '')::text AS n FROM u`,
            values: [
              ...fenceValues(held),
              delayMs,
              errorJson === null ? 0 : 1,
              errorJson,
              ctx.channel,
            ],
          });
        });
      });
    },

    async finish(lease, outcome) {
      checkLease(lease, "finish()");
      let state: StoredRunState;
      let result: string | null = null;
      let error: string | null = null;
      let cancel: string | null = null;
      let event: string;
      if (
        outcome?.state === "done" &&
        typeof outcome.result === "object" &&
        outcome.result !== null
      ) {
        state = "done";
        result = JSON.stringify(outcome.result);
        const text = (outcome.result as { text?: unknown }).text;
        event = JSON.stringify({ text: typeof text === "string" ? text : "" });
      } else if (outcome?.state === "failed") {
        state = "failed";
        const info = errorInfo(outcome.error, "finish()");
        error = JSON.stringify(info);
        event = JSON.stringify({ code: info.code, message: info.message });
      } else if (outcome?.state === "cancelled") {
        state = "cancelled";
        const given = (outcome as { cancel?: Partial<CancelInfo> }).cancel ?? {};
        const by = checkActor(given.by, "finish(): cancel.by");
        const reason = checkCancelReason(given.reason, "finish(): cancel.reason");
        const at = typeof given.at === "string" ? given.at : new Date().toISOString();
        const info: CancelInfo = { at };
        if (by !== undefined) info.by = by;
        if (reason !== undefined) info.reason = reason;
        cancel = JSON.stringify(info);
        event = cancelEventData(info);
      } else {
        throw new TypeError(
          'finish(): outcome must be { state: "done", result }, { state: "failed", error } or { state: "cancelled", cancel }',
        );
      }
      const held = { ...lease };
      return db.retrying(async (uncertain) => {
        await ctx.ready();
        // Done keeps the result and drops the checkpoint; failed keeps the checkpoint (a claim by
        // id tries the run again) and records the error; cancelled keeps who and why. Open
        // requests become applied (cancelled for a cancelled run). The final event is written in
        // the same statement, after the run's last.
        const { rows } = await db.run<{ n: number }>({
          name: name("finish"),
          text: `WITH u AS (
                 UPDATE ${s}.runs SET state = $4, result_json = $5,
                   error_json = CASE WHEN $4 = 'failed' THEN $6 ELSE NULL END,
                   checkpoint_json = CASE WHEN $4 = 'done' THEN NULL ELSE checkpoint_json END,
                   failures = CASE WHEN $4 = 'done' THEN 0 ELSE failures END,
                   cancel_json = CASE WHEN $4 = 'cancelled' THEN $7 ELSE cancel_json END,
                   owner = NULL, lease_expires_ms = NULL, ready_ms = NULL, wake_ms = NULL,
                   finished_ms = ${NOW_MS}, updated_ms = ${NOW_MS}, events_last = events_last + 1
                 WHERE ${FENCE} RETURNING run_key, run_id, events_last),
               a AS (UPDATE ${s}.requests
                        SET state = CASE WHEN $4 = 'cancelled' AND state <> 'applied'
                                         THEN 'cancelled' ELSE 'applied' END
                      WHERE run_key IN (SELECT run_key FROM u) AND state IN ('waiting', 'answered')),
               j AS (DELETE FROM ${s}.journal WHERE run_key IN (SELECT run_key FROM u)),
               e AS (INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
                      SELECT run_key, events_last, run_id, ${NOW_MS}, $4, $8 FROM u)
               SELECT count(*)::int AS n,
                      max(pg_notify($9, encode(run_key, 'hex'))::text) AS notified FROM u`,
          values: [...fenceValues(held), state, result, error, cancel, event, ctx.eventsChannel],
        });
        if (rows[0]!.n > 0) return;
        if (uncertain) {
          // An earlier attempt's commit went unanswered: finished under this lease's token (a
          // later claim would have raised it) means that attempt went through.
          const { rows: landed } = await db.run({
            name: name("finish_landed"),
            text: `SELECT 1 FROM ${s}.runs
                  WHERE run_key = $1 AND token = $2 AND state = $3 AND owner IS NULL`,
            values: [key(held.runId), held.token, state],
          });
          if (landed.length > 0) return;
        }
        await lost(held);
      });
    },

    async prune({ olderThan }) {
      const valid =
        olderThan instanceof Date
          ? !Number.isNaN(olderThan.getTime())
          : typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0;
      if (!valid) {
        throw new TypeError(
          "prune(): olderThan must be a valid Date or an age of zero or more milliseconds",
        );
      }
      // An age is counted back from now on the database's clock; a Date is a point in time.
      const age = olderThan instanceof Date ? null : Math.floor(olderThan);
      const cutoff = olderThan instanceof Date ? Math.floor(olderThan.getTime()) : null;
      return db.retrying(async () => {
        await ctx.ready();
        // In batches, each its own short transaction; rows another transaction holds are left for
        // the next prune. Requests, journals and events go with their runs (ON DELETE CASCADE).
        let total = 0;
        for (;;) {
          const { rows } = await db.run<{ n: number }>({
            name: name("prune"),
            text: `WITH d AS (
                   DELETE FROM ${s}.runs WHERE run_key IN (
                     SELECT run_key FROM ${s}.runs
                      WHERE state IN ('done', 'failed', 'cancelled')
                        AND finished_ms <= coalesce($1::bigint, ${NOW_MS} - $2::bigint)
                      LIMIT 1000 FOR UPDATE SKIP LOCKED)
                   RETURNING 1)
                 SELECT count(*)::int AS n FROM d`,
            values: [cutoff, age],
          });
          total += rows[0]!.n;
          if (rows[0]!.n < 1000) return total;
        }
      });
    },
  };
}
