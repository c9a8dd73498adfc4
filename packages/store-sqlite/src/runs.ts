import {
  assertCheckpoint,
  assertJournalEntry,
  type CancelInfo,
  type Checkpoint,
  CheckpointError,
  checkActor,
  checkCancelReason,
  checkLoopEventTexts,
  encodeCheckpoint,
  type HaltReceipt,
  type JournalEntry,
  type Lease,
  LeaseLostError,
  type LoopEventText,
  type PruneOptions,
  pruneCutoff,
  type RunErrorInfo,
  type RunEventInit,
  type RunOutcome,
  ToolnexusError,
} from "@toolnexus/core";
import type { CancelOps } from "./cancel.js";
import type { Db } from "./driver.js";
import type { DueOps } from "./due.js";
import type { EventOps } from "./events.js";
import {
  checkLease,
  checkLeaseMs,
  checkOwner,
  errorInfo,
  readCancel,
  type StoredRunState,
  short,
  toMs,
} from "./rows.js";

/** The writes of a run's life: the ones a worker makes under its lease, and pruning. */
export interface RunOps {
  halt(checkpoint: Checkpoint, lease?: Lease): HaltReceipt;
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Lease;
  step(lease: Lease, checkpoint: Checkpoint): void;
  journal(lease: Lease, entry: JournalEntry): void;
  renew(lease: Lease, leaseMs: number): Lease;
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): void;
  finish(lease: Lease, outcome: RunOutcome): void;
  prune(options: PruneOptions): number;
  appendEvents(lease: Lease, events: readonly RunEventInit[]): number;
}

interface HolderRow {
  state: StoredRunState;
  owner: string | null;
  token: number;
  cancel_by: string | null;
  cancel_reason: string | null;
  cancel_at: string | null;
}

/** The data of a `started` event. */
function startedData(checkpoint: Checkpoint): { sessionId?: string; agent?: string } {
  const data: { sessionId?: string; agent?: string } = {};
  if (checkpoint.sessionId !== undefined) data.sessionId = checkpoint.sessionId;
  if (checkpoint.agent !== undefined) data.agent = checkpoint.agent;
  return data;
}

function runExists(runId: string): ToolnexusError {
  return new ToolnexusError(
    "run_exists",
    `a durable run with id "${short(runId)}" is already in the store; a new run needs a new id`,
  );
}

/** The cancel a worker passes to `finish`, checked like one asked through `cancel`. */
function cancelGiven(cancel: unknown): CancelInfo {
  const given = (
    typeof cancel === "object" && cancel !== null ? cancel : {}
  ) as Partial<CancelInfo>;
  const info: CancelInfo = {
    at: typeof given.at === "string" ? given.at : new Date().toISOString(),
  };
  const by = checkActor(given.by, "cancel.by");
  const reason = checkCancelReason(given.reason, "cancel.reason");
  if (by !== undefined) info.by = by;
  if (reason !== undefined) info.reason = reason;
  return info;
}

/** A checkpoint written under a lease must be of the leased run. */
function checkSameRun(checkpoint: Checkpoint, lease: Lease): void {
  if (checkpoint.runId !== lease.runId) {
    throw new CheckpointError(
      undefined,
      `it belongs to run "${short(checkpoint.runId)}", but the lease is on run "${short(lease.runId)}"`,
    );
  }
}

/** Prepares the statements once and returns the run writes. */
export function runOps(db: Db, events: EventOps, cancels: CancelOps, due: DueOps): RunOps {
  const holder = db.prepare<[string], HolderRow>(
    "SELECT state, owner, token, cancel_by, cancel_reason, cancel_at FROM runs WHERE run_id = ?",
  );
  const exists = db.prepare<[string], number>("SELECT 1 FROM runs WHERE run_id = ?").pluck();
  const insertRun = db.prepare<
    [
      {
        runId: string;
        sessionId: string | null;
        agent: string | null;
        state: StoredRunState;
        createdAt: string;
        now: number;
        owner: string | null;
        token: number;
        leaseExpiresMs: number | null;
        json: string;
      },
    ]
  >(
    `INSERT INTO runs (run_id, session_id, agent, state, created_at, updated_ms, owner, token,
       lease_expires_ms, checkpoint_json)
     VALUES (@runId, @sessionId, @agent, @state, @createdAt, @now, @owner, @token,
       @leaseExpiresMs, @json)`,
  );
  // One number per halt orders requests newest first independently of the clocks of the
  // processes sharing the file; MAX over an indexed column is a single index lookup.
  const nextHalt = db
    .prepare<[], number>("SELECT IFNULL(MAX(halt_no), 0) + 1 FROM requests")
    .pluck();
  const unposition = db.prepare<[string]>("UPDATE requests SET position = NULL WHERE run_id = ?");
  // A request already known to this run keeps its state (an answer may have arrived while the
  // run was running); only what describes it is refreshed.
  const upsertRequest = db.prepare<
    [
      string,
      string,
      number,
      number,
      string | null,
      string | null,
      string,
      string,
      string,
      string,
      string | null,
      number | null,
    ]
  >(
    `INSERT INTO requests (request_id, run_id, halt_no, position, state, session_id, agent, kind,
       prompt, request_json, created_at, expires_at, expires_ms)
     VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (request_id, run_id) DO UPDATE SET
       position = excluded.position, kind = excluded.kind, prompt = excluded.prompt,
       request_json = excluded.request_json, expires_at = excluded.expires_at,
       expires_ms = excluded.expires_ms`,
  );
  const applyUnlisted = db.prepare<[string]>(
    `UPDATE requests SET state = 'applied'
      WHERE run_id = ? AND position IS NULL AND state <> 'applied'`,
  );
  const hasAnswered = db
    .prepare<[string], number>(
      `SELECT EXISTS (SELECT 1 FROM requests
                       WHERE run_id = ? AND position IS NOT NULL AND state = 'answered')`,
    )
    .pluck();
  const halted = db.prepare<
    [
      {
        runId: string;
        state: StoredRunState;
        json: string;
        readyMs: number | null;
        now: number;
        sessionId: string | null;
        agent: string | null;
      },
    ]
  >(
    `UPDATE runs SET state = @state, checkpoint_json = @json, ready_ms = @readyMs,
       updated_ms = @now, session_id = @sessionId, agent = @agent, owner = NULL,
       lease_expires_ms = NULL, failures = 0, error_json = NULL,
       wake_ms = (SELECT MIN(expires_ms) FROM requests WHERE run_id = @runId AND state = 'waiting')
     WHERE run_id = @runId`,
  );
  const clearJournal = db.prepare<[string]>("DELETE FROM journal WHERE run_id = ?");
  const stepped = db.prepare<[string, number, string]>(
    `UPDATE runs SET checkpoint_json = ?, updated_ms = ?, failures = 0, error_json = NULL
      WHERE run_id = ?`,
  );
  const appendJournal = db.prepare<[string, string]>(
    "INSERT INTO journal (run_id, json) VALUES (?, ?)",
  );
  const applyRequest = db.prepare<[string, string]>(
    "UPDATE requests SET state = 'applied' WHERE run_id = ? AND request_id = ?",
  );
  const refreshWake = db.prepare<[{ runId: string }]>(
    `UPDATE runs SET wake_ms = (SELECT MIN(expires_ms) FROM requests
                                 WHERE run_id = @runId AND state = 'waiting')
      WHERE run_id = @runId`,
  );
  const renewed = db.prepare<[number, number, string]>(
    "UPDATE runs SET lease_expires_ms = ?, updated_ms = ? WHERE run_id = ?",
  );
  const released = db.prepare<[number, number, number, string | null, string]>(
    `UPDATE runs SET state = 'ready', owner = NULL, lease_expires_ms = NULL, ready_ms = ?,
       updated_ms = ?, failures = failures + ?, error_json = IFNULL(?, error_json)
     WHERE run_id = ?`,
  );
  // Done keeps the result and drops the checkpoint; failed keeps the checkpoint (a claim by id
  // tries the run again) and records the error.
  const finished = db.prepare<
    [
      {
        runId: string;
        state: StoredRunState;
        result: string | null;
        error: string | null;
        now: number;
      },
    ]
  >(
    `UPDATE runs SET state = @state, result_json = @result,
       error_json = CASE WHEN @state = 'done' THEN NULL ELSE @error END,
       checkpoint_json = CASE WHEN @state = 'done' THEN NULL ELSE checkpoint_json END,
       failures = CASE WHEN @state = 'done' THEN 0 ELSE failures END,
       owner = NULL, lease_expires_ms = NULL, ready_ms = NULL, wake_ms = NULL,
       finished_ms = @now, updated_ms = @now
     WHERE run_id = @runId`,
  );
  const applyOpen = db.prepare<[string]>(
    "UPDATE requests SET state = 'applied' WHERE run_id = ? AND state <> 'applied'",
  );
  const finishedRuns = `SELECT run_id FROM runs
      WHERE finished_ms <= ? AND state IN ('done', 'failed', 'cancelled')`;
  const pruneRequests = db.prepare<[number]>(
    `DELETE FROM requests WHERE run_id IN (${finishedRuns})`,
  );
  const pruneJournal = db.prepare<[number]>(
    `DELETE FROM journal WHERE run_id IN (${finishedRuns})`,
  );
  const pruneEvents = db.prepare<[number]>(`DELETE FROM events WHERE run_id IN (${finishedRuns})`);
  const pruneRuns = db.prepare<[number]>(
    "DELETE FROM runs WHERE finished_ms <= ? AND state IN ('done', 'failed', 'cancelled')",
  );

  /** Why a lease no longer holds, or undefined while it does. */
  const lost = (lease: Lease): string | undefined => {
    const row = holder.get(lease.runId);
    if (row === undefined) return "the run is no longer in the store";
    if (row.state !== "running") return `the run is ${row.state}`;
    if (row.token !== lease.token || row.owner !== lease.owner) {
      return `the run was claimed again (lease ${row.token}, held by "${short(row.owner ?? "")}")`;
    }
    return undefined;
  };
  // Fencing: a write succeeds only while the lease is the run's current one. Expiry alone does
  // not fail it: only another claim (which bumps the token) takes the run away.
  const fence = (lease: Lease): void => {
    const why = lost(lease);
    if (why !== undefined) throw new LeaseLostError(lease.runId, why);
  };
  /** The cancel asked of the run a live lease holds, if any. */
  const cancelAsked = (lease: Lease) => {
    const row = holder.get(lease.runId);
    return row === undefined ? undefined : readCancel(row);
  };

  const haltTx = db.transaction(
    (checkpoint: Checkpoint, json: string, lease: Lease | undefined): HaltReceipt => {
      const now = Date.now();
      const { runId } = checkpoint;
      const sessionId = checkpoint.sessionId ?? null;
      const agent = checkpoint.agent ?? null;
      if (lease === undefined) {
        if (exists.get(runId) !== undefined) throw runExists(runId);
        insertRun.run({
          runId,
          sessionId,
          agent,
          state: "waiting",
          createdAt: checkpoint.createdAt,
          now,
          owner: null,
          token: 0,
          leaseExpiresMs: null,
          json,
        });
      } else {
        // Fenced first: a lease that lost the run is LeaseLostError whatever it writes.
        fence(lease);
        checkSameRun(checkpoint, lease);
      }
      const asked = lease === undefined ? undefined : cancelAsked(lease);
      const haltNo = nextHalt.get()!;
      const createdAt = new Date(now).toISOString();
      unposition.run(runId);
      checkpoint.pending.forEach((call, position) => {
        const expiresAt = call.deadline ?? call.request.expiresAt ?? null;
        // Its reminders stored once; an escalation that fired keeps it re-addressed.
        const request = due.keep(runId, call);
        upsertRequest.run(
          call.request.id,
          runId,
          haltNo,
          position,
          sessionId,
          agent,
          String(call.request.kind),
          String(call.request.prompt),
          JSON.stringify(request),
          createdAt,
          expiresAt,
          toMs(expiresAt),
        );
      });
      // Requests this halt no longer waits for were answered by the steps since the last one.
      applyUnlisted.run(runId);
      const state = hasAnswered.get(runId) === 1 ? "ready" : "waiting";
      const readyMs = state === "ready" ? now : null;
      halted.run({ runId, state, json, readyMs, now, sessionId, agent });
      clearJournal.run(runId);
      const recorded: { type: "started" | "suspended"; data: object }[] = [];
      if (lease === undefined) recorded.push({ type: "started", data: startedData(checkpoint) });
      recorded.push({
        type: "suspended",
        data: { requests: checkpoint.pending.map((call) => call.request) },
      });
      events.record(runId, recorded);
      // Asked to stop while it ran: it stops here, its requests never to be answered.
      if (asked !== undefined) {
        cancels.endCancelled(runId, asked);
        return { state: "cancelled", cancel: asked };
      }
      return { state };
    },
  );

  const startTx = db.transaction(
    (checkpoint: Checkpoint, json: string, owner: string, leaseMs: number) => {
      const now = Date.now();
      if (exists.get(checkpoint.runId) !== undefined) throw runExists(checkpoint.runId);
      const expiresAt = now + leaseMs;
      insertRun.run({
        runId: checkpoint.runId,
        sessionId: checkpoint.sessionId ?? null,
        agent: checkpoint.agent ?? null,
        state: "running",
        createdAt: checkpoint.createdAt,
        now,
        owner,
        token: 1,
        leaseExpiresMs: expiresAt,
        json,
      });
      events.record(checkpoint.runId, [{ type: "started", data: startedData(checkpoint) }]);
      return { runId: checkpoint.runId, owner, token: 1, expiresAt };
    },
  );

  const stepTx = db.transaction((lease: Lease, checkpoint: Checkpoint, json: string) => {
    fence(lease);
    checkSameRun(checkpoint, lease);
    stepped.run(json, Date.now(), lease.runId);
    clearJournal.run(lease.runId);
  });

  const journalTx = db.transaction((lease: Lease, json: string, answered: string | undefined) => {
    fence(lease);
    appendJournal.run(lease.runId, json);
    if (answered !== undefined) {
      applyRequest.run(lease.runId, answered);
      refreshWake.run({ runId: lease.runId });
    }
  });

  const renewTx = db.transaction((lease: Lease, leaseMs: number): Lease => {
    fence(lease);
    const now = Date.now();
    const expiresAt = now + leaseMs;
    renewed.run(expiresAt, now, lease.runId);
    const renewedLease: Lease = {
      runId: lease.runId,
      owner: lease.owner,
      token: lease.token,
      expiresAt,
    };
    // Someone asked to cancel: the worker stops the run and ends it cancelled.
    const cancel = cancelAsked(lease);
    if (cancel !== undefined) renewedLease.cancel = cancel;
    return renewedLease;
  });

  const releaseTx = db.transaction(
    (lease: Lease, errorJson: string | null, retryAt: number | undefined) => {
      // A lost lease is not an error here: the worker is giving the run up anyway.
      if (lost(lease) !== undefined) return;
      // A run asked to stop is not given back to be taken again: it ends here.
      const asked = cancelAsked(lease);
      if (asked !== undefined) {
        cancels.endCancelled(lease.runId, asked);
        return;
      }
      const now = Date.now();
      released.run(retryAt ?? now, now, errorJson === null ? 0 : 1, errorJson, lease.runId);
    },
  );

  const finishTx = db.transaction(
    (
      lease: Lease,
      state: StoredRunState,
      result: string | null,
      error: string | null,
      event: object,
    ) => {
      fence(lease);
      finished.run({ runId: lease.runId, state, result, error, now: Date.now() });
      applyOpen.run(lease.runId);
      clearJournal.run(lease.runId);
      events.record(lease.runId, [{ type: state === "done" ? "done" : "failed", data: event }]);
    },
  );

  const finishCancelledTx = db.transaction((lease: Lease, given: CancelInfo) => {
    fence(lease);
    // Who asked first is kept: the stored cancel, else the one the worker passes.
    cancels.endCancelled(lease.runId, cancelAsked(lease) ?? given);
  });

  const appendTx = db.transaction((lease: Lease, recorded: LoopEventText[]): number => {
    fence(lease);
    return events.record(lease.runId, recorded);
  });

  const pruneTx = db.transaction((cutoff: number): number => {
    pruneRequests.run(cutoff);
    pruneJournal.run(cutoff);
    pruneEvents.run(cutoff);
    return pruneRuns.run(cutoff).changes;
  });

  return {
    halt(checkpoint, lease) {
      if (lease !== undefined) checkLease(lease, "halt()");
      assertCheckpoint(checkpoint);
      // A halt with nothing to wait for could never become claimable again.
      if (checkpoint.pending.length === 0) {
        throw new CheckpointError(undefined, "a halted run needs at least one pending call");
      }
      return haltTx.immediate(checkpoint, encodeCheckpoint(checkpoint), lease);
    },

    start(checkpoint, owner, leaseMs) {
      assertCheckpoint(checkpoint);
      checkOwner(owner, "start()");
      checkLeaseMs(leaseMs, "start()");
      return startTx.immediate(checkpoint, encodeCheckpoint(checkpoint), owner, leaseMs);
    },

    step(lease, checkpoint) {
      checkLease(lease, "step()");
      assertCheckpoint(checkpoint);
      stepTx.immediate(lease, checkpoint, encodeCheckpoint(checkpoint));
    },

    journal(lease, entry) {
      checkLease(lease, "journal()");
      assertJournalEntry(entry, lease.runId);
      const answered = typeof entry.answered === "string" ? entry.answered : undefined;
      journalTx.immediate(lease, JSON.stringify(entry), answered);
    },

    renew(lease, leaseMs) {
      checkLease(lease, "renew()");
      checkLeaseMs(leaseMs, "renew()");
      return renewTx.immediate(lease, leaseMs);
    },

    release(lease, error, retryAt) {
      checkLease(lease, "release()");
      if (retryAt !== undefined && (typeof retryAt !== "number" || !Number.isFinite(retryAt))) {
        throw new TypeError("release(): retryAt must be an epoch time in milliseconds");
      }
      const errorJson = error === undefined ? null : JSON.stringify(errorInfo(error, "release()"));
      releaseTx.immediate(lease, errorJson, retryAt);
    },

    finish(lease, outcome) {
      checkLease(lease, "finish()");
      if (
        outcome?.state === "done" &&
        typeof outcome.result === "object" &&
        outcome.result !== null
      ) {
        const text = (outcome.result as { text?: unknown }).text;
        finishTx.immediate(lease, "done", JSON.stringify(outcome.result), null, {
          text: typeof text === "string" ? text : "",
        });
      } else if (outcome?.state === "failed") {
        const info = errorInfo(outcome.error, "finish()");
        finishTx.immediate(lease, "failed", null, JSON.stringify(info), {
          code: info.code,
          message: info.message,
        });
      } else if (outcome?.state === "cancelled") {
        finishCancelledTx.immediate(lease, cancelGiven(outcome.cancel));
      } else {
        throw new TypeError(
          'finish(): outcome must be { state: "done", result }, { state: "failed", error } or { state: "cancelled", cancel }',
        );
      }
    },

    appendEvents(lease, recorded) {
      checkLease(lease, "appendEvents()");
      const checked = checkLoopEventTexts(recorded, "appendEvents()");
      return appendTx.immediate(lease, checked);
    },

    prune(options) {
      return pruneTx.immediate(pruneCutoff(options, "prune()"));
    },
  };
}
