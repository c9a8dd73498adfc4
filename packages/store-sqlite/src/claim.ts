import { type Answer, CheckpointError, type ClaimedRun, type ClaimOptions } from "@toolnexus/core";
import type { CancelOps } from "./cancel.js";
import type { Db, Statement } from "./driver.js";
import type { EventOps } from "./events.js";
import {
  checkLeaseMs,
  checkOwner,
  type RunRow,
  readAnswer,
  readCancel,
  readCheckpoint,
  readError,
  readJournalEntry,
  short,
} from "./rows.js";

type Reason = ClaimedRun["reason"];

/** What claiming a run gives when the run was ended cancelled instead of handed out. */
const STOPPED = Symbol("stopped");

interface Candidate {
  run_id: string;
  since: number;
}

/** Why `row` can be claimed by id right now, or undefined when it cannot. */
function reasonById(row: RunRow, now: number): Reason | undefined {
  switch (row.state) {
    // By id, a ready run is taken even before its retry time: the caller asked for it.
    case "ready":
      return "ready";
    case "waiting":
      return row.wake_ms !== null && row.wake_ms <= now ? "expired" : undefined;
    case "running":
      return row.lease_expires_ms !== null && row.lease_expires_ms <= now ? "takeover" : undefined;
    case "failed":
      return "failed";
    default:
      return undefined;
  }
}

/** Prepares the statements once and returns `claim`. */
export function claimOp(
  db: Db,
  events: EventOps,
  cancels: CancelOps,
): (options: ClaimOptions) => ClaimedRun | undefined {
  // One index range scan each ((state, ready_ms), (state, wake_ms), (state, lease_expires_ms)):
  // the earliest claimable run of each kind, however many runs the file holds.
  // `agent IS @agent` matches NULL to NULL: a worker without an agent takes runs without one.
  type Pick = { now: number; any: number; agent: string | null };
  const mine = "(@any = 1 OR agent IS @agent)";
  const candidates: [Reason, Statement<[Pick], Candidate>][] = [
    [
      "ready",
      db.prepare(
        `SELECT run_id, ready_ms AS since FROM runs
          WHERE state = 'ready' AND ready_ms <= @now AND ${mine} ORDER BY ready_ms LIMIT 1`,
      ),
    ],
    [
      "expired",
      db.prepare(
        `SELECT run_id, wake_ms AS since FROM runs
          WHERE state = 'waiting' AND wake_ms <= @now AND ${mine} ORDER BY wake_ms LIMIT 1`,
      ),
    ],
    [
      "takeover",
      db.prepare(
        `SELECT run_id, lease_expires_ms AS since FROM runs
          WHERE state = 'running' AND lease_expires_ms <= @now AND ${mine}
          ORDER BY lease_expires_ms LIMIT 1`,
      ),
    ],
  ];
  const runById = db.prepare<[string], RunRow>("SELECT * FROM runs WHERE run_id = ?");
  const journalOf = db
    .prepare<[string], string>("SELECT json FROM journal WHERE run_id = ? ORDER BY seq")
    .pluck();
  const answersOf = db.prepare<[string], { request_id: string; answer_json: string }>(
    `SELECT request_id, answer_json FROM requests
      WHERE run_id = ? AND state = 'answered' AND answer_json IS NOT NULL`,
  );
  const take = db.prepare<
    [{ runId: string; owner: string; token: number; expiresAt: number; now: number }]
  >(
    `UPDATE runs SET state = 'running', owner = @owner, token = @token + 1,
       lease_expires_ms = @expiresAt, ready_ms = NULL, finished_ms = NULL, updated_ms = @now
     WHERE run_id = @runId AND token = @token`,
  );

  /** The run claimable longest, by what made it claimable and since when. */
  const pick = (
    now: number,
    agent: string | null | undefined,
  ): { runId: string; reason: Reason } | undefined => {
    let best: { runId: string; reason: Reason; since: number } | undefined;
    const params = { now, any: agent === undefined ? 1 : 0, agent: agent ?? null };
    for (const [reason, statement] of candidates) {
      const found = statement.get(params);
      if (found !== undefined && (best === undefined || found.since < best.since)) {
        best = { runId: found.run_id, reason, since: found.since };
      }
    }
    return best;
  };

  // A run whose stored state cannot be read must not block every worker behind it: the generic
  // claim sets it aside as `failed` (its rows kept for inspection) and takes the next one.
  const setAside = db.prepare<[string, number, number, string]>(
    `UPDATE runs SET state = 'failed', error_json = ?, owner = NULL, lease_expires_ms = NULL,
       ready_ms = NULL, wake_ms = NULL, finished_ms = ?, updated_ms = ?
     WHERE run_id = ?`,
  );

  const claimTx = db.transaction((options: ClaimOptions): ClaimedRun | undefined => {
    // The time is read inside the transaction, after the write lock was granted.
    const now = Date.now();
    if (options.runId !== undefined) {
      const got = claimRun(options, options.runId, undefined, now);
      return got === STOPPED ? undefined : got;
    }
    for (;;) {
      const picked = pick(now, options.agent);
      if (picked === undefined) return undefined;
      try {
        const got = claimRun(options, picked.runId, picked.reason, now);
        if (got === STOPPED) continue;
        return got;
      } catch (thrown) {
        if (!(thrown instanceof CheckpointError)) throw thrown;
        const error = {
          code: thrown.code,
          message: thrown.message,
          at: new Date(now).toISOString(),
        };
        setAside.run(JSON.stringify(error), now, now, picked.runId);
        events.record(picked.runId, [
          { type: "failed", data: { code: error.code, message: error.message } },
        ]);
      }
    }
  });

  const claimRun = (
    options: ClaimOptions,
    runId: string,
    picked: Reason | undefined,
    now: number,
  ): ClaimedRun | typeof STOPPED | undefined => {
    let reason = picked;
    const row = runById.get(runId);
    if (row === undefined) return undefined;
    reason ??= reasonById(row, now);
    if (reason === undefined) return undefined;
    // A run asked to stop whose worker is gone is never handed out again: it ends cancelled.
    const cancel = readCancel(row);
    if (cancel !== undefined) {
      cancels.endCancelled(runId, cancel);
      return STOPPED;
    }

    // Everything is read (and validated) before anything is written: a corrupt row throws and
    // the transaction rolls back, leaving the run exactly as it was.
    if (row.checkpoint_json === null) {
      throw new CheckpointError(undefined, `the stored run "${short(runId)}" has no checkpoint`);
    }
    const checkpoint = readCheckpoint(row.checkpoint_json, runId);
    const journal = journalOf.all(runId).map((json) => readJournalEntry(json, runId));
    const recorded = new Map(
      answersOf.all(runId).map((r) => [r.request_id, readAnswer(r.answer_json, runId)]),
    );
    const answers: Answer[] = [];
    for (const call of checkpoint.pending) {
      const answer = recorded.get(call.request.id);
      if (answer !== undefined) answers.push(answer);
    }

    const expiresAt = now + options.leaseMs;
    const params = { runId, owner: options.owner, token: row.token, expiresAt, now };
    // Under BEGIN IMMEDIATE no other writer can interleave, so this always changes one row; the
    // token guard keeps the claim exclusive even if the transaction mode ever changes.
    if (take.run(params).changes !== 1) return undefined;

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
    events.record(runId, [{ type: "continued", data: { owner: options.owner, reason } }]);
    return claimed;
  };

  return (options) => {
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
    return claimTx.immediate({
      owner: options.owner,
      leaseMs: options.leaseMs,
      runId: options.runId,
      agent: options.agent,
    });
  };
}
