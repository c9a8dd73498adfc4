import type { Db } from "./driver.js";

/**
 * The version 2 DDL of the runs tables, frozen: the migration from version 1 creates these, then
 * {@link migrateV2} moves them to the current schema.
 */
export const RUNS_SCHEMA_V2 = `
  CREATE TABLE runs (
    run_id            TEXT PRIMARY KEY,
    session_id        TEXT,
    agent             TEXT,
    state             TEXT NOT NULL
                      CHECK (state IN ('waiting', 'ready', 'running', 'done', 'failed')),
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
    finished_ms       INTEGER
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
    state         TEXT NOT NULL CHECK (state IN ('waiting', 'answered', 'applied')),
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
`;

/** The columns version 2 and version 3 share, per table, copied as they are. */
const RUN_COLUMNS = `run_id, session_id, agent, state, created_at, updated_ms, owner, token,
  lease_expires_ms, ready_ms, wake_ms, failures, error_json, checkpoint_json, result_json,
  finished_ms`;
const REQUEST_COLUMNS = `request_id, run_id, halt_no, position, state, session_id, agent, kind,
  prompt, request_json, created_at, expires_at, expires_ms, answer_json, answered_ms`;

/**
 * Moves a version 2 file to version 3 (run events, who answered, cancel), inside the caller's
 * IMMEDIATE transaction, losing nothing. SQLite cannot widen a CHECK constraint in place (runs
 * and requests gain the state `cancelled`), so the three run tables are rebuilt: the old ones
 * step aside (renaming a parent table repoints its children's foreign keys, so no cascade
 * fires), the new ones are created and filled, and the old ones are dropped, children first.
 * Runs of version 2 have no events: a follower of such a run starts at its next one.
 */
export function migrateV2(db: Db, runsSchema: string): void {
  db.exec(`
    DROP INDEX runs_by_ready;
    DROP INDEX runs_by_wake;
    DROP INDEX runs_by_lease;
    DROP INDEX runs_by_finished;
    DROP INDEX requests_by_halt;
    DROP INDEX requests_by_run;
    DROP INDEX requests_by_state;
    DROP INDEX requests_by_session;
    DROP INDEX journal_by_run;
    ALTER TABLE journal RENAME TO v2_journal;
    ALTER TABLE requests RENAME TO v2_requests;
    ALTER TABLE runs RENAME TO v2_runs;
  `);
  db.exec(runsSchema);
  db.exec(`
    INSERT INTO runs (${RUN_COLUMNS}) SELECT ${RUN_COLUMNS} FROM v2_runs;
    INSERT INTO requests (${REQUEST_COLUMNS}) SELECT ${REQUEST_COLUMNS} FROM v2_requests;
    INSERT INTO journal (seq, run_id, json) SELECT seq, run_id, json FROM v2_journal;
    DROP TABLE v2_journal;
    DROP TABLE v2_requests;
    DROP TABLE v2_runs;
  `);
}
