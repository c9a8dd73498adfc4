import { inspect } from "node:util";
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
import type pg from "pg";
import { answerOp } from "./answers.js";
import { cancelOp } from "./cancel.js";
import { claimOp } from "./claim.js";
import { type ConnectionInput, openDb } from "./connection.js";
import { makeContext } from "./context.js";
import { conversationOps } from "./conversations.js";
import { claimDueOp } from "./due.js";
import { PostgresStoreError } from "./errors.js";
import { eventOps, watchKey } from "./events.js";
import { listener } from "./notify.js";
import { operationOps } from "./operations.js";
import { requestOps } from "./requests.js";
import { runOps } from "./runs.js";
import { checkSchemaName, migrate } from "./schema.js";

/** How {@link postgresStore} reaches the server. */
export type PostgresConnection =
  | {
      /**
       * A libpq-style URL, `postgres://user:password@host:5432/database`. The store opens a pool
       * of its own on it (and closes it in `close()`). The password never appears in an error.
       */
      connectionString: string;
    }
  | {
      /**
       * A `pg` Pool the application already has. The store never ends it; it keeps one of its
       * connections while anything is subscribed (LISTEN), so give it room for that.
       */
      pool: pg.Pool;
    };

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The schema holding the store's tables, created on first use. Default `"toolnexus"`. Give each
   * application (or environment sharing a database) its own. A plain identifier.
   */
  schema?: string;
  /** Connections of the store's own pool (with `connectionString`). Default 10. */
  poolSize?: number;
  /** How long opening a connection of the store's own pool may take, in ms. Default 10000. */
  connectTimeoutMs?: number;
  /**
   * How long a call keeps trying while the server cannot be reached or the connection broke (a
   * restart, a killed backend, a failover), with backoff from 50 ms up to 1 s between tries, in
   * ms. Default 30000; 0 tries once. Only calls that are safe to repeat are repeated (every call
   * of the store is: reads, transactions that rolled back, and writes that check whether an
   * attempt cut off at its commit went through). After that, the `store_connect` error.
   */
  retryTimeoutMs?: number;
  /**
   * Called with problems no call is waiting for: the LISTEN connection broke (it reconnects by
   * itself) or could not be opened. The errors are `PostgresStoreError`s, without the password.
   */
  onError?: (error: unknown) => void;
  /**
   * How often, in ms, the store reads the last event offset of the runs it watches
   * (`watchEvents`), in case a notification was lost. Default 5000.
   */
  eventsPollMs?: number;
}

/**
 * A durable {@link RunStore} and {@link ConversationStore} on PostgreSQL. Every method returns a
 * promise. Workers on any number of machines share the runs: a claim locks one run row with
 * `FOR UPDATE SKIP LOCKED` (workers never wait on each other, each run goes to exactly one), and
 * every write a worker makes is fenced by its lease's owner and token.
 */
export interface PostgresStore extends RunStore, ConversationStore {
  /** The schema the tables live in. */
  readonly schema: string;
  /**
   * The pool the store uses (its own, or the one it was given). Not enumerable: `util.inspect`
   * and `JSON.stringify` of the store show its schema and server, never the connection string.
   */
  readonly pool: pg.Pool;
  /**
   * Stores a run that halted for answers (see {@link RunStore.halt}); validated first (a
   * `CheckpointError`, nothing stored). Without a lease the run must be new (a `ToolnexusError`
   * with code `"run_exists"` otherwise); with one, the lease is checked, then released. One
   * round trip. Returns `{ state: "waiting" | "ready" }`, or `{ state: "cancelled", cancel }`
   * when a cancel asked while the run ran ended it instead.
   */
  halt(checkpoint: Checkpoint, lease?: Lease): Promise<HaltReceipt>;
  /** Creates a run `running` under a new lease (token 1); `"run_exists"` if the id is taken. */
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Promise<Lease>;
  /** Replaces the checkpoint, clears the journal and the failure count. `LeaseLostError` if lost. */
  step(lease: Lease, checkpoint: Checkpoint): Promise<void>;
  /** Appends a finished call to the journal; `entry.answered` marks that request `applied`. */
  journal(lease: Lease, entry: JournalEntry): Promise<void>;
  /** A new lease (same token) expiring `leaseMs` from now. `LeaseLostError` if lost. */
  renew(lease: Lease, leaseMs: number): Promise<Lease>;
  /** Gives the run back `ready`, journal kept; with an error, counts it and waits for `retryAt`. */
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): Promise<void>;
  /** Ends the run `done` (result kept, checkpoint dropped) or `failed` (checkpoint kept). */
  finish(lease: Lease, outcome: RunOutcome): Promise<void>;
  /**
   * Takes a lease on a claimable run: exactly one caller on any machine gets it. `undefined`
   * when nothing is claimable. The generic claim sets a corrupt run aside as `failed` and takes
   * the next; a claim by id throws a `CheckpointError` naming it and changes nothing.
   */
  claim(options: ClaimOptions): Promise<ClaimedRun | undefined>;
  /**
   * Records a human's answer (one short transaction), who answered (`options.by`) and when, and
   * its `answered` event; tells the workers when a run became ready.
   */
  answer(answer: Answer, options?: AnswerOptions): Promise<AnswerReceipt>;
  /** A run by id, or `undefined`; a corrupt checkpoint is a `CheckpointError` naming the run. */
  getRun(runId: string): Promise<RunInfo | undefined>;
  /** A request by id (the newest run that raised it), or `undefined`. */
  getRequest(requestId: string): Promise<RequestInfo | undefined>;
  /** Requests, newest first; reads only plain columns, so one corrupt row never breaks it. */
  list(filter?: SuspensionFilter): Promise<SuspensionSummary[]>;
  /**
   * Deletes `done`, `failed` and `cancelled` runs finished at or before the cutoff, with their
   * requests, journals and events; returns how many.
   */
  prune(options: PruneOptions): Promise<number>;
  /**
   * Hands out the reminders and escalations due at `now` whose request still waits, marking
   * them fired in the same statement: each is handed to one caller, across processes and
   * restarts (see {@link RunStore.claimDue}).
   */
  claimDue(options: ClaimDueOptions): Promise<DueTimer[]>;
  /** Runs, newest change first (see {@link RunStore.listRuns}); plain columns only. */
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  /**
   * Makes a `failed` run `ready` for any worker, its failure count reset, and tells the
   * listening workers (see {@link RunStore.retry}).
   */
  retry(runId: string): Promise<RetryReceipt>;
  /** The journal of the run's step in flight, in the order written. */
  readJournal(runId: string): Promise<JournalEntry[]>;
  /**
   * Appends the loop's events to the run the lease holds (see {@link RunStore.appendEvents}),
   * fenced like every worker write. Returns the offset of the run's last event.
   */
  appendEvents(lease: Lease, events: readonly RunEventInit[]): Promise<number>;
  /** A run's events after offset `after`, oldest first, at most `limit` (default and most 1,000). */
  readEvents(runId: string, after: number, limit?: number): Promise<RecordedRunEvent[]>;
  /**
   * Calls `onEvent` soon after an event of the run is recorded by any process: LISTEN/NOTIFY on
   * the store's one listening connection (shared with {@link subscribe}; it listens again after a
   * restart or a killed backend, and wakes every watcher then), plus a slow poll
   * (`eventsPollMs`) as a safety net. Returns an unsubscribe function.
   */
  watchEvents(runId: string, onEvent: () => void): () => void;
  /** Cancels a run and its sub-agents' runs (see {@link RunStore.cancel}), in one transaction. */
  cancel(runId: string, request?: CancelRequest): Promise<CancelReceipt>;
  /**
   * Calls `onReady` soon after a run may have become claimable anywhere (an answer recorded, a
   * run released or halted ready), through LISTEN/NOTIFY on a connection of its own that
   * reconnects by itself. Runs whose lease or deadline ran out are found by the worker's poll.
   */
  subscribe(onReady: () => void): () => void;
  /** Stores `messages` as the transcript of `sessionId`, replacing any earlier one. */
  save(sessionId: string, messages: readonly Message[]): Promise<void>;
  /** The transcript saved for `sessionId`, or `undefined` for a session never saved. */
  load(sessionId: string): Promise<Message[] | undefined>;
  /** Forgets the transcript of `sessionId`; returns whether there was one. */
  deleteConversation(sessionId: string): Promise<boolean>;
  /**
   * Creates or upgrades the schema now (every other call does it on first use). Run it ahead of
   * a deploy, as a user allowed to create tables in the schema; several processes may run it at
   * once. Refuses a schema from a newer release (`store_schema`).
   */
  migrate(): Promise<{ from: number; to: number }>;
  /** Stops listening and ends the store's own pool (not one it was given). Idempotent. */
  close(): Promise<void>;
}

/** A libpq keyword/value string (`host=db dbname=app`): no scheme, not a socket path. */
function isKeywordValue(text: string): boolean {
  return (
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !text.startsWith("/") && /^\s*\w+\s*=/.test(text)
  );
}

/**
 * Opens a durable run and conversation store on PostgreSQL. Nothing connects until the first
 * call, which also creates the schema when needed.
 *
 * @example
 * ```ts
 * const store = postgresStore({ connectionString: process.env.DATABASE_URL! });
 * const client = createClient({ model, tools, runs: store, conversations: store });
 * ```
 */
export function postgresStore(
  connection: PostgresConnection,
  options: PostgresStoreOptions = {},
): PostgresStore {
  const given = connection as Partial<{ connectionString: unknown; pool: unknown }> | undefined;
  if (typeof given !== "object" || given === null) {
    throw new TypeError("postgresStore(): pass { connectionString } or { pool }");
  }
  let input: ConnectionInput;
  if (given.pool !== undefined) {
    const pool = given.pool as { connect?: unknown; query?: unknown };
    if (typeof pool?.connect !== "function" || typeof pool.query !== "function") {
      throw new TypeError("postgresStore(): pool must be a pg Pool");
    }
    input = { pool: given.pool as pg.Pool };
  } else if (typeof given.connectionString === "string" && given.connectionString !== "") {
    if (isKeywordValue(given.connectionString)) {
      // pg reads URLs only: it would take "host=… dbname=…" as a database name on host "base",
      // and fail later naming a host nobody gave. Not echoed: it holds the password.
      throw new TypeError(
        "postgresStore(): connectionString must be a URL (postgres://user:password@host:5432/database); keyword/value strings (host=… dbname=…) are not read by the pg driver",
      );
    }
    input = { connectionString: given.connectionString };
  } else {
    throw new TypeError(
      "postgresStore(): pass { connectionString } (a postgres:// URL) or { pool } (a pg Pool)",
    );
  }
  const schema = checkSchemaName(options.schema ?? "toolnexus");
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 2) {
    throw new TypeError("postgresStore(): poolSize must be a whole number of at least 2");
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  if (!Number.isFinite(connectTimeoutMs) || connectTimeoutMs < 0) {
    throw new TypeError("postgresStore(): connectTimeoutMs must be zero or more milliseconds");
  }

  const retryTimeoutMs = options.retryTimeoutMs ?? 30_000;
  if (!Number.isFinite(retryTimeoutMs) || retryTimeoutMs < 0) {
    throw new TypeError("postgresStore(): retryTimeoutMs must be zero or more milliseconds");
  }
  const onError = options.onError;
  const eventsPollMs = options.eventsPollMs ?? 5_000;
  if (!Number.isFinite(eventsPollMs) || eventsPollMs <= 0) {
    throw new TypeError("postgresStore(): eventsPollMs must be a positive number of milliseconds");
  }

  const db = openDb(input, schema, { poolSize, connectTimeoutMs, retryTimeoutMs, onError });
  let closed = false;
  let migrated: Promise<{ from: number; to: number }> | undefined;
  const closedError = () =>
    new PostgresStoreError("store_closed", db.where, "the toolnexus store was closed");
  const migrateOnce = () => {
    migrated ??= migrate(db).catch((error: unknown) => {
      // Tried again by the next call (the server may be back, or the grant given).
      migrated = undefined;
      throw error;
    });
    return migrated;
  };
  const ready = async () => {
    if (closed) throw closedError();
    await migrateOnce();
    // A subscription being set up listens before this store writes anything it should hear.
    await notifier.settled();
  };
  const ctx = makeContext(db, ready);
  const runs = runOps(ctx);
  const events = eventOps(ctx, runs.lost);
  const notifier = listener(db, {
    channel: ctx.channel,
    eventsChannel: ctx.eventsChannel,
    onError,
    lastOffsets: events.lastOffsets,
    pollMs: eventsPollMs,
  });
  const requests = requestOps(ctx);
  const conversations = conversationOps(ctx);
  const operations = operationOps(ctx);

  const store: PostgresStore = {
    schema,
    pool: db.pool,
    halt: runs.halt,
    start: runs.start,
    step: runs.step,
    journal: runs.journal,
    renew: runs.renew,
    release: runs.release,
    finish: runs.finish,
    prune: runs.prune,
    claim: claimOp(ctx),
    answer: answerOp(ctx),
    cancel: cancelOp(ctx),
    appendEvents: events.appendEvents,
    readEvents: events.readEvents,
    watchEvents(runId, onEvent) {
      if (closed) throw closedError();
      if (typeof onEvent !== "function") {
        throw new TypeError("watchEvents(): onEvent must be a function");
      }
      return notifier.watch(watchKey(String(runId)), onEvent);
    },
    getRun: requests.getRun,
    getRequest: requests.getRequest,
    list: requests.list,
    listRuns: operations.listRuns,
    retry: operations.retry,
    readJournal: operations.readJournal,
    claimDue: claimDueOp(ctx),
    save: conversations.save,
    load: conversations.load,
    deleteConversation: conversations.deleteConversation,
    subscribe(onReady) {
      if (closed) throw closedError();
      return notifier.subscribe(onReady);
    },
    async migrate() {
      if (closed) throw closedError();
      // Always looks again: an explicit migration reports what it found now. Safe to repeat
      // (under an advisory lock, by version), so tried again while the server is away.
      const result = await db.retrying(() => migrate(db));
      migrated = Promise.resolve(result);
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      await notifier.close();
      await db.end();
    },
  };
  // What the store shows of itself: its schema and server, never the password. The pool (which
  // holds the connection string) is reachable as `store.pool` but not listed.
  const shown = () => ({ schema, target: db.where.target });
  Object.defineProperty(store, "pool", { value: db.pool, enumerable: false });
  Object.defineProperty(store, inspect.custom, {
    value: (_depth: number, opts: object) => `PostgresStore ${inspect(shown(), opts)}`,
    enumerable: false,
  });
  Object.defineProperty(store, "toJSON", { value: shown, enumerable: false });
  // Ids PostgreSQL text could not keep exactly (NUL, unpaired surrogates) are refused, as in
  // every store.
  return guardStoreIds(store, "async");
}
