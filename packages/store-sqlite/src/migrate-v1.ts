import type { Db } from "./driver.js";

/** A v1 `checkpoints` row (one per halt), with its rowid as the halt's order. */
interface V1Checkpoint {
  halt_no: number;
  id: string;
  run_id: string;
  session_id: string | null;
  agent: string | null;
  state: "pending" | "resumed";
  created_at: string;
  created_ms: number;
  resumed_ms: number | null;
  json: string;
}

/** A v1 `requests` row (one per pending call of a halt). */
interface V1Request {
  position: number;
  request_id: string;
  session_id: string | null;
  agent: string | null;
  kind: string;
  prompt: string;
  expires_at: string | null;
  expires_ms: number | null;
  request_json: string;
}

/** What a v1 run that was resumed becomes: its outcome was never recorded. */
export const MIGRATED_ERROR = {
  code: "migrated",
  message:
    "this run was resumed by an earlier release of toolnexus, before runs were durable; its outcome is unknown",
};

/**
 * Version 1 checkpoint JSON to version 2: the per-halt `id` is gone (a run is keyed by its
 * runId now), everything else is kept as it was. JSON that does not parse is kept verbatim, so
 * nothing is lost: reading the run then fails with a `CheckpointError` naming it.
 */
function convertCheckpoint(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return json;
  const { id: _id, ...rest } = value as Record<string, unknown>;
  return JSON.stringify({ ...rest, version: 2 });
}

/**
 * Moves a version 1 file (one checkpoint row per halt, `pending` or `resumed`) to version 2 (one
 * run row per run), inside the caller's IMMEDIATE transaction, losing nothing:
 *
 * - a run whose newest halt is still `pending` becomes a `waiting` run with that checkpoint and
 *   its requests `waiting`;
 * - a run that was only ever `resumed` becomes a `failed` run (lastError code `migrated`), with
 *   its finish time set to when it was resumed, so `prune` can remove it;
 * - the requests of a run's older halts are kept, `applied`, so their ids are still known.
 *
 * `runsSchema` is the version 2 DDL of the runs tables.
 */
export function migrateV1(db: Db, runsSchema: string): void {
  // The v1 tables step aside (their index names are reused by v2), the v2 tables are created,
  // the rows are copied, and the v1 tables are dropped. Conversations are unchanged.
  db.exec(`
    DROP INDEX checkpoints_by_created;
    DROP INDEX checkpoints_by_state;
    DROP INDEX requests_by_id;
    DROP INDEX requests_by_session;
    ALTER TABLE checkpoints RENAME TO v1_checkpoints;
    ALTER TABLE requests RENAME TO v1_requests;
  `);
  db.exec(runsSchema);

  const runIds = db
    .prepare<[], string>(
      "SELECT run_id FROM v1_checkpoints GROUP BY run_id ORDER BY MIN(created_ms), MIN(rowid)",
    )
    .pluck()
    .all();
  // A run's current halt first: its newest pending checkpoint, else its newest one.
  const halts = db.prepare<[string], V1Checkpoint>(
    `SELECT rowid AS halt_no, * FROM v1_checkpoints WHERE run_id = ?
      ORDER BY state = 'pending' DESC, created_ms DESC, rowid DESC`,
  );
  const requestsOf = db.prepare<[string], V1Request>(
    "SELECT * FROM v1_requests WHERE checkpoint_id = ? ORDER BY position",
  );
  const insertRun = db.prepare<
    [
      {
        runId: string;
        sessionId: string | null;
        agent: string | null;
        state: "waiting" | "failed";
        createdAt: string;
        updatedMs: number;
        error: string | null;
        checkpoint: string;
        finishedMs: number | null;
      },
    ]
  >(
    `INSERT INTO runs (run_id, session_id, agent, state, created_at, updated_ms, error_json,
       checkpoint_json, finished_ms)
     VALUES (@runId, @sessionId, @agent, @state, @createdAt, @updatedMs, @error, @checkpoint,
       @finishedMs)`,
  );
  // A request id repeated across a run's halts (a halt again on a still-open request) keeps
  // the row of the current halt, which is inserted first.
  const insertRequest = db.prepare<
    [
      {
        requestId: string;
        runId: string;
        haltNo: number;
        position: number | null;
        state: "waiting" | "applied";
        sessionId: string | null;
        agent: string | null;
        kind: string;
        prompt: string;
        requestJson: string;
        createdAt: string;
        expiresAt: string | null;
        expiresMs: number | null;
      },
    ]
  >(
    `INSERT OR IGNORE INTO requests (request_id, run_id, halt_no, position, state, session_id,
       agent, kind, prompt, request_json, created_at, expires_at, expires_ms)
     VALUES (@requestId, @runId, @haltNo, @position, @state, @sessionId, @agent, @kind, @prompt,
       @requestJson, @createdAt, @expiresAt, @expiresMs)`,
  );
  const setWake = db.prepare<[{ runId: string }]>(
    `UPDATE runs SET wake_ms = (SELECT MIN(expires_ms) FROM requests
                                 WHERE run_id = @runId AND state = 'waiting')
      WHERE run_id = @runId`,
  );

  for (const runId of runIds) {
    const [current, ...older] = halts.all(runId);
    if (current === undefined) continue;
    const waiting = current.state === "pending";
    const resumedMs = current.resumed_ms ?? current.created_ms;
    insertRun.run({
      runId,
      sessionId: current.session_id,
      agent: current.agent,
      state: waiting ? "waiting" : "failed",
      createdAt: current.created_at,
      updatedMs: waiting ? current.created_ms : resumedMs,
      error: waiting
        ? null
        : JSON.stringify({ ...MIGRATED_ERROR, at: new Date(resumedMs).toISOString() }),
      checkpoint: convertCheckpoint(current.json),
      finishedMs: waiting ? null : resumedMs,
    });
    for (const halt of [current, ...older]) {
      const isCurrent = halt === current;
      for (const request of requestsOf.all(halt.id)) {
        insertRequest.run({
          requestId: request.request_id,
          runId,
          haltNo: halt.halt_no,
          // Only the current halt's requests are the run's requests now (RunInfo.requests).
          position: isCurrent ? request.position : null,
          state: isCurrent && waiting ? "waiting" : "applied",
          sessionId: request.session_id,
          agent: request.agent,
          kind: request.kind,
          prompt: request.prompt,
          requestJson: request.request_json,
          createdAt: halt.created_at,
          expiresAt: request.expires_at,
          expiresMs: request.expires_ms,
        });
      }
    }
    if (waiting) setWake.run({ runId });
  }

  db.exec(`
    DROP TABLE v1_requests;
    DROP TABLE v1_checkpoints;
  `);
}
