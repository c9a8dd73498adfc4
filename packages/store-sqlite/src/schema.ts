import type { Db, Driver, SqliteDriverName } from "./driver.js";
import { currentDriver } from "./driver-select.js";
import { TIMERS_SCHEMA } from "./due.js";
import { SqliteStoreError } from "./errors.js";
import { isOnDisk, prepareFile } from "./files.js";
import { migrateV1 } from "./migrate-v1.js";
import { migrateV2, RUNS_SCHEMA_V2 } from "./migrate-v2.js";

/**
 * The schema version this release creates and reads, kept in the file's `PRAGMA user_version`.
 * A file with a higher version was written by a newer release and is refused.
 */
export const SCHEMA_VERSION = 4;

/**
 * The tables of durable runs (schema version 3), created as is on a new file and by the
 * migration from version 2 (version 1 files go through version 2 first).
 *
 * `runs.state` is stored as `waiting | ready | running | done | failed`; `expired` is never stored
 * but derived on read from `wake_ms` (it depends on the clock, not on a write). Three columns make
 * finding a claimable run one index lookup per kind: `ready_ms` (a ready run is offered from then
 * on: when it became ready, or its retry time), `wake_ms` (the earliest deadline of its waiting
 * requests) and `lease_expires_ms`.
 */
export const RUNS_SCHEMA = `
  CREATE TABLE runs (
    run_id            TEXT PRIMARY KEY,
    session_id        TEXT,
    agent             TEXT,
    state             TEXT NOT NULL
                      CHECK (state IN ('waiting', 'ready', 'running', 'done', 'failed',
                                       'cancelled')),
    created_at        TEXT NOT NULL,
    updated_ms        INTEGER NOT NULL,
    owner             TEXT,
    token             INTEGER NOT NULL DEFAULT 0,
    lease_expires_ms  INTEGER,
    ready_ms          INTEGER,
    wake_ms           INTEGER,
    failures          INTEGER NOT NULL DEFAULT 0,
    error_json        TEXT,
    checkpoint_json   TEXT,
    result_json       TEXT,
    finished_ms       INTEGER,
    cancel_by         TEXT,
    cancel_reason     TEXT,
    cancel_at         TEXT
  );
  CREATE INDEX runs_by_ready ON runs (state, ready_ms);
  CREATE INDEX runs_by_wake ON runs (state, wake_ms);
  CREATE INDEX runs_by_lease ON runs (state, lease_expires_ms);
  CREATE INDEX runs_by_finished ON runs (state, finished_ms);

  CREATE TABLE requests (
    request_id    TEXT NOT NULL,
    run_id        TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    halt_no       INTEGER NOT NULL,
    position      INTEGER,
    state         TEXT NOT NULL
                  CHECK (state IN ('waiting', 'answered', 'applied', 'cancelled')),
    session_id    TEXT,
    agent         TEXT,
    kind          TEXT NOT NULL,
    prompt        TEXT NOT NULL,
    request_json  TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    expires_at    TEXT,
    expires_ms    INTEGER,
    answer_json   TEXT,
    answered_ms   INTEGER,
    answered_by   TEXT,
    PRIMARY KEY (request_id, run_id)
  );
  CREATE INDEX requests_by_halt ON requests (halt_no);
  CREATE INDEX requests_by_run ON requests (run_id, state);
  CREATE INDEX requests_by_state ON requests (state, halt_no);
  CREATE INDEX requests_by_session ON requests (session_id, halt_no);

  CREATE TABLE journal (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id  TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    json    TEXT NOT NULL
  );
  CREATE INDEX journal_by_run ON journal (run_id, seq);

  CREATE TABLE events (
    run_id    TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    "offset"  INTEGER NOT NULL,
    at        TEXT NOT NULL,
    type      TEXT NOT NULL,
    data      TEXT NOT NULL,
    PRIMARY KEY (run_id, "offset")
  ) WITHOUT ROWID;
`;

const CONVERSATIONS = `
  CREATE TABLE conversations (
    session_id  TEXT PRIMARY KEY,
    json        TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL
  );
`;

/** Upgrades an existing file by one version: `UPGRADES[n]` moves version n to n + 1. */
const UPGRADES: Readonly<Record<number, (db: Db) => void>> = {
  // Suspensions became durable runs.
  1: (db) => migrateV1(db, RUNS_SCHEMA_V2),
  // Run events, who answered, and cancel.
  2: (db) => migrateV2(db, RUNS_SCHEMA),
  // Reminders and escalations of waiting requests: a table of their own, nothing else changes.
  3: (db) => db.exec(TIMERS_SCHEMA),
};

/** How the database file is opened. */
export interface OpenOptions {
  path: string;
  busyTimeoutMs: number;
  synchronous: "full" | "normal";
  /** The permissions of the files created, and the most an existing one keeps. */
  fileMode: number;
}

/** An open store database and the binding it runs on. */
export interface OpenDatabase {
  db: Db;
  driver: SqliteDriverName;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Opens (creating when needed) the store's database file in WAL mode with a busy timeout, and
 * brings its schema up to {@link SCHEMA_VERSION}. Refuses a file from a newer release.
 */
export function openDatabase(options: OpenOptions): OpenDatabase {
  const { path } = options;
  let driver: Driver;
  let db: Db;
  try {
    driver = currentDriver();
    // Created owner-only before SQLite sees it: SQLite would make it 0644 under the usual umask,
    // and its -wal and -shm copy the database file's permissions.
    if (isOnDisk(path)) prepareFile(path, options.fileMode);
    db = driver.open(path, { timeoutMs: options.busyTimeoutMs });
  } catch (cause) {
    throw new SqliteStoreError(
      "store_open",
      path,
      `cannot open the toolnexus store at "${path}": ${describe(cause)}`,
      { cause },
    );
  }
  try {
    // WAL lets readers run beside a writer; a busy timeout makes a second process wait for the
    // write lock instead of failing with SQLITE_BUSY.
    enterWal(db, options.busyTimeoutMs);
    db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.pragma("foreign_keys = ON");
    // better-sqlite3's own default (16 MB), so both drivers cache alike; node:sqlite's is 2 MB.
    db.pragma("cache_size = -16000");
    migrate(db, path);
    return { db, driver: driver.name };
  } catch (cause) {
    db.close();
    if (cause instanceof SqliteStoreError) throw cause;
    throw new SqliteStoreError(
      "store_open",
      path,
      `cannot use "${path}" as a toolnexus store: ${describe(cause)}`,
      { cause },
    );
  }
}

/**
 * SQLITE_BUSY or one of its extended codes from either driver: better-sqlite3's `code`
 * ("SQLITE_BUSY", "SQLITE_BUSY_RECOVERY", ...), node:sqlite's numeric `errcode` (5 in its low byte).
 */
function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (typeof e?.code === "string" && /^SQLITE_BUSY(_|$)/.test(e.code)) return true;
  if (typeof e?.errcode === "number") return (e.errcode & 0xff) === 5;
  return typeof e?.message === "string" && e.message.includes("database is locked");
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Puts the file in WAL mode. When several processes do it to a new file at once, SQLite may
 * answer SQLITE_BUSY at once instead of waiting: it skips the busy handler where waiting could
 * deadlock (one connection holds a read lock while another waits to write). So a busy answer is
 * tried again after a short pause, until the busy timeout has passed.
 */
function enterWal(db: Db, timeoutMs: number): void {
  const until = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= until) throw error;
      // Staggered, so processes that collided do not collide again in step.
      Atomics.wait(pause, 0, 0, Math.min(50, 2 * attempt) + Math.random() * 5);
    }
  }
}

function userVersion(db: Db): number {
  return db.pragma("user_version", { simple: true }) as number;
}

function migrate(db: Db, path: string): void {
  const refuseNewer = (found: number): never => {
    throw new SqliteStoreError(
      "store_schema",
      path,
      `the toolnexus store at "${path}" has schema version ${found}, but this release of @toolnexus/store-sqlite reads up to version ${SCHEMA_VERSION}; upgrade @toolnexus/store-sqlite (the file was not changed)`,
    );
  };
  const seen = userVersion(db);
  if (seen > SCHEMA_VERSION) refuseNewer(seen);
  if (seen === SCHEMA_VERSION) return;
  // IMMEDIATE takes the write lock first, so two processes opening a new (or old) file at once
  // do not both migrate it: the second waits, then finds the work done. Any failure rolls the
  // whole migration back, leaving the file as it was.
  db.transaction(() => {
    const current = userVersion(db);
    if (current > SCHEMA_VERSION) refuseNewer(current);
    if (current === SCHEMA_VERSION) return;
    // A new file skips straight to the current schema; an old one walks every step from its own.
    if (current === 0) db.exec(RUNS_SCHEMA + CONVERSATIONS + TIMERS_SCHEMA);
    else for (let version = current; version < SCHEMA_VERSION; version++) UPGRADES[version]!(db);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
