import type {
  Answer,
  AnswerOptions,
  AnswerReceipt,
  CancelReceipt,
  CancelRequest,
  Checkpoint,
  ClaimDueOptions,
  ClaimedRun,
  ClaimOptions,
  ConversationStore,
  DueTimer,
  HaltReceipt,
  JournalEntry,
  Lease,
  Message,
  PruneOptions,
  RecordedRunEvent,
  RequestInfo,
  RetryReceipt,
  RunErrorInfo,
  RunEventInit,
  RunFilter,
  RunInfo,
  RunOutcome,
  RunStore,
  RunSummary,
  SuspensionFilter,
  SuspensionSummary,
} from "@toolnexus/core";
import { guardStoreIds } from "@toolnexus/core";
import { answerOp } from "./answers.js";
import { cancelOps } from "./cancel.js";
import { claimOp } from "./claim.js";
import { conversationOps } from "./conversations.js";
import type { SqliteDriverName } from "./driver.js";
import { dueOps } from "./due.js";
import { SqliteStoreError } from "./errors.js";
import { DEFAULT_EVENTS_POLL_MS, eventOps } from "./events.js";
import { checkFileMode, DEFAULT_FILE_MODE, isOnDisk, prepareFile } from "./files.js";
import { operationOps } from "./operations.js";
import { requestOps } from "./requests.js";
import { runOps } from "./runs.js";
import { openDatabase } from "./schema.js";

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database file; created with its schema on first open. Every process that should see the
   * same runs and conversations opens the same path. `":memory:"` gives a private, non-durable
   * store (handy in tests).
   */
  path: string;
  /**
   * How long a call waits for another process's write lock before failing, in milliseconds.
   * Default 5000.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` level. `"full"` (the default) syncs every commit to disk, so a step,
   * an answer or a claim survives a power cut as well as a crash; `"normal"` survives a crash of
   * the process but may lose the last commits on a power cut, and writes faster.
   */
  synchronous?: "full" | "normal";
  /**
   * The permissions of the files the store creates (the database, its `-wal` and `-shm`, a
   * missing folder gets 0700, `backup` copies), applied exactly, whatever the umask. An existing
   * file this user owns is narrowed to at most this mode, never widened. Default `0o600`: owner
   * only, as the files hold answers, tool arguments and `ctx.extra` in plain text. Pass `0o660`
   * to share the file with processes of other users in its group.
   */
  fileMode?: number;
  /**
   * How often, in milliseconds, `watchEvents` looks for events other processes recorded (one
   * `PRAGMA data_version` per tick while anything is watched; a run's newest offset only when
   * the file changed). Events this store records wake its watchers at once. Default 150.
   */
  eventsPollMs?: number;
}

/**
 * A durable {@link RunStore} and {@link ConversationStore} in one SQLite file. Every method is
 * synchronous (better-sqlite3 or `node:sqlite`), which the `Awaitable` store interfaces allow. Every write is one
 * IMMEDIATE transaction, so processes sharing the file never interleave inside one.
 *
 * There is no `subscribe`: SQLite cannot notify other processes, so workers poll `claim`, and
 * `watchEvents` polls the file (see {@link SqliteStoreOptions.eventsPollMs}).
 */
export interface SqliteStore extends RunStore, ConversationStore {
  /** The database file this store was opened on. */
  readonly path: string;
  /**
   * The SQLite binding in use: `"node:sqlite"` on Node 24 and later, `"better-sqlite3"` on
   * Node 20 and 22.
   */
  readonly driver: SqliteDriverName;
  /**
   * Stores a run that halted for answers (see {@link RunStore.halt}); validated first (a
   * `CheckpointError`, nothing stored). Without a lease the run must be new (a `ToolnexusError`
   * with code `"run_exists"` otherwise); with one, the lease is checked, then released.
   */
  halt(checkpoint: Checkpoint, lease?: Lease): HaltReceipt;
  /** Creates a run `running` under a new lease (token 1); `"run_exists"` if the id is taken. */
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Lease;
  /** Replaces the checkpoint, clears the journal and the failure count. `LeaseLostError` if lost. */
  step(lease: Lease, checkpoint: Checkpoint): void;
  /** Appends a finished call to the journal; `entry.answered` marks that request `applied`. */
  journal(lease: Lease, entry: JournalEntry): void;
  /**
   * A new lease (same token) expiring `leaseMs` from now, with `cancel` set when someone asked
   * to cancel the run. `LeaseLostError` if lost.
   */
  renew(lease: Lease, leaseMs: number): Lease;
  /**
   * Gives the run back `ready`, journal kept; with an error, counts it and waits for `retryAt`.
   * A run asked to cancel ends `cancelled` instead.
   */
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): void;
  /**
   * Ends the run `done` (result kept, checkpoint dropped), `failed` (checkpoint kept) or
   * `cancelled` (its open requests `cancelled`), with the matching event.
   */
  finish(lease: Lease, outcome: RunOutcome): void;
  /**
   * Takes a lease on a claimable run, atomically across every process sharing the file:
   * exactly one caller gets it. `undefined` when nothing is claimable. A corrupt stored run
   * throws a `CheckpointError` naming it and is left unchanged.
   */
  claim(options: ClaimOptions): ClaimedRun | undefined;
  /**
   * Records a human's answer (one short transaction; nothing else runs), who answered
   * (`options.by`) and when, and its `answered` event.
   */
  answer(answer: Answer, options?: AnswerOptions): AnswerReceipt;
  /** Appends the loop's events after the run's last one, fenced by the lease; the last offset. */
  appendEvents(lease: Lease, events: readonly RunEventInit[]): number;
  /** A run's events after `after`, oldest first, at most `limit` (default and most 1000). */
  readEvents(runId: string, after: number, limit?: number): RecordedRunEvent[];
  /**
   * Calls `onEvent` soon after an event of the run is recorded: at once for this store's own
   * writes, within `eventsPollMs` for other processes'. Returns an unsubscribe function.
   */
  watchEvents(runId: string, onEvent: () => void): () => void;
  /**
   * Cancels a run and its sub-agents' runs (ids under `<runId>/`): at once unless a live worker
   * holds it, else its worker's next `renew` returns the lease with `cancel` set.
   */
  cancel(runId: string, request?: CancelRequest): CancelReceipt;
  /** A run by id, or `undefined`; a corrupt checkpoint is a `CheckpointError` naming the run. */
  getRun(runId: string): RunInfo | undefined;
  /** A request by id (the newest run that raised it), or `undefined`. */
  getRequest(requestId: string): RequestInfo | undefined;
  /** Requests, newest first; reads only plain columns, so one corrupt row never breaks it. */
  list(filter?: SuspensionFilter): SuspensionSummary[];
  /**
   * Deletes `done`, `failed` and `cancelled` runs finished at or before the cutoff, with their
   * requests, journals and events; returns how many.
   */
  prune(options: PruneOptions): number;
  /** Runs, newest change first (see {@link RunStore.listRuns}); plain columns only. */
  listRuns(filter?: RunFilter): RunSummary[];
  /** Makes a `failed` run `ready` for any worker, its failure count reset (see {@link RunStore.retry}). */
  retry(runId: string): RetryReceipt;
  /** The journal of the run's step in flight, in the order written. */
  readJournal(runId: string): JournalEntry[];
  /**
   * Hands out the reminders and escalations due at `now` whose request still waits, marking
   * them fired in the same write transaction: each is handed to one caller, across processes
   * and restarts (see {@link RunStore.claimDue}).
   */
  claimDue(options: ClaimDueOptions): DueTimer[];
  /** Stores `messages` as the transcript of `sessionId`, replacing any earlier one. */
  save(sessionId: string, messages: readonly Message[]): void;
  /** The transcript saved for `sessionId`, or `undefined` for a session never saved. */
  load(sessionId: string): Message[] | undefined;
  /** Forgets the transcript of `sessionId`; returns whether there was one. */
  deleteConversation(sessionId: string): boolean;
  /**
   * Copies the whole store to `destination` with SQLite's online backup, including commits still
   * in the write-ahead log, while other processes keep using the file.
   */
  backup(destination: string): Promise<void>;
  /** Closes the database. Idempotent; the store cannot be used afterwards. */
  close(): void;
}

/**
 * Opens (or creates) a durable run and conversation store in the SQLite file at `path`. Any
 * process that opens the same file can record answers, claim runs and continue them.
 *
 * @example
 * ```ts
 * const store = sqliteStore({ path: "toolnexus.db" });
 * const client = createClient({ model, tools, runs: store, conversations: store });
 * ```
 */
export function sqliteStore(options: SqliteStoreOptions): SqliteStore {
  const path = options.path;
  if (typeof path !== "string" || path === "") {
    throw new TypeError("sqliteStore(): path must be a non-empty string");
  }
  const fileMode = checkFileMode(options.fileMode ?? DEFAULT_FILE_MODE);
  const { db, driver } = openDatabase({
    path,
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    synchronous: options.synchronous ?? "full",
    fileMode,
  });
  const pollMs = options.eventsPollMs ?? DEFAULT_EVENTS_POLL_MS;
  if (typeof pollMs !== "number" || !Number.isFinite(pollMs) || pollMs < 1 || pollMs > 60_000) {
    db.close();
    throw new TypeError("sqliteStore(): eventsPollMs must be a number of milliseconds, 1 to 60000");
  }
  const events = eventOps(db, pollMs);
  const cancels = cancelOps(db, events);
  const due = dueOps(db);
  const runs = runOps(db, events, cancels, due);
  // Watchers in this process hear of a write as soon as it commits, not at the next poll.
  const woken =
    <A extends unknown[], R>(write: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return write(...args);
      } finally {
        events.flush();
      }
    };
  const requests = requestOps(db);
  const conversations = conversationOps(db, path);
  const operations = operationOps(db);

  // Ids SQLite could not keep exactly (NUL, unpaired surrogates) are refused, as in every store.
  return guardStoreIds<SqliteStore>(
    {
      path,
      driver,
      halt: woken(runs.halt),
      start: woken(runs.start),
      step: runs.step,
      journal: runs.journal,
      renew: runs.renew,
      release: woken(runs.release),
      finish: woken(runs.finish),
      prune: runs.prune,
      claim: woken(claimOp(db, events, cancels)),
      answer: woken(answerOp(db, events)),
      appendEvents: woken(runs.appendEvents),
      readEvents: (runId, after, limit) => events.read(runId, after, limit),
      watchEvents: (runId, onEvent) => events.watch(runId, onEvent),
      cancel: woken(cancels.cancel),
      getRun: requests.getRun,
      getRequest: requests.getRequest,
      list: requests.list,
      listRuns: operations.listRuns,
      retry: operations.retry,
      readJournal: operations.readJournal,
      claimDue: woken(due.claimDue),
      save: conversations.save,
      load: conversations.load,
      deleteConversation: conversations.deleteConversation,
      async backup(destination) {
        // The copy holds the same answers and arguments: created with the same permissions.
        if (isOnDisk(destination)) {
          try {
            prepareFile(destination, fileMode);
          } catch (cause) {
            throw new SqliteStoreError(
              "store_backup",
              path,
              `cannot back the toolnexus store up to "${destination}": ${cause instanceof Error ? cause.message : String(cause)}`,
              { cause },
            );
          }
        }
        await db.backup(destination);
      },
      close() {
        events.close();
        if (db.open) db.close();
      },
    },
    "sync",
  );
}
