import {
  AlreadyResumedError,
  assertCheckpoint,
  type Checkpoint,
  CheckpointError,
  type Request,
  type SuspensionFilter,
  SuspensionNotFoundError,
  type SuspensionState,
  type SuspensionSummary,
} from "@toolnexus/core";
import type Database from "better-sqlite3";

/** {@link SuspensionFilter} plus a cap on how many summaries `list` returns. */
export interface SqliteSuspensionFilter extends SuspensionFilter {
  /** Return at most this many summaries (the newest). Unset: all that match. */
  limit?: number;
}

/** What `prune` removes. */
export interface PruneOptions {
  /**
   * Removes halted runs that were resumed at or before this moment: a `Date` is that moment, a
   * number is an age in milliseconds (`7 * 24 * 3600_000`: finished a week ago or earlier; `0`:
   * every finished run).
   */
  olderThan: Date | number;
}

interface CheckpointRow {
  id: string;
  json: string;
}

interface SummaryRow {
  request_id: string;
  kind: string;
  prompt: string;
  request_json: string;
  checkpoint_id: string;
  run_id: string;
  session_id: string | null;
  agent: string | null;
  created_at: string;
  expires_at: string | null;
  expires_ms: number | null;
  state: string;
}

function toMs(iso: unknown): number | null {
  if (typeof iso !== "string") return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

function parseRequestColumn(row: SummaryRow): Request {
  try {
    const value: unknown = JSON.parse(row.request_json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { ...(value as Request), id: row.request_id };
    }
  } catch {
    // Fall through to the indexed columns: a listing never fails on one bad row.
  }
  return { id: row.request_id, kind: row.kind, prompt: row.prompt };
}

/** The suspension half of the store, over an open database. */
export interface SuspensionOps {
  save(checkpoint: Checkpoint): void;
  get(requestId: string): Checkpoint | undefined;
  claim(requestId: string): Checkpoint;
  list(filter?: SqliteSuspensionFilter): SuspensionSummary[];
  prune(options: PruneOptions): number;
}

/** Prepares the statements once and returns the suspension operations. */
export function suspensionOps(db: Database.Database): SuspensionOps {
  const insertCheckpoint = db.prepare<
    [string, string, string | null, string | null, string, number, string]
  >(
    `INSERT INTO checkpoints (id, run_id, session_id, agent, state, created_at, created_ms, json)
     VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
  );
  const existingState = db
    .prepare<[string], string>("SELECT state FROM checkpoints WHERE id = ?")
    .pluck();
  const deleteRequests = db.prepare<[string]>("DELETE FROM requests WHERE checkpoint_id = ?");
  const deleteCheckpoint = db.prepare<[string]>("DELETE FROM checkpoints WHERE id = ?");
  const insertRequest = db.prepare<
    [
      string,
      number,
      string,
      string | null,
      string | null,
      string,
      string,
      number,
      string | null,
      number | null,
      string,
    ]
  >(
    `INSERT INTO requests (checkpoint_id, position, request_id, session_id, agent, kind, prompt,
       created_ms, expires_at, expires_ms, request_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Normally one checkpoint at a time waits on a request id (a run that halts again on the same
  // still-pending request writes a new checkpoint after the old one was claimed); the newest wins.
  const waiting = db.prepare<[string], CheckpointRow>(
    `SELECT c.id AS id, c.json AS json
       FROM requests r JOIN checkpoints c ON c.id = r.checkpoint_id
      WHERE r.request_id = ? AND c.state = 'pending'
      ORDER BY c.created_ms DESC, c.rowid DESC
      LIMIT 1`,
  );
  const known = db
    .prepare<[string], number>("SELECT 1 FROM requests WHERE request_id = ? LIMIT 1")
    .pluck();
  const markResumed = db.prepare<[number, string]>(
    "UPDATE checkpoints SET state = 'resumed', resumed_ms = ? WHERE id = ? AND state = 'pending'",
  );
  const deleteFinishedRequests = db.prepare<[number]>(
    `DELETE FROM requests WHERE checkpoint_id IN (
       SELECT id FROM checkpoints
        WHERE state = 'resumed' AND COALESCE(resumed_ms, created_ms) <= ?)`,
  );
  const deleteFinished = db.prepare<[number]>(
    "DELETE FROM checkpoints WHERE state = 'resumed' AND COALESCE(resumed_ms, created_ms) <= ?",
  );

  // `list` builds its SQL from which filters are set: at most a few dozen shapes, each prepared once.
  const listStatements = new Map<string, Database.Statement<(string | number)[], SummaryRow>>();

  const read = (row: CheckpointRow, requestId: string): Checkpoint => {
    let value: unknown;
    try {
      value = JSON.parse(row.json);
    } catch (cause) {
      throw new CheckpointError(
        requestId,
        `its stored JSON (checkpoint "${row.id}") is corrupt: ${(cause as Error).message}`,
        { cause },
      );
    }
    assertCheckpoint(value, requestId);
    if (!value.pending.some((call) => call.request.id === requestId)) {
      throw new CheckpointError(
        requestId,
        `checkpoint "${row.id}" is indexed under this request but does not list it as pending`,
      );
    }
    return value;
  };

  const saveTx = db.transaction((checkpoint: Checkpoint, json: string) => {
    const previous = existingState.get(checkpoint.id);
    if (previous !== undefined) {
      // Saving a checkpoint id again (a retried write) is idempotent, like the in-memory store:
      // a waiting checkpoint takes the new content, a claimed one is never revived.
      if (previous === "resumed") return;
      deleteRequests.run(checkpoint.id);
      deleteCheckpoint.run(checkpoint.id);
    }
    // assertCheckpoint checks what a resume needs; the indexed columns must not fail on the rest.
    const createdMs = toMs(checkpoint.createdAt) ?? Date.now();
    const createdAt =
      typeof checkpoint.createdAt === "string"
        ? checkpoint.createdAt
        : new Date(createdMs).toISOString();
    const sessionId = checkpoint.sessionId ?? null;
    const agent = checkpoint.agent ?? null;
    insertCheckpoint.run(
      checkpoint.id,
      checkpoint.runId,
      sessionId,
      agent,
      createdAt,
      createdMs,
      json,
    );
    checkpoint.pending.forEach((call, position) => {
      const expiresAt = call.deadline ?? call.request.expiresAt;
      insertRequest.run(
        checkpoint.id,
        position,
        call.request.id,
        sessionId,
        agent,
        String(call.request.kind ?? ""),
        String(call.request.prompt ?? ""),
        createdMs,
        expiresAt ?? null,
        toMs(expiresAt),
        JSON.stringify(call.request),
      );
    });
  });

  const claimTx = db.transaction((requestId: string): Checkpoint => {
    const row = waiting.get(requestId);
    if (row === undefined) {
      if (known.get(requestId) !== undefined) throw new AlreadyResumedError(requestId);
      throw new SuspensionNotFoundError(requestId);
    }
    // Validate before taking it: an unusable checkpoint stays as it was (and the transaction
    // rolls back), so it can be inspected or repaired rather than silently consumed.
    const checkpoint = read(row, requestId);
    // The write lock is held since BEGIN IMMEDIATE, so this cannot lose a race; checking the
    // change count keeps the guarantee even if the transaction mode ever changes.
    if (markResumed.run(Date.now(), row.id).changes !== 1) {
      throw new AlreadyResumedError(requestId);
    }
    return checkpoint;
  });

  const pruneTx = db.transaction((cutoff: number): number => {
    deleteFinishedRequests.run(cutoff);
    return deleteFinished.run(cutoff).changes;
  });

  return {
    save(checkpoint) {
      assertCheckpoint(checkpoint);
      saveTx.immediate(checkpoint, JSON.stringify(checkpoint));
    },

    get(requestId) {
      const row = waiting.get(requestId);
      return row === undefined ? undefined : read(row, requestId);
    },

    claim(requestId) {
      return claimTx.immediate(requestId);
    },

    list(filter = {}) {
      const now = Date.now();
      const where: string[] = [];
      const params: (string | number)[] = [];
      const state: SuspensionState | undefined = filter.state;
      if (state === "resumed") where.push("c.state = 'resumed'");
      else if (state === "pending") {
        where.push("c.state = 'pending' AND (r.expires_ms IS NULL OR r.expires_ms > ?)");
        params.push(now);
      } else if (state === "expired") {
        where.push("c.state = 'pending' AND r.expires_ms <= ?");
        params.push(now);
      } else if (state !== undefined) {
        return [];
      }
      if (filter.sessionId !== undefined) {
        where.push("r.session_id = ?");
        params.push(filter.sessionId);
      }
      if (filter.kind !== undefined) {
        where.push("r.kind = ?");
        params.push(filter.kind);
      }
      let sql = `SELECT r.request_id, r.kind, r.prompt, r.request_json, r.checkpoint_id,
                        c.run_id, r.session_id, r.agent, c.created_at, r.expires_at, r.expires_ms,
                        c.state
                   FROM requests r JOIN checkpoints c ON c.id = r.checkpoint_id`;
      if (where.length > 0) sql += ` WHERE ${where.join(" AND ")}`;
      sql += " ORDER BY c.created_ms DESC, c.rowid DESC, r.position ASC";
      if (filter.limit !== undefined) {
        sql += " LIMIT ?";
        params.push(Math.max(0, Math.floor(filter.limit)));
      }
      let statement = listStatements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<(string | number)[], SummaryRow>(sql);
        listStatements.set(sql, statement);
      }
      const rows = statement.all(...params);
      return rows.map((row) => {
        const expired = row.state === "pending" && row.expires_ms !== null && row.expires_ms <= now;
        const summary: SuspensionSummary = {
          request: parseRequestColumn(row),
          checkpointId: row.checkpoint_id,
          runId: row.run_id,
          createdAt: row.created_at,
          state: expired ? "expired" : row.state === "resumed" ? "resumed" : "pending",
        };
        if (row.session_id !== null) summary.sessionId = row.session_id;
        if (row.agent !== null) summary.agent = row.agent;
        if (row.expires_at !== null) summary.expiresAt = row.expires_at;
        return summary;
      });
    },

    prune({ olderThan }) {
      const valid =
        olderThan instanceof Date
          ? !Number.isNaN(olderThan.getTime())
          : typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0;
      if (!valid) {
        throw new TypeError(
          "prune(): olderThan must be a valid Date or an age of zero or more milliseconds",
        );
      }
      const cutoff = olderThan instanceof Date ? olderThan.getTime() : Date.now() - olderThan;
      return pruneTx.immediate(cutoff);
    },
  };
}
