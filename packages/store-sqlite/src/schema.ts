import Database from "better-sqlite3";
import { SqliteStoreError } from "./errors.js";

/**
 * The schema version this release creates and reads, kept in the file's `PRAGMA user_version`.
 * A file with a higher version was written by a newer release and is refused.
 */
export const SCHEMA_VERSION = 1;

/** Each entry moves a file from version `index` to `index + 1`. */
const MIGRATIONS: readonly string[] = [
  // 0 -> 1: the first schema.
  `
  CREATE TABLE checkpoints (
    id          TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,
    session_id  TEXT,
    agent       TEXT,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'resumed')),
    created_at  TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    resumed_ms  INTEGER,
    json        TEXT NOT NULL
  );
  CREATE INDEX checkpoints_by_created ON checkpoints (created_ms);
  CREATE INDEX checkpoints_by_state ON checkpoints (state, created_ms);

  CREATE TABLE requests (
    checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    request_id    TEXT NOT NULL,
    session_id    TEXT,
    agent         TEXT,
    kind          TEXT NOT NULL,
    prompt        TEXT NOT NULL,
    created_ms    INTEGER NOT NULL,
    expires_at    TEXT,
    expires_ms    INTEGER,
    request_json  TEXT NOT NULL,
    PRIMARY KEY (checkpoint_id, position)
  );
  CREATE INDEX requests_by_id ON requests (request_id);
  CREATE INDEX requests_by_session ON requests (session_id);

  CREATE TABLE conversations (
    session_id  TEXT PRIMARY KEY,
    json        TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL
  );
  `,
];

/** How the database file is opened. */
export interface OpenOptions {
  path: string;
  busyTimeoutMs: number;
  synchronous: "full" | "normal";
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Opens (creating when needed) the store's database file in WAL mode with a busy timeout, and
 * brings its schema up to {@link SCHEMA_VERSION}. Refuses a file from a newer release.
 */
export function openDatabase(options: OpenOptions): Database.Database {
  const { path } = options;
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: options.busyTimeoutMs });
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
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.pragma("foreign_keys = ON");
    migrate(db, path);
    return db;
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

function userVersion(db: Database.Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

function migrate(db: Database.Database, path: string): void {
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
  // IMMEDIATE takes the write lock first, so two processes opening a new file at once do not
  // both create the tables: the second waits, then finds the work done.
  db.transaction(() => {
    const current = userVersion(db);
    if (current > SCHEMA_VERSION) refuseNewer(current);
    for (let version = current; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]!);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
