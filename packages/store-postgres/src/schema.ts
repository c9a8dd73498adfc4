import { createHash } from "node:crypto";
import type { Db } from "./connection.js";
import { PostgresStoreError } from "./errors.js";

/**
 * The schema version this release creates and reads, kept in the `migrations` table of the
 * store's schema. A schema at a higher version was written by a newer release and is refused.
 */
export const SCHEMA_VERSION = 2;

/** A schema name the store accepts: a plain PostgreSQL identifier. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `postgresStore(): schema must be a plain identifier (letters, digits and _, not starting with a digit, at most 63 characters), got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** The schema name quoted for SQL. */
export const quote = (schema: string): string => `"${schema}"`;

/**
 * The tables of schema version 1, in schema `s`.
 *
 * Ids can be any length, so rows are keyed by the SHA-256 of the id (`run_key`, `request_key`,
 * `session_key`: `sha256(convert_to(id, 'UTF8'))` in SQL) and the id itself is a plain column.
 * Times the clients compare are epoch milliseconds (`bigint`); JSON is kept as `text`, exactly
 * as written.
 *
 * `runs.state` is `waiting | ready | running | done | failed`; `expired` is derived on read
 * from `wake_ms` (it depends on the clock, not on a write). `claim_ms` is when the run became
 * (or becomes) claimable: `ready_ms` for a ready run (when it became ready, or its retry time),
 * `wake_ms` for a waiting one (its earliest request deadline), `lease_expires_ms` for a running
 * one. One partial index on it makes a worker's claim a single index range scan.
 */
function version1(s: string): string {
  return `
  CREATE SEQUENCE ${s}.halts;

  CREATE TABLE ${s}.runs (
    run_key           bytea PRIMARY KEY,
    run_id            text NOT NULL,
    session_id        text,
    agent             text,
    state             text NOT NULL
                      CHECK (state IN ('waiting', 'ready', 'running', 'done', 'failed')),
    created_at        text NOT NULL,
    updated_ms        bigint NOT NULL,
    owner             text,
    token             integer NOT NULL DEFAULT 0,
    lease_expires_ms  bigint,
    ready_ms          bigint,
    wake_ms           bigint,
    failures          integer NOT NULL DEFAULT 0,
    error_json        text,
    checkpoint_json   text,
    result_json       text,
    finished_ms       bigint,
    claim_ms          bigint GENERATED ALWAYS AS (
                        CASE state WHEN 'ready' THEN ready_ms
                                   WHEN 'waiting' THEN wake_ms
                                   WHEN 'running' THEN lease_expires_ms END) STORED
  );
  CREATE INDEX runs_claimable ON ${s}.runs (claim_ms) WHERE claim_ms IS NOT NULL;
  CREATE INDEX runs_claimable_by_agent ON ${s}.runs (agent, claim_ms) WHERE claim_ms IS NOT NULL;
  CREATE INDEX runs_finished ON ${s}.runs (finished_ms) WHERE state IN ('done', 'failed');

  CREATE TABLE ${s}.requests (
    request_key   bytea NOT NULL,
    run_key       bytea NOT NULL REFERENCES ${s}.runs (run_key) ON DELETE CASCADE,
    seq           bigint GENERATED ALWAYS AS IDENTITY,
    request_id    text NOT NULL,
    run_id        text NOT NULL,
    halt_no       bigint NOT NULL,
    position      integer,
    state         text NOT NULL CHECK (state IN ('waiting', 'answered', 'applied')),
    session_key   bytea,
    session_id    text,
    agent         text,
    kind          text NOT NULL,
    prompt        text NOT NULL,
    request_json  text NOT NULL,
    created_at    text NOT NULL,
    expires_at    text,
    expires_ms    bigint,
    answer_json   text,
    answered_ms   bigint,
    PRIMARY KEY (request_key, run_key)
  );
  CREATE INDEX requests_by_request ON ${s}.requests (request_key, halt_no DESC);
  CREATE INDEX requests_by_run ON ${s}.requests (run_key, position);
  CREATE INDEX requests_by_halt ON ${s}.requests (halt_no DESC, seq);
  CREATE INDEX requests_by_state ON ${s}.requests (state, halt_no DESC, seq);
  CREATE INDEX requests_by_session ON ${s}.requests (session_key, halt_no DESC, seq);

  CREATE TABLE ${s}.journal (
    run_key  bytea NOT NULL REFERENCES ${s}.runs (run_key) ON DELETE CASCADE,
    seq      bigint GENERATED ALWAYS AS IDENTITY,
    json     text NOT NULL,
    PRIMARY KEY (run_key, seq)
  );

  CREATE TABLE ${s}.conversations (
    session_key  bytea PRIMARY KEY,
    session_id   text NOT NULL,
    json         text NOT NULL,
    updated_ms   bigint NOT NULL
  );
`;
}

/**
 * Version 2: run events, who answered, cancel.
 *
 * - `runs.state` may be `cancelled`; `cancel_json` keeps who asked, why and when (set while a
 *   cancel is asked of a running run, kept once it ended cancelled); `events_last` is the offset
 *   of the run's last event. Writers of events update it on the run row, which locks the row:
 *   concurrent writers take offsets one after the other, without gaps, in their transaction.
 * - `requests.state` may be `cancelled`; `answered_by` keeps who answered (the time is the
 *   existing `answered_ms`).
 * - `events`: one row per event, keyed by the run's key (the digest of its id, as every table
 *   here: an id of any length) and its offset. The data is JSON kept as `text`, exactly as
 *   written: `jsonb` would refuse a `\u0000` in a tool's output and reorder keys.
 */
function version2(s: string): string {
  return `
  ALTER TABLE ${s}.runs DROP CONSTRAINT runs_state_check;
  ALTER TABLE ${s}.runs ADD CONSTRAINT runs_state_check
    CHECK (state IN ('waiting', 'ready', 'running', 'done', 'failed', 'cancelled'));
  ALTER TABLE ${s}.runs ADD COLUMN cancel_json text;
  ALTER TABLE ${s}.runs ADD COLUMN events_last bigint NOT NULL DEFAULT 0;
  DROP INDEX ${s}.runs_finished;
  CREATE INDEX runs_finished ON ${s}.runs (finished_ms)
    WHERE state IN ('done', 'failed', 'cancelled');

  ALTER TABLE ${s}.requests DROP CONSTRAINT requests_state_check;
  ALTER TABLE ${s}.requests ADD CONSTRAINT requests_state_check
    CHECK (state IN ('waiting', 'answered', 'applied', 'cancelled'));
  ALTER TABLE ${s}.requests ADD COLUMN answered_by text;

  CREATE TABLE ${s}.events (
    run_key   bytea NOT NULL REFERENCES ${s}.runs (run_key) ON DELETE CASCADE,
    "offset"  bigint NOT NULL,
    run_id    text NOT NULL,
    at_ms     bigint NOT NULL,
    type      text NOT NULL,
    data      text NOT NULL,
    PRIMARY KEY (run_key, "offset")
  );
`;
}

/** `MIGRATIONS[n - 1]` brings a schema from version n - 1 to n. */
export const MIGRATIONS: readonly ((s: string) => string)[] = [version1, version2];

/** The advisory lock every migrating process of one schema takes, so exactly one migrates. */
function lockKey(schema: string): string {
  return createHash("sha256")
    .update(`toolnexus-store-postgres:${schema}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // undefined_table, invalid_schema_name
  return code === "42P01" || code === "3F000";
}

function refuseNewer(db: Db, found: number): never {
  throw new PostgresStoreError(
    "store_schema",
    db.where,
    `the toolnexus schema "${db.where.schema}" in ${db.where.target} is at version ${found}, but this release of @toolnexus/store-postgres reads up to version ${SCHEMA_VERSION}; upgrade @toolnexus/store-postgres (nothing was changed)`,
  );
}

/** The schema's version, or 0 when it has no store tables yet. */
async function currentVersion(db: Db): Promise<number> {
  try {
    const { rows } = await db.run<{ version: number | null }>({
      text: `SELECT max(version) AS version FROM ${quote(db.where.schema)}.migrations`,
    });
    return rows[0]?.version ?? 0;
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
}

/**
 * Brings the store's schema up to {@link SCHEMA_VERSION}: nothing to do when it is there (one
 * read, no lock, no privilege beyond SELECT); otherwise, in one transaction under an advisory
 * lock, creates the schema and applies each missing version, so processes starting at once do
 * not race and a failure leaves the database as it was. Refuses a schema from a newer release.
 */
export async function migrate(db: Db): Promise<{ from: number; to: number }> {
  const seen = await currentVersion(db);
  if (seen > SCHEMA_VERSION) refuseNewer(db, seen);
  if (seen === SCHEMA_VERSION) return { from: seen, to: seen };
  const { schema } = db.where;
  const s = quote(schema);
  return db.tx(async (run) => {
    await run({ text: "SELECT pg_advisory_xact_lock($1::bigint)", values: [lockKey(schema)] });
    // Read again under the lock: another process may have migrated meanwhile.
    const exists = await run<{ n: number }>({
      text: "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1",
      values: [schema],
    });
    if (exists.rows[0]!.n === 0) await run({ text: `CREATE SCHEMA ${s}` });
    await run({
      text: `CREATE TABLE IF NOT EXISTS ${s}.migrations (
               version     integer PRIMARY KEY,
               applied_at  timestamptz NOT NULL DEFAULT now(),
               applied_by  text NOT NULL DEFAULT current_user
             )`,
    });
    const found = await run<{ version: number | null }>({
      text: `SELECT max(version) AS version FROM ${s}.migrations`,
    });
    const current = found.rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) refuseNewer(db, current);
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await run({ text: MIGRATIONS[version - 1]!(s) });
      await run({
        text: `INSERT INTO ${s}.migrations (version) VALUES ($1)`,
        values: [version],
      });
    }
    return { from: current, to: SCHEMA_VERSION };
  });
}
