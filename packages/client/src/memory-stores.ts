import {
  type Answer,
  AnswerConflictError,
  type AnswerReceipt,
  assertCheckpoint,
  assertJournalEntry,
  type Checkpoint,
  CheckpointError,
  type ClaimedRun,
  type ClaimOptions,
  type ConversationStore,
  type FinishedResult,
  type JournalEntry,
  type Lease,
  LeaseLostError,
  type Message,
  type PruneOptions,
  parseAnswer,
  type Request,
  type RequestInfo,
  type RunErrorInfo,
  type RunInfo,
  type RunOutcome,
  type RunState,
  type RunStore,
  type SuspensionFilter,
  SuspensionNotFoundError,
  type SuspensionSummary,
  ToolnexusError,
} from "@toolnexus/core";

// Everything is kept as JSON text, parsed on the way out: like a database, the store shares no
// object with the run that wrote it or with whoever reads it.

interface RequestRow {
  id: string;
  runId: string;
  requestJson: string;
  kind: string;
  state: "waiting" | "answered" | "applied";
  answerJson?: string;
  /** The effective deadline, as given, and in epoch ms. */
  expiresAt?: string;
  expiresMs?: number;
  /** Which halt first raised it (newest first in listings), and its place among all requests. */
  haltNo: number;
  seq: number;
  /** ISO time of that halt. */
  createdAt: string;
}

interface RunRow {
  runId: string;
  sessionId?: string;
  agent?: string;
  createdAt: string;
  state: "waiting" | "ready" | "running" | "done" | "failed";
  updatedMs: number;
  owner?: string;
  token: number;
  leaseExpiresMs?: number;
  /** While `ready`: since when a worker may take it (its retry time after an error). */
  readyMs?: number;
  finishedMs?: number;
  failures: number;
  errorJson?: string;
  checkpointJson?: string;
  resultJson?: string;
  journal: string[];
  requests: Map<string, RequestRow>;
  /** The request ids of the current (or last) halt, in pending order. */
  halted: string[];
}

/** The in-memory {@link RunStore}: every method is synchronous. */
export interface MemoryRunStore extends RunStore {
  halt(checkpoint: Checkpoint, lease?: Lease): "waiting" | "ready";
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Lease;
  step(lease: Lease, checkpoint: Checkpoint): void;
  journal(lease: Lease, entry: JournalEntry): void;
  renew(lease: Lease, leaseMs: number): Lease;
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): void;
  finish(lease: Lease, outcome: RunOutcome): void;
  claim(options: ClaimOptions): ClaimedRun | undefined;
  answer(answer: Answer): AnswerReceipt;
  getRun(runId: string): RunInfo | undefined;
  getRequest(requestId: string): RequestInfo | undefined;
  list(filter?: SuspensionFilter): SuspensionSummary[];
  prune(options: PruneOptions): number;
  subscribe(onReady: () => void): () => void;
}

/** Options of {@link memoryRunStore}. */
export interface MemoryRunStoreOptions {
  /**
   * At most this many `done` and `failed` runs are kept; beyond it the one that finished first
   * is dropped. Default 1000, so a long-lived process does not grow without bound.
   */
  keepFinished?: number;
}

function cut(id: string): string {
  return id.length <= 80 ? id : `${id.slice(0, 60)}…(${id.length} chars)`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** Two answers are the same when their JSON is, whatever the order of their keys. */
const canonical = (value: unknown): string => JSON.stringify(sortKeys(value));

const toIso = (ms: number): string => new Date(ms).toISOString();

function checkLease(lease: Lease, method: string): void {
  if (
    typeof lease !== "object" ||
    lease === null ||
    typeof lease.runId !== "string" ||
    typeof lease.owner !== "string" ||
    !Number.isInteger(lease.token)
  ) {
    throw new TypeError(
      `memoryRunStore.${method}(): lease must be { runId, owner, token, expiresAt }`,
    );
  }
}

function checkLeaseMs(leaseMs: number, method: string): void {
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 0) {
    throw new TypeError(`memoryRunStore.${method}(): leaseMs must be zero or more milliseconds`);
  }
}

function checkOwner(owner: string, method: string): void {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`memoryRunStore.${method}(): owner must be a non-empty string`);
  }
}

/** Only what a store records of an error: no stack, nothing else that could hold secrets. */
function errorJson(error: RunErrorInfo, method: string): string {
  if (
    typeof error !== "object" ||
    error === null ||
    typeof error.code !== "string" ||
    typeof error.message !== "string"
  ) {
    throw new TypeError(`memoryRunStore.${method}(): the error must be { code, message, at }`);
  }
  const at = typeof error.at === "string" ? error.at : toIso(Date.now());
  return JSON.stringify({ code: error.code, message: error.message, at });
}

/** Validates a checkpoint a worker writes, and that it belongs to the leased run. */
function checkCheckpoint(checkpoint: Checkpoint, lease?: Lease): void {
  assertCheckpoint(checkpoint);
  if (lease !== undefined && checkpoint.runId !== lease.runId) {
    throw new CheckpointError(
      undefined,
      `it belongs to run "${cut(checkpoint.runId)}", but the lease is on run "${cut(lease.runId)}"`,
    );
  }
}

function runExists(runId: string): ToolnexusError {
  return new ToolnexusError(
    "run_exists",
    `a durable run with id "${cut(runId)}" is already in the store; a new run needs a new id`,
  );
}

function requestState(row: RequestRow, now: number): RequestInfo["state"] {
  return row.state === "waiting" && row.expiresMs !== undefined && row.expiresMs <= now
    ? "expired"
    : row.state;
}

/** The earliest deadline of the run's waiting requests, if any. */
function wakeMs(run: RunRow): number | undefined {
  let wake: number | undefined;
  for (const row of run.requests.values()) {
    if (row.state === "waiting" && row.expiresMs !== undefined) {
      wake = wake === undefined ? row.expiresMs : Math.min(wake, row.expiresMs);
    }
  }
  return wake;
}

function runState(run: RunRow, now: number): RunState {
  if (run.state !== "waiting") return run.state;
  const wake = wakeMs(run);
  return wake !== undefined && wake <= now ? "expired" : "waiting";
}

function requestInfo(row: RequestRow, now: number): RequestInfo {
  const info: RequestInfo = {
    request: JSON.parse(row.requestJson) as Request,
    runId: row.runId,
    state: requestState(row, now),
  };
  if (row.answerJson !== undefined) info.answer = JSON.parse(row.answerJson) as Answer;
  if (row.expiresAt !== undefined) info.expiresAt = row.expiresAt;
  return info;
}

/**
 * Keeps durable runs in this process's memory: the client's default, with the same semantics
 * as a durable store (answers, leases, journal), for tests and single-process apps. Use
 * `@toolnexus/store-sqlite` when a run must survive a restart or continue in another process.
 */
export function memoryRunStore(options: MemoryRunStoreOptions = {}): MemoryRunStore {
  const keepFinished = options.keepFinished ?? 1000;
  if (
    !(Number.isInteger(keepFinished) && keepFinished >= 0) &&
    keepFinished !== Number.POSITIVE_INFINITY
  ) {
    throw new TypeError("memoryRunStore(): keepFinished must be a whole number of runs, 0 or more");
  }

  const runs = new Map<string, RunRow>();
  // request id -> the rows of every run that raised it (the newest has the highest haltNo)
  const byRequest = new Map<string, RequestRow[]>();
  // done and failed run ids, the first finished first: the retention order
  const finished = new Set<string>();
  const listeners = new Set<() => void>();
  let halts = 0;
  let seq = 0;

  const notify = () => {
    if (listeners.size === 0) return;
    // Later, never inside the store call: a listener typically calls claim() right away.
    queueMicrotask(() => {
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch {
          // A failing listener must not break the store nor crash the process from a microtask.
        }
      }
    });
  };

  const newest = (requestId: string): RequestRow | undefined => {
    let found: RequestRow | undefined;
    for (const row of byRequest.get(requestId) ?? []) {
      if (found === undefined || row.haltNo > found.haltNo) found = row;
    }
    return found;
  };

  const drop = (run: RunRow) => {
    runs.delete(run.runId);
    finished.delete(run.runId);
    for (const id of run.requests.keys()) {
      const rows = byRequest.get(id)?.filter((row) => row.runId !== run.runId) ?? [];
      if (rows.length === 0) byRequest.delete(id);
      else byRequest.set(id, rows);
    }
  };

  /** Why a lease no longer holds, or undefined while it does. */
  const lost = (lease: Lease): string | undefined => {
    const run = runs.get(lease.runId);
    if (run === undefined) return "the run is no longer in the store";
    if (run.state !== "running") return `the run is ${run.state}`;
    if (run.token !== lease.token || run.owner !== lease.owner) {
      return `the run was claimed again (lease ${run.token})`;
    }
    return undefined;
  };
  // Fencing: only the current lease writes. Expiry alone does not fail a write; only another
  // claim (which bumps the token) takes the run away.
  const fence = (lease: Lease): RunRow => {
    const why = lost(lease);
    if (why !== undefined) throw new LeaseLostError(lease.runId, why);
    return runs.get(lease.runId)!;
  };

  const newRun = (checkpoint: Checkpoint, json: string, now: number): RunRow => {
    const run: RunRow = {
      runId: checkpoint.runId,
      createdAt: checkpoint.createdAt,
      state: "waiting",
      updatedMs: now,
      token: 0,
      failures: 0,
      checkpointJson: json,
      journal: [],
      requests: new Map(),
      halted: [],
    };
    if (checkpoint.sessionId !== undefined) run.sessionId = checkpoint.sessionId;
    if (checkpoint.agent !== undefined) run.agent = checkpoint.agent;
    return run;
  };

  /** Why the run can be claimed now (`byId`: asked for by id), or undefined. */
  const reasonOf = (
    run: RunRow,
    now: number,
    byId: boolean,
  ): { reason: ClaimedRun["reason"]; since: number } | undefined => {
    switch (run.state) {
      case "ready": {
        const since = run.readyMs ?? run.updatedMs;
        // A claim by id does not wait for the retry time: the caller asked for this run.
        return byId || since <= now ? { reason: "ready", since } : undefined;
      }
      case "waiting": {
        const wake = wakeMs(run);
        return wake !== undefined && wake <= now ? { reason: "expired", since: wake } : undefined;
      }
      case "running": {
        const expires = run.leaseExpiresMs ?? 0;
        return expires <= now ? { reason: "takeover", since: expires } : undefined;
      }
      case "failed":
        return byId ? { reason: "failed", since: run.finishedMs ?? run.updatedMs } : undefined;
      default:
        return undefined;
    }
  };

  const store: MemoryRunStore = {
    halt(checkpoint, lease) {
      if (lease !== undefined) checkLease(lease, "halt");
      checkCheckpoint(checkpoint, lease);
      // A halt with nothing to wait for could never become claimable again.
      if (checkpoint.pending.length === 0) {
        throw new CheckpointError(undefined, "a halted run needs at least one pending call");
      }
      const now = Date.now();
      const json = JSON.stringify(checkpoint);
      const copy = JSON.parse(json) as Checkpoint;
      let run: RunRow;
      if (lease === undefined) {
        if (runs.has(copy.runId)) throw runExists(copy.runId);
        run = newRun(copy, json, now);
        runs.set(run.runId, run);
      } else {
        run = fence(lease);
      }
      const haltNo = ++halts;
      const createdAt = toIso(now);
      run.halted = [];
      for (const call of copy.pending) {
        const id = call.request.id;
        const expiresAt = call.deadline ?? call.request.expiresAt;
        const parsed = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
        let row = run.requests.get(id);
        if (row === undefined) {
          row = {
            id,
            runId: run.runId,
            requestJson: "",
            kind: "",
            state: "waiting",
            haltNo,
            seq: ++seq,
            createdAt,
          };
          run.requests.set(id, row);
          const rows = byRequest.get(id);
          if (rows === undefined) byRequest.set(id, [row]);
          else rows.push(row);
        }
        // A known request keeps its state (an answer may have arrived while the run ran);
        // only what describes it is refreshed.
        row.requestJson = JSON.stringify(call.request);
        row.kind = String(call.request.kind);
        delete row.expiresAt;
        delete row.expiresMs;
        if (expiresAt !== undefined) row.expiresAt = expiresAt;
        if (!Number.isNaN(parsed)) row.expiresMs = parsed;
        run.halted.push(id);
      }
      // Requests this halt no longer waits for were answered by the steps since the last one.
      const listed = new Set(run.halted);
      for (const row of run.requests.values()) {
        if (!listed.has(row.id)) row.state = "applied";
      }
      const ready = run.halted.some((id) => run.requests.get(id)?.state === "answered");
      run.state = ready ? "ready" : "waiting";
      run.readyMs = ready ? now : undefined;
      run.checkpointJson = json;
      run.journal = [];
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      // The run moved on: earlier errors no longer count against it.
      run.failures = 0;
      run.errorJson = undefined;
      run.sessionId = copy.sessionId;
      run.agent = copy.agent;
      run.updatedMs = now;
      if (ready) notify();
      return run.state as "waiting" | "ready";
    },

    start(checkpoint, owner, leaseMs) {
      checkCheckpoint(checkpoint);
      checkOwner(owner, "start");
      checkLeaseMs(leaseMs, "start");
      if (runs.has(checkpoint.runId)) throw runExists(checkpoint.runId);
      const now = Date.now();
      const json = JSON.stringify(checkpoint);
      const run = newRun(JSON.parse(json) as Checkpoint, json, now);
      run.state = "running";
      run.owner = owner;
      run.token = 1;
      run.leaseExpiresMs = now + leaseMs;
      runs.set(run.runId, run);
      return { runId: run.runId, owner, token: 1, expiresAt: now + leaseMs };
    },

    step(lease, checkpoint) {
      checkLease(lease, "step");
      checkCheckpoint(checkpoint, lease);
      const json = JSON.stringify(checkpoint);
      const run = fence(lease);
      run.checkpointJson = json;
      run.journal = [];
      run.failures = 0;
      run.errorJson = undefined;
      run.updatedMs = Date.now();
    },

    journal(lease, entry) {
      checkLease(lease, "journal");
      assertJournalEntry(entry, lease.runId);
      const json = JSON.stringify(entry);
      const run = fence(lease);
      run.journal.push(json);
      if (typeof entry.answered === "string") {
        const row = run.requests.get(entry.answered);
        if (row !== undefined) row.state = "applied";
      }
      run.updatedMs = Date.now();
    },

    renew(lease, leaseMs) {
      checkLease(lease, "renew");
      checkLeaseMs(leaseMs, "renew");
      const run = fence(lease);
      const now = Date.now();
      run.leaseExpiresMs = now + leaseMs;
      run.updatedMs = now;
      return {
        runId: lease.runId,
        owner: lease.owner,
        token: lease.token,
        expiresAt: now + leaseMs,
      };
    },

    release(lease, error, retryAt) {
      checkLease(lease, "release");
      if (retryAt !== undefined && (typeof retryAt !== "number" || !Number.isFinite(retryAt))) {
        throw new TypeError("memoryRunStore.release(): retryAt must be an epoch time in ms");
      }
      const json = error === undefined ? undefined : errorJson(error, "release");
      // A lost lease is not an error here: the worker is giving the run up anyway.
      if (lost(lease) !== undefined) return;
      const run = runs.get(lease.runId)!;
      const now = Date.now();
      run.state = "ready";
      run.readyMs = retryAt ?? now;
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      if (json !== undefined) {
        run.failures++;
        run.errorJson = json;
      }
      run.updatedMs = now;
      notify();
    },

    finish(lease, outcome) {
      checkLease(lease, "finish");
      let resultJson: string | undefined;
      let failedJson: string | undefined;
      if (
        outcome?.state === "done" &&
        typeof outcome.result === "object" &&
        outcome.result !== null
      ) {
        resultJson = JSON.stringify(outcome.result);
      } else if (outcome?.state === "failed") {
        failedJson = errorJson(outcome.error, "finish");
      } else {
        throw new TypeError(
          'memoryRunStore.finish(): outcome must be { state: "done", result } or { state: "failed", error }',
        );
      }
      const run = fence(lease);
      const now = Date.now();
      if (resultJson !== undefined) {
        // Done keeps the result only; failed keeps the checkpoint, to be tried again by id.
        run.state = "done";
        run.resultJson = resultJson;
        run.checkpointJson = undefined;
        run.failures = 0;
        run.errorJson = undefined;
      } else {
        run.state = "failed";
        run.errorJson = failedJson;
      }
      for (const row of run.requests.values()) row.state = "applied";
      run.journal = [];
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      run.readyMs = undefined;
      run.finishedMs = now;
      run.updatedMs = now;
      finished.delete(run.runId);
      finished.add(run.runId);
      // Retention: beyond keepFinished, the run that finished first goes.
      for (const runId of finished) {
        if (finished.size <= keepFinished) break;
        drop(runs.get(runId)!);
      }
    },

    claim(claimOptions) {
      if (typeof claimOptions !== "object" || claimOptions === null) {
        throw new TypeError("memoryRunStore.claim(): options must be { owner, leaseMs, runId? }");
      }
      const { owner, leaseMs, runId } = claimOptions;
      checkOwner(owner, "claim");
      checkLeaseMs(leaseMs, "claim");
      const now = Date.now();
      let run: RunRow | undefined;
      let reason: ClaimedRun["reason"] | undefined;
      if (runId !== undefined) {
        run = runs.get(runId);
        if (run !== undefined) reason = reasonOf(run, now, true)?.reason;
      } else {
        // The run claimable longest; on a tie, the one stored first (Map order).
        let since = Number.POSITIVE_INFINITY;
        for (const candidate of runs.values()) {
          const found = reasonOf(candidate, now, false);
          if (found !== undefined && found.since < since) {
            ({ reason, since } = found);
            run = candidate;
          }
        }
      }
      if (run === undefined || reason === undefined || run.checkpointJson === undefined) {
        return undefined;
      }
      const checkpoint = JSON.parse(run.checkpointJson) as Checkpoint;
      const answers: Answer[] = [];
      for (const call of checkpoint.pending) {
        const row = run.requests.get(call.request.id);
        if (row?.state === "answered" && row.answerJson !== undefined) {
          answers.push(JSON.parse(row.answerJson) as Answer);
        }
      }
      run.token++;
      run.state = "running";
      run.owner = owner;
      run.leaseExpiresMs = now + leaseMs;
      run.readyMs = undefined;
      run.finishedMs = undefined;
      run.updatedMs = now;
      finished.delete(run.runId);
      const claimed: ClaimedRun = {
        lease: { runId: run.runId, owner, token: run.token, expiresAt: now + leaseMs },
        checkpoint,
        journal: run.journal.map((json) => JSON.parse(json) as JournalEntry),
        answers,
        reason,
        failures: run.failures,
      };
      if (run.errorJson !== undefined)
        claimed.lastError = JSON.parse(run.errorJson) as RunErrorInfo;
      return claimed;
    },

    answer(input) {
      // Validated (and stripped of unknown keys) and copied before anything is read.
      const answer = parseAnswer(input);
      const json = JSON.stringify(answer);
      const row = newest(answer.id);
      if (row === undefined) throw new SuspensionNotFoundError(answer.id);
      const run = runs.get(row.runId)!;
      const now = Date.now();
      const receipt = (duplicate: boolean): AnswerReceipt => ({
        runId: run.runId,
        requestId: answer.id,
        duplicate,
        state: runState(run, now),
      });
      const pastDeadline = row.expiresMs !== undefined && row.expiresMs <= now;
      const deadline = row.expiresMs === undefined ? undefined : toIso(row.expiresMs);
      if (row.answerJson !== undefined) {
        // Idempotent: the same answer again (a retried POST, a redelivery) changes nothing.
        if (canonical(JSON.parse(row.answerJson)) === canonical(answer)) return receipt(true);
        throw new AnswerConflictError(answer.id, "answered");
      }
      if (row.state === "applied") {
        // Resolved without an answer: it expired, or the run went on without it.
        throw pastDeadline
          ? new AnswerConflictError(answer.id, "expired", deadline)
          : new AnswerConflictError(answer.id, "answered");
      }
      if (pastDeadline) throw new AnswerConflictError(answer.id, "expired", deadline);
      row.state = "answered";
      row.answerJson = json;
      run.updatedMs = now;
      if (run.state === "waiting") {
        run.state = "ready";
        run.readyMs = now;
        notify();
      }
      return receipt(false);
    },

    getRun(runId) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      const now = Date.now();
      const info: RunInfo = {
        runId: run.runId,
        state: runState(run, now),
        createdAt: run.createdAt,
        updatedAt: toIso(run.updatedMs),
        requests: run.halted.map((id) => requestInfo(run.requests.get(id)!, now)),
        failures: run.failures,
      };
      if (run.sessionId !== undefined) info.sessionId = run.sessionId;
      if (run.agent !== undefined) info.agent = run.agent;
      if (run.state === "running") {
        info.owner = run.owner;
        info.leaseExpiresAt = toIso(run.leaseExpiresMs!);
      }
      if (run.checkpointJson !== undefined) {
        info.checkpoint = JSON.parse(run.checkpointJson) as Checkpoint;
      }
      if (run.resultJson !== undefined) info.result = JSON.parse(run.resultJson) as FinishedResult;
      if (run.errorJson !== undefined) info.lastError = JSON.parse(run.errorJson) as RunErrorInfo;
      return info;
    },

    getRequest(requestId) {
      const row = newest(requestId);
      return row === undefined ? undefined : requestInfo(row, Date.now());
    },

    list(filter = {}) {
      const now = Date.now();
      const rows: RequestRow[] = [];
      for (const run of runs.values()) {
        if (filter.runId !== undefined && run.runId !== filter.runId) continue;
        if (filter.sessionId !== undefined && run.sessionId !== filter.sessionId) continue;
        for (const row of run.requests.values()) {
          if (filter.kind !== undefined && row.kind !== filter.kind) continue;
          if (filter.state !== undefined && requestState(row, now) !== filter.state) continue;
          rows.push(row);
        }
      }
      // Newest halt first; within a halt, in the order of its pending calls.
      rows.sort((a, b) => b.haltNo - a.haltNo || a.seq - b.seq);
      const limit =
        typeof filter.limit === "number" && !Number.isNaN(filter.limit)
          ? Math.max(0, Math.floor(filter.limit))
          : rows.length;
      return rows.slice(0, limit).map((row) => {
        const run = runs.get(row.runId)!;
        const summary: SuspensionSummary = {
          request: JSON.parse(row.requestJson) as Request,
          runId: row.runId,
          createdAt: row.createdAt,
          state: requestState(row, now),
        };
        if (run.sessionId !== undefined) summary.sessionId = run.sessionId;
        if (run.agent !== undefined) summary.agent = run.agent;
        if (row.expiresAt !== undefined) summary.expiresAt = row.expiresAt;
        return summary;
      });
    },

    prune({ olderThan }) {
      const valid =
        olderThan instanceof Date
          ? !Number.isNaN(olderThan.getTime())
          : typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0;
      if (!valid) {
        throw new TypeError(
          "memoryRunStore.prune(): olderThan must be a valid Date or an age of 0 or more ms",
        );
      }
      const cutoff = olderThan instanceof Date ? olderThan.getTime() : Date.now() - olderThan;
      let pruned = 0;
      for (const runId of [...finished]) {
        const run = runs.get(runId)!;
        if (run.finishedMs !== undefined && run.finishedMs <= cutoff) {
          drop(run);
          pruned++;
        }
      }
      return pruned;
    },

    subscribe(onReady) {
      // A wrapper per subscription, so subscribing the same function twice is two subscriptions.
      const listener = () => onReady();
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
  return store;
}

/** Keeps `ask` transcripts in this process's memory: the client's default. */
export function memoryConversationStore(): ConversationStore {
  const sessions = new Map<string, string>();
  return {
    load(sessionId) {
      const json = sessions.get(sessionId);
      return json === undefined ? undefined : (JSON.parse(json) as Message[]);
    },
    save(sessionId, messages) {
      sessions.set(sessionId, JSON.stringify(messages));
    },
  };
}
