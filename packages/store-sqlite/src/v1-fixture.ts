import { currentDriver } from "./driver-select.js";

/**
 * Test fixture: the schema version 1 files were created with (copied verbatim from the release
 * that wrote them), so the migration is tested against a real v1 file, not against whatever the
 * current code would create.
 */
export const V1_SCHEMA = `
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
`;

/** A request as v1 stored it. */
export interface V1Request {
  id: string;
  kind: string;
  prompt: string;
  expiresAt?: string;
  [key: string]: unknown;
}

/** A checkpoint in the version 1 format (`version: 1`, an `id` per halt, `createdAt` = halt time). */
export function v1Checkpoint(
  init: { id: string; runId: string; requests: V1Request[]; deadlines?: (string | undefined)[] },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { requests, deadlines = [] } = init;
  return {
    version: 1,
    id: init.id,
    runId: init.runId,
    createdAt: new Date().toISOString(),
    messages: [
      { role: "user", content: "deploy it" },
      {
        role: "assistant",
        id: "msg_1",
        content: "",
        toolCalls: requests.map((r) => ({
          id: `call_${r.id}`,
          name: "ask_user",
          args: { question: r.prompt },
          rawArgs: JSON.stringify({ question: r.prompt }),
        })),
      },
      ...requests.map((r) => ({
        role: "tool",
        callId: `call_${r.id}`,
        name: "ask_user",
        content: r.prompt,
        isError: true,
      })),
    ],
    pending: requests.map((r, i) => ({
      request: r,
      callId: `call_${r.id}`,
      tool: "ask_user",
      args: { question: r.prompt },
      fingerprint: `ask_user:${r.prompt}`,
      approval: false,
      slot: 2 + i,
      ...(deadlines[i] === undefined ? {} : { deadline: deadlines[i] }),
    })),
    turns: 1,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    ...extra,
  };
}

/** Creates a version 1 store file at `path`, exactly as the v1 release did on first open. */
export function createV1File(path: string): void {
  const db = currentDriver().open(path);
  db.pragma("journal_mode = WAL");
  db.exec(V1_SCHEMA);
  db.pragma("user_version = 1");
  db.close();
}

const toMs = (iso: unknown): number | null => {
  if (typeof iso !== "string") return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

/**
 * Writes a v1 checkpoint row and its request rows the way the v1 store's `save` did; `resumedMs`
 * marks it claimed. `json` overrides the stored JSON (to store a corrupt row).
 */
export function insertV1Checkpoint(
  path: string,
  checkpoint: Record<string, unknown>,
  options: { resumedMs?: number; json?: string } = {},
): void {
  const db = currentDriver().open(path);
  const createdMs = toMs(checkpoint.createdAt) ?? Date.now();
  const sessionId = (checkpoint.sessionId as string | undefined) ?? null;
  const agent = (checkpoint.agent as string | undefined) ?? null;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO checkpoints (id, run_id, session_id, agent, state, created_at, created_ms,
         resumed_ms, json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      checkpoint.id,
      checkpoint.runId,
      sessionId,
      agent,
      options.resumedMs === undefined ? "pending" : "resumed",
      checkpoint.createdAt,
      createdMs,
      options.resumedMs ?? null,
      options.json ?? JSON.stringify(checkpoint),
    );
    const pending = checkpoint.pending as {
      request: V1Request;
      deadline?: string;
    }[];
    pending.forEach((call, position) => {
      const expiresAt = call.deadline ?? call.request.expiresAt;
      db.prepare(
        `INSERT INTO requests (checkpoint_id, position, request_id, session_id, agent, kind, prompt,
           created_ms, expires_at, expires_ms, request_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        checkpoint.id,
        position,
        call.request.id,
        sessionId,
        agent,
        call.request.kind,
        call.request.prompt,
        createdMs,
        expiresAt ?? null,
        toMs(expiresAt),
        JSON.stringify(call.request),
      );
    });
  })();
  db.close();
}
