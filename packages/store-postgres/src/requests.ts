import type { RequestInfo, RunInfo, SuspensionFilter, SuspensionSummary } from "@toolnexus/core";
import { key } from "./connection.js";
import type { Context } from "./context.js";
import {
  type Int8,
  ms,
  NOW_MS,
  REQUEST_COLUMNS,
  type RequestRow,
  RUN_COLUMNS,
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
  getRun(runId: string): Promise<RunInfo | undefined>;
  getRequest(requestId: string): Promise<RequestInfo | undefined>;
  list(filter?: SuspensionFilter): Promise<SuspensionSummary[]>;
}

function requestInfo(row: RequestRow, now: number): RequestInfo {
  const info: RequestInfo = {
    request: readRequest(row),
    runId: row.run_id,
    state: requestState(row, now),
  };
  const answer = readAnswerLoosely(row.answer_json);
  if (answer !== undefined) info.answer = answer;
  if (row.expires_at !== null) info.expiresAt = row.expires_at;
  Object.assign(info, answeredOf(row));
  return info;
}

/** Who answered and when, as readers see them. */
function answeredOf(row: RequestRow): { answeredBy?: string; answeredAt?: string } {
  const out: { answeredBy?: string; answeredAt?: string } = {};
  if (row.answered_by !== null) out.answeredBy = row.answered_by;
  const at = ms(row.answered_ms);
  if (at !== null && row.answer_json !== null) out.answeredAt = toIso(at);
  return out;
}

/** Builds the reads over the store's context. */
export function requestOps(ctx: Context): RequestOps {
  const { db, s, name } = ctx;

  return {
    async getRun(runId) {
      const runKey = key(String(runId));
      // One statement, so the run and its requests come from the same snapshot. The requests
      // of the current (or last) halt carry their position in its pending calls. What has
      // expired is told by the database's clock.
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<RunRow & { requests: RequestRow[] | null; now_ms: Int8 }>({
          name: name("get_run"),
          text: `SELECT ${RUN_COLUMNS}, ${NOW_MS} AS now_ms,
                 (SELECT json_agg(q ORDER BY q.position) FROM (
                    SELECT ${REQUEST_COLUMNS}, position FROM ${s}.requests
                     WHERE run_key = $1 AND position IS NOT NULL) q) AS requests
               FROM ${s}.runs WHERE run_key = $1`,
          values: [runKey],
        });
      });
      const row = rows[0];
      if (row === undefined) return undefined;
      const now = ms(row.now_ms)!;
      const info: RunInfo = {
        runId,
        state: runState(row, now),
        createdAt: row.created_at,
        updatedAt: toIso(ms(row.updated_ms)!),
        requests: (row.requests ?? []).map((r) => requestInfo(r, now)),
        failures: row.failures,
      };
      if (row.session_id !== null) info.sessionId = row.session_id;
      if (row.agent !== null) info.agent = row.agent;
      if (row.state === "running") {
        if (row.owner !== null) info.owner = row.owner;
        const expires = ms(row.lease_expires_ms);
        if (expires !== null) info.leaseExpiresAt = toIso(expires);
      }
      if (row.checkpoint_json !== null)
        info.checkpoint = readCheckpoint(row.checkpoint_json, runId);
      if (row.result_json !== null) info.result = readResult(row.result_json, runId);
      const lastError = readError(row.error_json);
      if (lastError !== undefined) info.lastError = lastError;
      const cancel = readCancel(row.cancel_json);
      if (cancel !== undefined) info.cancel = cancel;
      return info;
    },

    async getRequest(requestId) {
      const requestKey = key(String(requestId));
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<RequestRow & { now_ms: Int8 }>({
          name: name("get_request"),
          text: `SELECT ${REQUEST_COLUMNS}, ${NOW_MS} AS now_ms FROM ${s}.requests
                  WHERE request_key = $1 ORDER BY halt_no DESC LIMIT 1`,
          values: [requestKey],
        });
      });
      const row = rows[0];
      return row === undefined ? undefined : requestInfo(row, ms(row.now_ms)!);
    },

    async list(filter = {}) {
      const where: string[] = [];
      const values: unknown[] = [];
      const param = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      switch (filter.state) {
        case undefined:
          break;
        case "waiting":
          where.push(`state = 'waiting' AND (expires_ms IS NULL OR expires_ms > c.now)`);
          break;
        case "expired":
          where.push(`state = 'waiting' AND expires_ms <= c.now`);
          break;
        case "answered":
        case "applied":
        case "cancelled":
          where.push(`state = ${param(filter.state)}`);
          break;
        default:
          return [];
      }
      if (filter.sessionId !== undefined) {
        where.push(`session_key = ${param(key(String(filter.sessionId)))}`);
      }
      if (filter.runId !== undefined) where.push(`run_key = ${param(key(String(filter.runId)))}`);
      if (filter.kind !== undefined) where.push(`kind = ${param(String(filter.kind))}`);
      // Newest halt first; within a halt, in the order its rows were written (pending order).
      // Only plain columns are read: a damaged checkpoint still lists.
      let text = `SELECT ${REQUEST_COLUMNS}, c.now AS now_ms FROM ${s}.requests,
                    (SELECT ${NOW_MS} AS now) c`;
      if (where.length > 0) text += ` WHERE ${where.join(" AND ")}`;
      text += " ORDER BY halt_no DESC, seq ASC";
      if (typeof filter.limit === "number" && Number.isFinite(filter.limit)) {
        text += ` LIMIT ${param(Math.max(0, Math.floor(filter.limit)))}`;
      }
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<RequestRow & { now_ms: Int8 }>({ text, values });
      });
      return rows.map((row) => {
        const summary: SuspensionSummary = {
          request: readRequest(row),
          runId: row.run_id,
          createdAt: row.created_at,
          state: requestState(row, ms(row.now_ms)!),
        };
        if (row.session_id !== null) summary.sessionId = row.session_id;
        if (row.agent !== null) summary.agent = row.agent;
        if (row.expires_at !== null) summary.expiresAt = row.expires_at;
        Object.assign(summary, answeredOf(row));
        return summary;
      });
    },
  };
}
