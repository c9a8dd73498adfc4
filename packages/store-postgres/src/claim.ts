import { type Answer, CheckpointError, type ClaimedRun, type ClaimOptions } from "@toolnexus/core";
import { cancelNow } from "./cancel.js";
import { key, type Run } from "./connection.js";
import type { Context } from "./context.js";
import { recordEvents } from "./events.js";
import {
  checkLeaseMs,
  checkOwner,
  type Int8,
  ms,
  NOW_MS,
  plain,
  type RunRow,
  readAnswer,
  readCheckpoint,
  readError,
  readJournalEntry,
  short,
} from "./rows.js";

type Reason = ClaimedRun["reason"];

/** A run row as `claim_lock` returns it: locked, with the clock, its journal and its answers. */
interface LockedRow extends RunRow {
  run_key: Buffer;
  now_ms: Int8;
  journal: string[] | null;
  answer_ids: string[] | null;
  answers: string[] | null;
}

/** Why `row` can be claimed by id right now, or undefined when it cannot. */
function reasonById(row: RunRow, now: number): Reason | undefined {
  switch (row.state) {
    // By id, a ready run is taken even before its retry time: the caller asked for it.
    case "ready":
      return "ready";
    case "waiting": {
      const wake = ms(row.wake_ms);
      return wake !== null && wake <= now ? "expired" : undefined;
    }
    case "running": {
      const expires = ms(row.lease_expires_ms);
      return expires !== null && expires <= now ? "takeover" : undefined;
    }
    case "failed":
      return "failed";
    default:
      return undefined;
  }
}

/** Why a run the generic claim picked was claimable. */
const REASONS: Partial<Record<RunRow["state"], Reason>> = {
  ready: "ready",
  waiting: "expired",
  running: "takeover",
};

/** Builds `claim` over the store's context. */
export function claimOp(ctx: Context): (options: ClaimOptions) => Promise<ClaimedRun | undefined> {
  const { db, s, name } = ctx;

  /**
   * Locks the run (by key, or the one claimable longest of `agent`'s, skipping rows others hold)
   * and reads it, the database's clock, its journal and its recorded answers after the lock, in
   * one round trip (schema.ts, claim_lock). Workers of one agent take only its runs (`agent`
   * given), or only runs without one (null).
   */
  const lock = async (
    run: Run,
    runKey: Buffer | null,
    agent: string | null | undefined,
  ): Promise<LockedRow | undefined> => {
    const mode = agent === undefined ? 0 : agent === null ? 1 : 2;
    const { rows } = await run<LockedRow>({
      name: name("claim_lock"),
      text: `SELECT * FROM ${s}.claim_lock($1, $2, $3)`,
      values: [runKey, mode, typeof agent === "string" ? plain(agent) : null],
    });
    const row = rows[0];
    return row === undefined || row.run_key === null ? undefined : row;
  };

  /** Reads (and validates) everything a worker needs, then takes the lease; the row is locked. */
  const take = async (
    run: Run,
    runKey: Buffer,
    row: LockedRow,
    reason: Reason,
    options: ClaimOptions,
  ): Promise<ClaimedRun> => {
    let runId = options.runId ?? row.run_id;
    // Everything is read and validated before anything is written: a corrupt row throws and the
    // transaction rolls back (or, for the generic claim, the run is set aside).
    if (row.checkpoint_json === null) {
      throw new CheckpointError(undefined, `the stored run "${short(runId)}" has no checkpoint`);
    }
    const checkpoint = readCheckpoint(row.checkpoint_json, runId);
    // The id exactly as written (the plain column cannot hold every character).
    if (options.runId === undefined && key(checkpoint.runId).equals(runKey)) {
      runId = checkpoint.runId;
    }
    // The journal in write order and the recorded answers, read after the lock (claim_lock).
    const journal = [];
    for (const json of row.journal ?? []) journal.push(readJournalEntry(json, runId));
    const recorded = new Map<string, Answer>();
    const answerIds = row.answer_ids ?? [];
    (row.answers ?? []).forEach((json, i) => {
      const answer = readAnswer(json, runId);
      recorded.set(typeof answer.id === "string" ? answer.id : answerIds[i]!, answer);
    });
    const answers: Answer[] = [];
    for (const call of checkpoint.pending) {
      const answer = recorded.get(call.request.id);
      if (answer !== undefined) answers.push(answer);
    }
    // The lease runs out by the database's clock, whatever the clock of this machine says. The
    // `continued` event goes in with the lease, in the same statement.
    const taken = await run<{ expires: Int8 }>({
      name: name("claim_take"),
      text: `WITH u AS (
               UPDATE ${s}.runs SET state = 'running', owner = $2, token = token + 1,
                 lease_expires_ms = ${NOW_MS} + $3, ready_ms = NULL, finished_ms = NULL,
                 updated_ms = ${NOW_MS}, events_last = events_last + 1
               WHERE run_key = $1 RETURNING run_key, run_id, lease_expires_ms, events_last),
             e AS (
               INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
               SELECT run_key, events_last, run_id, ${NOW_MS}, 'continued', $4 FROM u)
             SELECT lease_expires_ms AS expires,
                    pg_notify($5, encode(run_key, 'hex'))::text AS n FROM u`,
      values: [
        runKey,
        options.owner,
        Math.ceil(options.leaseMs),
        JSON.stringify({ owner: options.owner, reason }),
        ctx.eventsChannel,
      ],
    });
    const expiresAt = ms(taken.rows[0]!.expires)!;
    const claimed: ClaimedRun = {
      lease: { runId, owner: options.owner, token: row.token + 1, expiresAt },
      checkpoint,
      journal,
      answers,
      reason,
      failures: row.failures,
    };
    const lastError = readError(row.error_json);
    if (lastError !== undefined) claimed.lastError = lastError;
    return claimed;
  };

  const byId = (options: ClaimOptions & { runId: string }) =>
    db.tx(async (run) => {
      // Waits for a transaction holding the run (an answer being recorded, another claim), then
      // sees the run as that one left it.
      // Whether the lease ran out is asked of the database's clock, once the row is locked.
      const row = await lock(run, key(options.runId), null);
      if (row === undefined) return undefined;
      const reason = reasonById(row, ms(row.now_ms)!);
      if (reason === undefined) return undefined;
      if (row.cancel_json !== null) {
        // Asked to stop, and its worker is gone: it ends cancelled, never handed out again.
        await cancelNow(ctx, run, key(options.runId), row.cancel_json);
        return undefined;
      }
      return take(run, key(options.runId), row, reason, options);
    });

  const generic = (options: ClaimOptions) =>
    db.tx(async (run) => {
      const agent = options.agent;
      for (;;) {
        // The run claimable longest, skipping rows other workers hold: workers never wait on
        // each other, and each run goes to exactly one of them.
        // Claimable by the database's clock: a worker whose own clock runs ahead cannot take
        // over a lease that is still live.
        const row = await lock(run, null, agent);
        if (row === undefined) return undefined;
        const reason = REASONS[row.state];
        if (reason === undefined) return undefined;
        if (row.cancel_json !== null) {
          // A run asked to stop whose worker is gone ends cancelled; the next one is taken.
          await cancelNow(ctx, run, row.run_key, row.cancel_json);
          continue;
        }
        try {
          return await take(run, row.run_key, row, reason, options);
        } catch (thrown) {
          if (!(thrown instanceof CheckpointError)) throw thrown;
          // A run whose stored state cannot be read must not block every worker behind it: it
          // is set aside as `failed` (its rows kept for inspection) and the next one is taken.
          const error = {
            code: thrown.code,
            message: thrown.message,
            at: new Date().toISOString(),
          };
          await run({
            name: name("claim_set_aside"),
            text: `UPDATE ${s}.runs SET state = 'failed', error_json = $2, owner = NULL,
                     lease_expires_ms = NULL, ready_ms = NULL, wake_ms = NULL,
                     finished_ms = ${NOW_MS}, updated_ms = ${NOW_MS}
                   WHERE run_key = $1`,
            values: [row.run_key, JSON.stringify(error)],
          });
          await recordEvents(ctx, run, row.run_key, [
            { type: "failed", data: JSON.stringify({ code: error.code, message: error.message }) },
          ]);
        }
      }
    });

  return async (options) => {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("claim(): options must be { owner, leaseMs, runId? }");
    }
    checkOwner(options.owner, "claim()");
    checkLeaseMs(options.leaseMs, "claim()");
    if (options.runId !== undefined && typeof options.runId !== "string") {
      throw new TypeError("claim(): runId must be a string");
    }
    if (
      options.agent !== undefined &&
      options.agent !== null &&
      typeof options.agent !== "string"
    ) {
      throw new TypeError("claim(): agent must be a string, null or left out");
    }
    const copy = { owner: options.owner, leaseMs: options.leaseMs, agent: options.agent };
    const runId = options.runId;
    // A claim whose commit went unanswered left at most a lease nobody holds, which runs out:
    // trying again is safe.
    return db.retrying(async () => {
      await ctx.ready();
      return runId === undefined ? generic(copy) : byId({ ...copy, runId });
    });
  };
}
