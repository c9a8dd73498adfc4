import type {
  Checkpoint,
  ConversationStore,
  Message,
  SuspensionStore,
  SuspensionSummary,
} from "@toolnexus/core";
import { conversationOps } from "./conversations.js";
import { openDatabase } from "./schema.js";
import { type PruneOptions, type SqliteSuspensionFilter, suspensionOps } from "./suspensions.js";

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database file; created with its schema on first open. Every process that should see the
   * same halted runs and conversations opens the same path. `":memory:"` gives a private,
   * non-durable store (handy in tests).
   */
  path: string;
  /**
   * How long a call waits for another process's write lock before failing, in milliseconds.
   * Default 5000.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` level. `"full"` (the default) syncs every commit to disk, so a halted
   * run survives a power cut as well as a crash; `"normal"` survives a crash of the process but
   * may lose the last commits on a power cut, and writes faster.
   */
  synchronous?: "full" | "normal";
}

/**
 * A durable {@link SuspensionStore} and {@link ConversationStore} in one SQLite file. Every
 * method is synchronous (better-sqlite3), which the `Awaitable` store interfaces allow.
 */
export interface SqliteStore extends SuspensionStore, ConversationStore {
  /** The database file this store was opened on. */
  readonly path: string;
  /**
   * Persists a halted run in one transaction, indexed by each of its pending request ids. The
   * checkpoint is validated first (a `CheckpointError` otherwise). Saving an id again is
   * idempotent, as in the in-memory store: a waiting checkpoint takes the new content, a
   * resumed one stays resumed.
   */
  save(checkpoint: Checkpoint): void;
  /** Stores `messages` as the transcript of `sessionId`, replacing any earlier one. */
  save(sessionId: string, messages: readonly Message[]): void;
  /**
   * The checkpoint waiting on `requestId`, without claiming it; `undefined` when none waits.
   * Throws a `CheckpointError` naming the request when the stored row cannot be used.
   */
  get(requestId: string): Checkpoint | undefined;
  /**
   * Atomically takes the checkpoint waiting on `requestId` and marks it `resumed`, across every
   * process sharing the file: exactly one caller gets it. Throws `AlreadyResumedError` when the
   * request was already claimed, `SuspensionNotFoundError` for an unknown id, and
   * `CheckpointError` (changing nothing) when the stored checkpoint is corrupt or from another
   * version.
   */
  claim(requestId: string): Checkpoint;
  /**
   * One summary per pending request of every stored halt, newest first; a waiting request whose
   * deadline has passed lists as `expired`. Reads only indexed columns, so a corrupt checkpoint
   * still lists (and fails with a clear error only when resumed).
   */
  list(filter?: SqliteSuspensionFilter): SuspensionSummary[];
  /**
   * Deletes halted runs that were resumed (finished) longer ago than `olderThan`, and returns how
   * many were deleted. Waiting and expired runs are never deleted.
   */
  prune(options: PruneOptions): number;
  /** The transcript saved for `sessionId`, or `undefined` for a session never saved. */
  load(sessionId: string): Message[] | undefined;
  /** Forgets the transcript of `sessionId`; returns whether there was one. */
  deleteConversation(sessionId: string): boolean;
  /**
   * Copies the whole store to `destination` with SQLite's online backup, including commits still
   * in the write-ahead log, while other processes keep using the file.
   */
  backup(destination: string): Promise<void>;
  /** Closes the database. The store cannot be used afterwards. */
  close(): void;
}

/**
 * Opens (or creates) a durable suspension and conversation store in the SQLite file at `path`.
 * Pass the same store as the client's `suspensions` and `conversations`; any process that opens
 * the same file can resume a run halted in another, exactly once.
 *
 * @example
 * ```ts
 * const store = sqliteStore({ path: "toolnexus.db" });
 * const client = createClient({ model, tools, suspensions: store, conversations: store });
 * ```
 */
export function sqliteStore(options: SqliteStoreOptions): SqliteStore {
  const path = options.path;
  if (typeof path !== "string" || path === "") {
    throw new TypeError("sqliteStore(): path must be a non-empty string");
  }
  const db = openDatabase({
    path,
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    synchronous: options.synchronous ?? "full",
  });
  const suspensions = suspensionOps(db);
  const conversations = conversationOps(db, path);

  function save(checkpoint: Checkpoint): void;
  function save(sessionId: string, messages: readonly Message[]): void;
  function save(first: Checkpoint | string, messages?: readonly Message[]): void {
    if (typeof first === "string") conversations.save(first, messages ?? []);
    else suspensions.save(first);
  }

  return {
    path,
    save,
    get: suspensions.get,
    claim: suspensions.claim,
    list: suspensions.list,
    prune: suspensions.prune,
    load: conversations.load,
    deleteConversation: conversations.deleteConversation,
    async backup(destination) {
      await db.backup(destination);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
