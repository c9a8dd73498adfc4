import type {
  CancelInfo,
  RequestInfo,
  RunErrorInfo,
  RunInfo,
  SuspensionSummary,
} from "@toolnexus/core";
import { jsonCopy } from "@toolnexus/core";
import {
  checkpointOf,
  type MemoryState,
  newest,
  type RequestRow,
  requestState,
  runState,
  toIso,
} from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// The reads a host makes: a run by id, a request by id, and the inbox listing. They change
// nothing, and every value they return is a fresh parse of the stored JSON.

export type ReadOps = Pick<MemoryRunStore, "getRun" | "getRequest" | "list">;

function requestInfo(row: RequestRow, now: number): RequestInfo {
  const info: RequestInfo = {
    request: jsonCopy(row.request),
    runId: row.runId,
    state: requestState(row, now),
  };
  if (row.answer !== undefined) info.answer = jsonCopy(row.answer);
  if (row.answeredBy !== undefined) info.answeredBy = row.answeredBy;
  if (row.answeredAt !== undefined) info.answeredAt = row.answeredAt;
  if (row.expiresAt !== undefined) info.expiresAt = row.expiresAt;
  return info;
}

export function readOps(state: MemoryState): ReadOps {
  const { runs, byRequest } = state;
  return {
    getRun(runId) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      const now = Date.now();
      const info: RunInfo = {
        runId: run.runId,
        state: runState(run, now),
        createdAt: run.createdAt,
        updatedAt: toIso(run.updatedMs),
        requests: run.halted.map((id) => requestInfo(run.requests.get(id)!, now)),
        failures: run.failures,
      };
      if (run.sessionId !== undefined) info.sessionId = run.sessionId;
      if (run.agent !== undefined) info.agent = run.agent;
      if (run.state === "running") {
        info.owner = run.owner;
        info.leaseExpiresAt = toIso(run.leaseExpiresMs!);
      }
      if (run.checkpoint !== undefined) {
        info.checkpoint = checkpointOf(run.checkpoint);
      }
      if (run.result !== undefined) info.result = jsonCopy(run.result);
      if (run.errorJson !== undefined) info.lastError = JSON.parse(run.errorJson) as RunErrorInfo;
      if (run.cancelJson !== undefined) info.cancel = JSON.parse(run.cancelJson) as CancelInfo;
      return info;
    },

    getRequest(requestId) {
      const row = newest(byRequest, requestId);
      return row === undefined ? undefined : requestInfo(row, Date.now());
    },

    list(filter = {}) {
      const now = Date.now();
      const rows: RequestRow[] = [];
      for (const run of runs.values()) {
        if (filter.runId !== undefined && run.runId !== filter.runId) continue;
        if (filter.sessionId !== undefined && run.sessionId !== filter.sessionId) continue;
        for (const row of run.requests.values()) {
          if (filter.kind !== undefined && row.kind !== filter.kind) continue;
          if (filter.state !== undefined && requestState(row, now) !== filter.state) continue;
          rows.push(row);
        }
      }
      // Newest halt first; within a halt, in the order of its pending calls.
      rows.sort((a, b) => b.haltNo - a.haltNo || a.seq - b.seq);
      const limit =
        typeof filter.limit === "number" && !Number.isNaN(filter.limit)
          ? Math.max(0, Math.floor(filter.limit))
          : rows.length;
      return rows.slice(0, limit).map((row) => {
        const run = runs.get(row.runId)!;
        const summary: SuspensionSummary = {
          request: jsonCopy(row.request),
          runId: row.runId,
          createdAt: toIso(row.createdMs),
          state: requestState(row, now),
        };
        if (run.sessionId !== undefined) summary.sessionId = run.sessionId;
        if (run.agent !== undefined) summary.agent = run.agent;
        if (row.expiresAt !== undefined) summary.expiresAt = row.expiresAt;
        if (row.answeredBy !== undefined) summary.answeredBy = row.answeredBy;
        if (row.answeredAt !== undefined) summary.answeredAt = row.answeredAt;
        return summary;
      });
    },
  };
}
