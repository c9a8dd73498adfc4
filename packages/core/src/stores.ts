import type { Checkpoint, JournalEntry } from "./checkpoint.js";
import type { Message } from "./messages.js";
import type { RecordedRunEvent, RunEventInit } from "./run-events.js";
import type { RetryReceipt, RunFilter, RunSummary } from "./run-listing.js";
import type { FinishedResult } from "./run-result.js";
import type { RunErrorInfo, RunState } from "./run-state.js";
import type { ClaimDueOptions, DueTimer } from "./waiting.js";
import type { Answer, Request } from "./wire.js";

export type { RunErrorInfo, RunState } from "./run-state.js";

/** A value or a promise of it: stores may be synchronous (SQLite) or not (a network database). */
export type Awaitable<T> = T | Promise<T>;

/**
 * Where one request of a halted run stands: `waiting` for an answer, `answered` (recorded, not
 * yet applied), `applied` (the run used the answer), `expired` (its deadline passed unanswered),
 * or `cancelled` (its run was cancelled before it was applied).
 */
export type RequestState = "waiting" | "answered" | "applied" | "expired" | "cancelled";

/** Who cancelled a run, why, and when (ISO time). */
export interface CancelInfo {
  by?: string;
  reason?: string;
  at: string;
}

/** What {@link RunStore.cancel} takes: who asks (an identity the host authenticated) and why. */
export interface CancelRequest {
  by?: string;
  reason?: string;
}

/**
 * What cancelling did: `cancelled` (the run ended `cancelled` now), `requested` (it is
 * running: the worker holding it stops it at its next lease renewal), `already_cancelled` or
 * `finished` (it had ended `cancelled`, or `done`: nothing changed).
 */
/**
 * What {@link RunStore.halt} did: the run waits for answers (or is `ready`: an answer was
 * recorded while it ran), or a cancel asked while it ran ended it, with who asked and why (the
 * run's `cancel`). A halt without a lease creates the run, which nobody can have cancelled yet.
 */
export type HaltReceipt =
  | { state: "waiting" | "ready" }
  | { state: "cancelled"; cancel: CancelInfo };

export interface CancelReceipt {
  runId: string;
  outcome: "cancelled" | "requested" | "already_cancelled" | "finished";
  /** The run's state after the call. */
  state: RunState;
}

/** Options of {@link RunStore.answer}. */
export interface AnswerOptions {
  /**
   * Who answered: an identity the host authenticated (a user id, an email, a policy's name).
   * Kept with the answer and its time; never taken from the model or the answer's data.
   */
  by?: string;
}

/**
 * A worker's hold on a run. Every write a worker makes passes it, and the store refuses the
 * write (`LeaseLostError`) when the lease was taken over meanwhile: `token` grows with each
 * claim, so a worker that was paused past its lease cannot overwrite its successor's work.
 */
export interface Lease {
  runId: string;
  owner: string;
  token: number;
  /** Epoch milliseconds when the lease runs out unless renewed. */
  expiresAt: number;
  /**
   * Set by {@link RunStore.renew} when someone asked to cancel the run: the worker stops it
   * (its tools see their signal abort) and ends it with `finish(lease, { state: "cancelled" })`.
   */
  cancel?: CancelInfo;
}

/** What {@link RunStore.claim} hands a worker: everything needed to continue the run. */
export interface ClaimedRun {
  lease: Lease;
  /** The state at the run's last step. */
  checkpoint: Checkpoint;
  /** Calls of the step in flight that finished after the checkpoint, in the order written. */
  journal: JournalEntry[];
  /** Recorded, not yet applied answers to the checkpoint's pending requests. */
  answers: Answer[];
  /** Why the run could be claimed. */
  reason: "ready" | "expired" | "takeover" | "failed";
  /** Errors recorded since the run last moved on. */
  failures: number;
  lastError?: RunErrorInfo;
}

/** Options of {@link RunStore.claim}. */
export interface ClaimOptions {
  /** Who takes the lease (a worker id). */
  owner: string;
  /** How long the lease lasts unless renewed, in ms. */
  leaseMs: number;
  /**
   * Claim this run only (when it can be claimed now; `failed` runs too). Without it, the store
   * picks the longest-waiting claimable run (`ready`, `expired`, or `running` with a lapsed
   * lease), skipping `failed` runs and runs whose retry time has not come.
   */
  runId?: string;
  /**
   * With the generic claim: take only runs of this agent (the checkpoint's `agent`); `null`
   * takes only runs without an agent. Unset: runs of any agent. Workers of several agents can
   * share one store this way, each continuing only its own runs.
   */
  agent?: string | null;
}

/** What recording an answer did. */
export interface AnswerReceipt {
  runId: string;
  requestId: string;
  /** True when the same answer had been recorded before: nothing changed. */
  duplicate: boolean;
  /** The run's state after recording. */
  state: RunState;
}

/** One request of a run, with its answer once recorded. */
export interface RequestInfo {
  request: Request;
  runId: string;
  state: RequestState;
  answer?: Answer;
  /** Who answered ({@link AnswerOptions.by}), when the host said. */
  answeredBy?: string;
  /** ISO time the answer was recorded. */
  answeredAt?: string;
  /** The effective deadline (`PendingCall.deadline`, else the Request's `expiresAt`). */
  expiresAt?: string;
}

/** A durable run as a host reads it back by id. */
export interface RunInfo {
  runId: string;
  state: RunState;
  sessionId?: string;
  agent?: string;
  /** ISO times. */
  createdAt: string;
  updatedAt: string;
  /** Set while `running`. */
  owner?: string;
  leaseExpiresAt?: string;
  /** The requests of the current (or last) halt. */
  requests: RequestInfo[];
  /** The state at the last step; absent once `done`. */
  checkpoint?: Checkpoint;
  /** The result of a `done` run. */
  result?: FinishedResult;
  /** Errors recorded since the run last moved on, and the last one. */
  failures: number;
  lastError?: RunErrorInfo;
  /** Who cancelled it and why: asked while `running`, or done once `cancelled`. */
  cancel?: CancelInfo;
}

/** One request as a host's inbox lists it. */
export interface SuspensionSummary {
  request: Request;
  runId: string;
  sessionId?: string;
  agent?: string;
  /** ISO time of the halt that raised it. */
  createdAt: string;
  /** The effective deadline. */
  expiresAt?: string;
  state: RequestState;
  /** Who answered, and when (ISO), once answered. */
  answeredBy?: string;
  answeredAt?: string;
}

/** Filters for {@link RunStore.list}; all given fields must match. */
export interface SuspensionFilter {
  state?: RequestState;
  sessionId?: string;
  kind?: string;
  runId?: string;
  /** At most this many summaries, newest first. */
  limit?: number;
}

/** What {@link RunStore.prune} removes. */
export interface PruneOptions {
  /**
   * Removes `done`, `failed` and `cancelled` runs (with their requests, journals and events)
   * that finished at or before this moment: a `Date` is that moment, a number an age in ms (`0`: every finished run).
   */
  olderThan: Date | number;
}

/** How a run ends in the store. */
export type RunOutcome =
  | { state: "done"; result: FinishedResult }
  | { state: "failed"; error: RunErrorInfo }
  | { state: "cancelled"; cancel: CancelInfo };

/**
 * Where durable runs live: their checkpoints, the journal of each step, the human's answers,
 * the workers' leases and the results. The client ships an in-memory one,
 * `@toolnexus/store-sqlite` a durable one; write your own against `@toolnexus/core/testing`'s
 * contract suite.
 *
 * Recording an answer ({@link answer}) is separate from continuing the run ({@link claim}): a
 * web handler records in milliseconds, a worker continues the run under a lease.
 *
 * A store copies what it is given before its first `await` (the loop keeps appending to the
 * transcript it passes) and hands out copies that share nothing with its own data.
 */
export interface RunStore {
  /**
   * Stores a run that halted for answers. Without a lease the run is new to the store (a run
   * that was not durable until it halted); with one, the lease is released. The run becomes
   * `waiting`, or `ready` when one of its pending requests already has an answer recorded (an
   * answer that arrived while the run was running). Each pending request is indexed by its id;
   * requests answered by this step are marked `applied`. Clears the journal.
   *
   * Returns a {@link HaltReceipt}: the run's state after the halt, or `cancelled` with who asked
   * when a cancel asked while it ran (under `lease`) ended it instead. A store written for an
   * earlier contract returns `"waiting"`/`"ready"` (or nothing): the client then reads the run
   * to learn of a cancel.
   */
  halt(
    checkpoint: Checkpoint,
    lease?: Lease,
  ): Awaitable<HaltReceipt | "waiting" | "ready" | undefined>;
  /** Creates a run that is durable from its first step, `running` under a new lease for `owner`. */
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Awaitable<Lease>;
  /** Replaces the run's checkpoint at a step and clears its journal. Refuses a lost lease. */
  step(lease: Lease, checkpoint: Checkpoint): Awaitable<void>;
  /** Appends one finished call to the journal of the step in flight. Refuses a lost lease. */
  journal(lease: Lease, entry: JournalEntry): Awaitable<void>;
  /** Extends the lease to now + `leaseMs`. Throws `LeaseLostError` when it was taken over. */
  renew(lease: Lease, leaseMs: number): Awaitable<Lease>;
  /**
   * Gives a run back: it becomes `ready` (journal kept) for any worker. With an error, the error
   * is recorded, `failures` counts it, and the run is not offered again before `retryAt`
   * (epoch ms). Ignores a lost lease.
   */
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): Awaitable<void>;
  /**
   * Ends a run `done` with its result, `failed`, or `cancelled` (after a cancel the lease
   * reported). Requests still open become `applied` (`cancelled` for a cancelled run).
   * Records the matching final event.
   */
  finish(lease: Lease, outcome: RunOutcome): Awaitable<void>;
  /** Takes a lease on a run that can continue now; `undefined` when there is none. */
  claim(options: ClaimOptions): Awaitable<ClaimedRun | undefined>;
  /**
   * Records a human's answer to a waiting request (validated with `parseAnswer`), and makes a
   * `waiting` run `ready`. Idempotent: the same answer again is a `duplicate`. Throws
   * `SuspensionNotFoundError` for an unknown id, `AnswerConflictError` for a different answer
   * to an answered request, an answer after the deadline or to a cancelled run
   * (`reason: "cancelled"`), `WireFormatError` for bad input. `options.by` (who answered) is
   * kept with the answer and its time, and in the `answered` event.
   */
  answer(answer: Answer, options?: AnswerOptions): Awaitable<AnswerReceipt>;
  /** A run by id, or `undefined`. */
  getRun(runId: string): Awaitable<RunInfo | undefined>;
  /** A request by id (the newest run that raised it), or `undefined`. */
  getRequest(requestId: string): Awaitable<RequestInfo | undefined>;
  /** Requests with their state, newest first, for an inbox or an admin page. */
  list(filter?: SuspensionFilter): Awaitable<SuspensionSummary[]>;
  /** Deletes finished runs older than `olderThan`; returns how many runs were deleted. */
  prune(options: PruneOptions): Awaitable<number>;
  /**
   * Optional: calls `onReady` soon after any run may have become claimable (an answer
   * recorded, a run released), so a worker need not wait for its next poll. Returns an
   * unsubscribe function.
   */
  subscribe?(onReady: () => void): () => void;
  /**
   * Optional: hands out the reminders and escalations (`PendingCall.timers`, stored at
   * {@link halt}) due at `now` whose request still waits for an answer, and marks them fired in
   * the same atomic write, so across every worker and restart each is handed out once. An
   * escalation re-addresses its request (`data.to`) in that write. A timer not yet fired when
   * its request is answered, expires or is cancelled never fires.
   */
  claimDue?(options: ClaimDueOptions): Awaitable<DueTimer[]>;

  // Run events and cancel: optional members, so a store written before them still compiles;
  // the stores toolnexus ships have them all, and `@toolnexus/core/testing`'s contract checks
  // them. A store that has them records, in the same write as the change, `started` (start, or
  // a halt that makes a run durable), `suspended` (halt), `answered` (answer), `continued`
  // (claim), `cancel_requested` / `cancelled` (cancel) and `done` / `failed` / `cancelled`
  // (finish); the loop appends the rest with `appendEvents`. Events go with their run on prune.

  /**
   * Appends events of the loop (types in `LOOP_RUN_EVENTS`) to a run the lease holds, after
   * the events recorded so far. Refuses a lost lease (`LeaseLostError`). Returns the offset
   * of the last event of the run.
   */
  appendEvents?(lease: Lease, events: readonly RunEventInit[]): Awaitable<number>;
  /**
   * A run's events with an offset above `after` (0: from the first), oldest first, at most
   * `limit` (default and most: `MAX_EVENTS_PER_READ`). `[]` for an unknown or pruned run.
   */
  readEvents?(runId: string, after: number, limit?: number): Awaitable<RecordedRunEvent[]>;
  /**
   * Calls `onEvent` soon after an event of this run is recorded: by any process where the
   * store can tell (PostgreSQL), else by this process, or by polling. A hint, not the event:
   * the follower reads with `readEvents`. Returns an unsubscribe function.
   */
  watchEvents?(runId: string, onEvent: () => void): () => void;
  /**
   * Cancels a run. A `waiting`, `ready`, `expired` or `failed` run (or a `running` one whose
   * lease lapsed) ends `cancelled` at once, its open requests `cancelled`; a `running` one is
   * marked, and its worker's next `renew` returns the lease with `cancel` set. Its sub-agents'
   * runs (ids under `<runId>/`) are cancelled the same way. Cancelling a `cancelled` or `done`
   * run changes nothing. `RunNotFoundError` for an unknown run.
   */
  cancel?(runId: string, request?: CancelRequest): Awaitable<CancelReceipt>;

  // Operating runs (the `toolnexus` command): optional, so a store written before them still
  // compiles; the stores toolnexus ships have them, and the contract checks them.

  /**
   * Runs, newest change first (`updatedAt`), matching every field of `filter` (see
   * {@link RunFilter}); at most `filter.limit` (default 100, most 1000). Reads plain columns
   * only, so a damaged checkpoint still lists. A `TypeError` for a bad filter.
   */
  listRuns?(filter?: RunFilter): Awaitable<RunSummary[]>;
  /**
   * Hands a `failed` run back to the workers: it becomes `ready`, claimable now by any worker
   * (the generic `claim` skips failed runs), its failure count reset so the worker's retry
   * budget starts again; its last error is kept. Any other state changes nothing
   * (`not_failed`). `RunNotFoundError` for an unknown run.
   */
  retry?(runId: string): Awaitable<RetryReceipt>;
  /**
   * The journal of the run's step in flight (calls that finished after its checkpoint), in the
   * order written; `[]` for an unknown run or one between steps.
   */
  readJournal?(runId: string): Awaitable<JournalEntry[]>;
}

/** Where `client.ask` keeps each session's transcript between calls. */
export interface ConversationStore {
  load(sessionId: string): Awaitable<Message[] | undefined>;
  save(sessionId: string, messages: readonly Message[]): Awaitable<void>;
}
