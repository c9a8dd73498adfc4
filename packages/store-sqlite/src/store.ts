import type {
  Answer,
  AnswerReceipt,
  Checkpoint,
  ClaimedRun,
  ClaimOptions,
  ConversationStore,
  JournalEntry,
  Lease,
  Message,
  PruneOptions,
  RequestInfo,
  RunErrorInfo,
  RunInfo,
  RunOutcome,
  RunStore,
  SuspensionFilter,
  SuspensionSummary,
} from "@toolnexus/core";
import { guardStoreIds } from "@toolnexus/core";
import { answerOp } from "./answers.js";
import { claimOp } from "./claim.js";
import { conversationOps } from "./conversations.js";
import type { SqliteDriverName } from "./driver.js";
import { SqliteStoreError } from "./errors.js";
import { checkFileMode, DEFAULT_FILE_MODE, isOnDisk, prepareFile } from "./files.js";
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
}

/**
 * A durable {@link RunStore} and {@link ConversationStore} in one SQLite file. Every method is
 * synchronous (better-sqlite3 or `node:sqlite`), which the `Awaitable` store interfaces allow. Every write is one
 * IMMEDIATE transaction, so processes sharing the file never interleave inside one.
 *
 * There is no `subscribe`: SQLite cannot notify other processes, so workers poll `claim`.
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
  halt(checkpoint: Checkpoint, lease?: Lease): "waiting" | "ready";
  /** Creates a run `running` under a new lease (token 1); `"run_exists"` if the id is taken. */
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Lease;
  /** Replaces the checkpoint, clears the journal and the failure count. `LeaseLostError` if lost. */
  step(lease: Lease, checkpoint: Checkpoint): void;
  /** Appends a finished call to the journal; `entry.answered` marks that request `applied`. */
  journal(lease: Lease, entry: JournalEntry): void;
  /** A new lease (same token) expiring `leaseMs` from now. `LeaseLostError` if lost. */
  renew(lease: Lease, leaseMs: number): Lease;
  /** Gives the run back `ready`, journal kept; with an error, counts it and waits for `retryAt`. */
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): void;
  /** Ends the run `done` (result kept, checkpoint dropped) or `failed` (checkpoint kept). */
  finish(lease: Lease, outcome: RunOutcome): void;
  /**
   * Takes a lease on a claimable run, atomically across every process sharing the file:
   * exactly one caller gets it. `undefined` when nothing is claimable. A corrupt stored run
   * throws a `CheckpointError` naming it and is left unchanged.
   */
  claim(options: ClaimOptions): ClaimedRun | undefined;
  /** Records a human's answer (one short transaction; nothing else runs). */
  answer(answer: Answer): AnswerReceipt;
  /** A run by id, or `undefined`; a corrupt checkpoint is a `CheckpointError` naming the run. */
  getRun(runId: string): RunInfo | undefined;
  /** A request by id (the newest run that raised it), or `undefined`. */
  getRequest(requestId: string): RequestInfo | undefined;
  /** Requests, newest first; reads only plain columns, so one corrupt row never breaks it. */
  list(filter?: SuspensionFilter): SuspensionSummary[];
  /** Deletes `done` and `failed` runs finished at or before the cutoff; returns how many. */
  prune(options: PruneOptions): number;
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
  const runs = runOps(db);
  const requests = requestOps(db);
  const conversations = conversationOps(db, path);

  // Ids SQLite could not keep exactly (NUL, unpaired surrogates) are refused, as in every store.
  return guardStoreIds<SqliteStore>(
    {
      path,
      driver,
      halt: runs.halt,
      start: runs.start,
      step: runs.step,
      journal: runs.journal,
      renew: runs.renew,
      release: runs.release,
      finish: runs.finish,
      prune: runs.prune,
      claim: claimOp(db),
      answer: answerOp(db),
      getRun: requests.getRun,
      getRequest: requests.getRequest,
      list: requests.list,
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
        if (db.open) db.close();
      },
    },
    "sync",
  );
}
