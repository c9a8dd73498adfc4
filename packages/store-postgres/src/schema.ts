import { createHash } from "node:crypto";
import type { Db } from "./connection.js";
import { PostgresStoreError } from "./errors.js";
import { timersSchema } from "./timers-schema.js";

/**
 * The schema version this release creates and reads, kept in the `migrations` table of the
 * store's schema. A schema at a higher version was written by a newer release and is refused.
 */
export const SCHEMA_VERSION = 4;

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

/** A `claim_lock` branch: the run row `where` picks, locked, into the function's OUT columns. */
function lockRun(s: string, where: string, then: string): string {
  return `SELECT r.run_key, r.run_id, r.session_id, r.agent, r.state, r.created_at, r.updated_ms,
             r.owner, r.token, r.lease_expires_ms, r.ready_ms, r.wake_ms, r.failures,
             r.error_json, r.checkpoint_json, r.result_json, r.cancel_json
        INTO run_key, run_id, session_id, agent, state, created_at, updated_ms, owner, token,
             lease_expires_ms, ready_ms, wake_ms, failures, error_json, checkpoint_json,
             result_json, cancel_json
        FROM ${s}.runs r WHERE ${where} ${then === "" ? "FOR NO KEY UPDATE" : then};`;
}

/**
 * Schema version 3: `halt_run`, a run's halt in one call (one round trip, its own transaction).
 * Its statements run in order, each seeing what the ones before it and every transaction that
 * committed meanwhile wrote (a function's statements take fresh snapshots): the run row is
 * locked first (fenced by the lease, or inserted for a new run), so an answer being recorded
 * either committed before (and is seen as answered) or waits for this halt's commit. It returns
 * `o_state`: `waiting` or `ready`, or `exists` (a new run's id is taken) or `lost` (the lease no
 * longer holds), which wrote nothing; and `o_cancel`, the cancel asked of the run while it ran,
 * when it ended `cancelled` instead.
 *
 * And `claim_lock`: a claim's lock and reads in one call, inside the claim's transaction. It locks
 * the run (by key, or the one claimable longest, skipping rows others hold), then reads the
 * clock, the journal and the recorded answers after the lock; no row (all nulls) when nothing is
 * claimable.
 */
function version3(s: string): string {
  const now = "(floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint";
  // p_agent_mode: 0 any agent, 1 runs without one, 2 the runs of p_agent (each query its index).
  const claimable = `r.claim_ms IS NOT NULL AND r.claim_ms <= ${now}`;
  const next = "ORDER BY r.claim_ms LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED";
  return `
  CREATE FUNCTION ${s}.halt_run(
    p_run_key bytea, p_run_id text, p_session_key bytea, p_session_id text, p_agent text,
    p_created_at text, p_json text, p_owner text, p_token integer, p_asked_at text,
    p_keys bytea[], p_ids text[], p_positions integer[], p_kinds text[], p_prompts text[],
    p_requests text[], p_expires_at text[], p_expires_ms bigint[],
    p_event_types text[], p_event_data text[], p_channel text, p_events_channel text,
    OUT o_state text, OUT o_cancel text)
  LANGUAGE plpgsql AS $halt$
  DECLARE
    v_answered boolean;
    v_last bigint;
    v_run_id text;
    v_data text;
  BEGIN
    IF p_owner IS NULL THEN
      INSERT INTO ${s}.runs (run_key, run_id, session_id, agent, state, created_at, updated_ms,
        checkpoint_json)
      VALUES (p_run_key, p_run_id, p_session_id, p_agent, 'waiting', p_created_at, ${now}, p_json)
      ON CONFLICT (run_key) DO NOTHING;
      IF NOT FOUND THEN o_state := 'exists'; RETURN; END IF;
    ELSE
      SELECT r.cancel_json INTO o_cancel FROM ${s}.runs r
       WHERE r.run_key = p_run_key AND r.owner = p_owner AND r.token = p_token
         AND r.state = 'running'
       FOR NO KEY UPDATE;
      IF NOT FOUND THEN o_state := 'lost'; RETURN; END IF;
    END IF;
    -- One number per halt orders requests newest first, whatever the clocks of the machines. A
    -- request the run already has keeps its state (an answer may have arrived while the run
    -- ran); only what describes it is refreshed.
    INSERT INTO ${s}.requests (request_key, run_key, request_id, run_id, halt_no, position, state,
      session_key, session_id, agent, kind, prompt, request_json, created_at, expires_at,
      expires_ms)
    SELECT t.k, p_run_key, t.id, p_run_id, h.n, t.position, 'waiting', p_session_key,
      p_session_id, p_agent, t.kind, t.prompt, t.json, p_asked_at, t.expires_at, t.expires_ms
    FROM (SELECT nextval('${s}.halts') AS n) h,
      unnest(p_keys, p_ids, p_positions, p_kinds, p_prompts, p_requests, p_expires_at,
        p_expires_ms) AS t(k, id, position, kind, prompt, json, expires_at, expires_ms)
    ON CONFLICT (request_key, run_key) DO UPDATE SET
      position = excluded.position, kind = excluded.kind, prompt = excluded.prompt,
      request_json = excluded.request_json, expires_at = excluded.expires_at,
      expires_ms = excluded.expires_ms;
    -- Requests this halt no longer waits for were answered by the steps since the last one.
    UPDATE ${s}.requests SET position = NULL, state = 'applied'
     WHERE run_key = p_run_key AND NOT (request_key = ANY (p_keys))
       AND (position IS NOT NULL OR state <> 'applied');
    v_answered := EXISTS (SELECT 1 FROM ${s}.requests
                           WHERE run_key = p_run_key AND position IS NOT NULL
                             AND state = 'answered');
    DELETE FROM ${s}.journal WHERE run_key = p_run_key;
    UPDATE ${s}.runs SET
      state = CASE WHEN v_answered THEN 'ready' ELSE 'waiting' END,
      ready_ms = CASE WHEN v_answered THEN ${now} END,
      checkpoint_json = p_json, updated_ms = ${now}, session_id = p_session_id, agent = p_agent,
      owner = NULL, lease_expires_ms = NULL, failures = 0, error_json = NULL,
      wake_ms = (SELECT min(expires_ms) FROM ${s}.requests
                  WHERE run_key = p_run_key AND state = 'waiting'),
      events_last = events_last + cardinality(p_event_types)
    WHERE run_key = p_run_key
    RETURNING state, events_last, run_id INTO o_state, v_last, v_run_id;
    IF o_state = 'ready' THEN PERFORM pg_notify(p_channel, ''); END IF;
    INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
    SELECT p_run_key, v_last - cardinality(p_event_types) + t.n, v_run_id, ${now}, t.type, t.data
      FROM unnest(p_event_types, p_event_data) WITH ORDINALITY AS t(type, data, n);
    PERFORM pg_notify(p_events_channel, encode(p_run_key, 'hex'));
    IF o_cancel IS NULL THEN RETURN; END IF;
    -- Asked to stop while it ran: it stops here, its requests never to be answered.
    BEGIN
      v_data := (SELECT jsonb_strip_nulls(jsonb_build_object(
                   'by', CASE WHEN jsonb_typeof(c -> 'by') = 'string' THEN c ->> 'by' END,
                   'reason', CASE WHEN jsonb_typeof(c -> 'reason') = 'string'
                                  THEN c ->> 'reason' END))::text
                   FROM (SELECT o_cancel::jsonb AS c) x);
    EXCEPTION WHEN others THEN
      v_data := '{}';
    END;
    UPDATE ${s}.runs SET state = 'cancelled', owner = NULL, lease_expires_ms = NULL,
      ready_ms = NULL, wake_ms = NULL, finished_ms = ${now}, updated_ms = ${now},
      events_last = events_last + 1
    WHERE run_key = p_run_key RETURNING events_last INTO v_last;
    UPDATE ${s}.requests SET state = 'cancelled'
     WHERE run_key = p_run_key AND state IN ('waiting', 'answered');
    DELETE FROM ${s}.journal WHERE run_key = p_run_key;
    INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
    VALUES (p_run_key, v_last, v_run_id, ${now}, 'cancelled', v_data);
  END
  $halt$;

  CREATE FUNCTION ${s}.claim_lock(p_run_key bytea, p_agent_mode integer, p_agent text,
    OUT run_key bytea, OUT run_id text, OUT session_id text, OUT agent text, OUT state text,
    OUT created_at text, OUT updated_ms bigint, OUT owner text, OUT token integer,
    OUT lease_expires_ms bigint, OUT ready_ms bigint, OUT wake_ms bigint, OUT failures integer,
    OUT error_json text, OUT checkpoint_json text, OUT result_json text, OUT cancel_json text,
    OUT now_ms bigint, OUT journal text[], OUT answer_ids text[], OUT answers text[])
  LANGUAGE plpgsql AS $claim$
  #variable_conflict use_column
  DECLARE
    v_key bytea;
  BEGIN
    IF p_run_key IS NOT NULL THEN
      ${lockRun(s, "r.run_key = p_run_key", "")}
    ELSIF p_agent_mode = 0 THEN
      ${lockRun(s, claimable, next)}
    ELSIF p_agent_mode = 1 THEN
      ${lockRun(s, `${claimable} AND r.agent IS NULL`, next)}
    ELSE
      ${lockRun(s, `${claimable} AND r.agent = p_agent`, next)}
    END IF;
    IF NOT FOUND THEN RETURN; END IF;
    v_key := run_key;
    -- Read after the lock, each statement with a fresh snapshot: every entry a worker whose
    -- lease ran out journaled (under the run's lock) before this claim took the row is here.
    now_ms := ${now};
    journal := ARRAY(SELECT j.json FROM ${s}.journal j WHERE j.run_key = v_key ORDER BY j.seq);
    SELECT array_agg(q.request_id ORDER BY q.seq), array_agg(q.answer_json ORDER BY q.seq)
      INTO answer_ids, answers
      FROM ${s}.requests q
     WHERE q.run_key = v_key AND q.state = 'answered' AND q.answer_json IS NOT NULL;
  END
  $claim$;
`;
}

/** `MIGRATIONS[n - 1]` brings a schema from version n - 1 to n. */
export const MIGRATIONS: readonly ((s: string) => string)[] = [
  version1,
  version2,
  version3,
  // Reminders and escalations of waiting requests (due.ts).
  timersSchema,
];

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
