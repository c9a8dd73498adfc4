import type { RequestInfo, RunInfo, SuspensionFilter, SuspensionSummary } from "@toolnexus/core";
import type { Db, Statement } from "./driver.js";
import {
  type RequestRow,
  type RunRow,
  readAnswerLoosely,
  readCancel,
  readCheckpoint,
  readError,
  readRequest,
  readResult,
  requestState,
  runState,
  toIso,
} from "./rows.js";

/** The reads a host makes: a run by id, a request by id, and the inbox listing. */
export interface RequestOps {
  getRun(runId: string): RunInfo | undefined;
  getRequest(requestId: string): RequestInfo | undefined;
  list(filter?: SuspensionFilter): SuspensionSummary[];
}

const REQUEST_COLUMNS = `request_id, run_id, state, kind, prompt, request_json, session_id, agent,
  created_at, expires_at, expires_ms, answer_json, answered_ms, answered_by`;

function requestInfo(row: RequestRow, now: number): RequestInfo {
  const info: RequestInfo = {
    request: readRequest(row),
    runId: row.run_id,
    state: requestState(row, now),
  };
  const answer = readAnswerLoosely(row.answer_json);
  if (answer !== undefined) info.answer = answer;
  if (row.expires_at !== null) info.expiresAt = row.expires_at;
  Object.assign(info, answeredFields(row));
  return info;
}

/** Who answered and when, as requests are read everywhere. */
function answeredFields(row: RequestRow): { answeredBy?: string; answeredAt?: string } {
  const fields: { answeredBy?: string; answeredAt?: string } = {};
  if (row.answered_by !== null) fields.answeredBy = row.answered_by;
  if (row.answered_ms !== null) fields.answeredAt = toIso(row.answered_ms);
  return fields;
}

/** Prepares the statements once and returns the reads. */
export function requestOps(db: Db): RequestOps {
  const runById = db.prepare<[string], RunRow>("SELECT * FROM runs WHERE run_id = ?");
  // The requests of the current (or last) halt carry their position in its pending calls.
  const currentRequests = db.prepare<[string], RequestRow>(
    `SELECT ${REQUEST_COLUMNS} FROM requests
      WHERE run_id = ? AND position IS NOT NULL ORDER BY position`,
  );
  const newestRequest = db.prepare<[string], RequestRow>(
    `SELECT ${REQUEST_COLUMNS} FROM requests WHERE request_id = ? ORDER BY halt_no DESC LIMIT 1`,
  );
  // `list` builds its SQL from which filters are set: a few dozen shapes, each prepared once.
  const listStatements = new Map<string, Statement<(string | number)[], RequestRow>>();

  // A read transaction: the run row and its request rows come from the same snapshot.
  const getRunTx = db.transaction((runId: string): RunInfo | undefined => {
    const row = runById.get(runId);
    if (row === undefined) return undefined;
    const now = Date.now();
    const info: RunInfo = {
      runId,
      state: runState(row, now),
      createdAt: row.created_at,
      updatedAt: toIso(row.updated_ms),
      requests: currentRequests.all(runId).map((r) => requestInfo(r, now)),
      failures: row.failures,
    };
    if (row.session_id !== null) info.sessionId = row.session_id;
    if (row.agent !== null) info.agent = row.agent;
    if (row.state === "running") {
      if (row.owner !== null) info.owner = row.owner;
      if (row.lease_expires_ms !== null) info.leaseExpiresAt = toIso(row.lease_expires_ms);
    }
    if (row.checkpoint_json !== null) info.checkpoint = readCheckpoint(row.checkpoint_json, runId);
    if (row.result_json !== null) info.result = readResult(row.result_json, runId);
    const lastError = readError(row.error_json);
    if (lastError !== undefined) info.lastError = lastError;
    const cancel = readCancel(row);
    if (cancel !== undefined) info.cancel = cancel;
    return info;
  });

  const list = (filter: SuspensionFilter = {}): SuspensionSummary[] => {
    const now = Date.now();
    const where: string[] = [];
    const params: (string | number)[] = [];
    switch (filter.state) {
      case undefined:
        break;
      case "waiting":
        where.push("state = 'waiting' AND (expires_ms IS NULL OR expires_ms > ?)");
        params.push(now);
        break;
      case "expired":
        where.push("state = 'waiting' AND expires_ms <= ?");
        params.push(now);
        break;
      case "answered":
      case "applied":
      case "cancelled":
        where.push("state = ?");
        params.push(filter.state);
        break;
      default:
        return [];
    }
    for (const [column, value] of [
      ["session_id", filter.sessionId],
      ["kind", filter.kind],
      ["run_id", filter.runId],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    // Newest halt first; within a halt, in the order of its pending calls (rows are inserted in
    // that order). Only indexed and plain columns are read: a damaged checkpoint still lists.
    let sql = `SELECT ${REQUEST_COLUMNS} FROM requests`;
    if (where.length > 0) sql += ` WHERE ${where.join(" AND ")}`;
    sql += " ORDER BY halt_no DESC, rowid ASC";
    if (typeof filter.limit === "number" && Number.isFinite(filter.limit)) {
      sql += " LIMIT ?";
      params.push(Math.max(0, Math.floor(filter.limit)));
    }
    let statement = listStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<(string | number)[], RequestRow>(sql);
      listStatements.set(sql, statement);
    }
    return statement.all(...params).map((row) => {
      const summary: SuspensionSummary = {
        request: readRequest(row),
        runId: row.run_id,
        createdAt: row.created_at,
        state: requestState(row, now),
      };
      if (row.session_id !== null) summary.sessionId = row.session_id;
      if (row.agent !== null) summary.agent = row.agent;
      if (row.expires_at !== null) summary.expiresAt = row.expires_at;
      Object.assign(summary, answeredFields(row));
      return summary;
    });
  };

  return {
    getRun: (runId) => getRunTx(runId),
    getRequest(requestId) {
      const row = newestRequest.get(requestId);
      return row === undefined ? undefined : requestInfo(row, Date.now());
    },
    list,
  };
}
