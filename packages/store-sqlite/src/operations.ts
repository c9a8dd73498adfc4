import {
  checkRunFilter,
  type JournalEntry,
  type RetryReceipt,
  type RunFilter,
  RunNotFoundError,
  type RunSummary,
} from "@toolnexus/core";
import type { Db, Statement } from "./driver.js";
import { type RunRow, readError, readJournalEntry, runState, toIso } from "./rows.js";

// What an operator asks beyond one run by id: the runs by state, agent, session and age; a
// failed run handed back to the workers; the journal of the step in flight.

export interface OperationOps {
  listRuns(filter?: RunFilter): RunSummary[];
  retry(runId: string): RetryReceipt;
  readJournal(runId: string): JournalEntry[];
}

type ListedRow = Pick<
  RunRow,
  | "run_id"
  | "session_id"
  | "agent"
  | "state"
  | "created_at"
  | "updated_ms"
  | "wake_ms"
  | "failures"
  | "error_json"
>;

const LISTED =
  "run_id, session_id, agent, state, created_at, updated_ms, wake_ms, failures, error_json";

/** Prepares the statements once and returns the operations. */
export function operationOps(db: Db): OperationOps {
  // `listRuns` builds its SQL from which filters are set: a few dozen shapes, each prepared once.
  const listStatements = new Map<string, Statement<(string | number)[], ListedRow>>();
  const journalOf = db
    .prepare<[string], string>("SELECT json FROM journal WHERE run_id = ? ORDER BY seq")
    .pluck();
  const stateOf = db.prepare<[string], Pick<RunRow, "state" | "wake_ms">>(
    "SELECT state, wake_ms FROM runs WHERE run_id = ?",
  );
  // Ready from now on for any worker; the failure count starts again, the last error is kept.
  const makeReady = db.prepare<[number, number, string]>(
    `UPDATE runs SET state = 'ready', ready_ms = ?, failures = 0, finished_ms = NULL,
       owner = NULL, lease_expires_ms = NULL, updated_ms = ?
     WHERE run_id = ? AND state = 'failed'`,
  );

  const retryTx = db.transaction((runId: string): RetryReceipt => {
    const now = Date.now();
    const row = stateOf.get(runId);
    if (row === undefined) throw new RunNotFoundError(runId);
    if (row.state !== "failed") {
      return { runId, outcome: "not_failed", state: runState(row, now) };
    }
    makeReady.run(now, now, runId);
    return { runId, outcome: "ready", state: "ready" };
  });

  return {
    listRuns(filter) {
      const now = Date.now();
      const f = checkRunFilter(filter, "sqliteStore.listRuns()", now);
      const where: string[] = [];
      const params: (string | number)[] = [];
      switch (f.state) {
        case undefined:
          break;
        case "waiting":
          where.push("state = 'waiting' AND (wake_ms IS NULL OR wake_ms > ?)");
          params.push(now);
          break;
        case "expired":
          where.push("state = 'waiting' AND wake_ms <= ?");
          params.push(now);
          break;
        default:
          where.push("state = ?");
          params.push(f.state);
      }
      for (const [column, value] of [
        ["agent", f.agent],
        ["session_id", f.sessionId],
      ] as const) {
        if (value === undefined) continue;
        where.push(`${column} = ?`);
        params.push(value);
      }
      if (f.cutoffMs !== undefined) {
        where.push("updated_ms <= ?");
        params.push(f.cutoffMs);
      }
      // Plain columns only: a damaged checkpoint still lists.
      let sql = `SELECT ${LISTED} FROM runs`;
      if (where.length > 0) sql += ` WHERE ${where.join(" AND ")}`;
      sql += " ORDER BY updated_ms DESC LIMIT ?";
      params.push(f.limit);
      let statement = listStatements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<(string | number)[], ListedRow>(sql);
        listStatements.set(sql, statement);
      }
      return statement.all(...params).map((row) => {
        const summary: RunSummary = {
          runId: row.run_id,
          state: runState(row, now),
          createdAt: row.created_at,
          updatedAt: toIso(row.updated_ms),
          failures: row.failures,
        };
        if (row.session_id !== null) summary.sessionId = row.session_id;
        if (row.agent !== null) summary.agent = row.agent;
        const lastError = readError(row.error_json);
        if (lastError !== undefined) summary.lastError = lastError;
        return summary;
      });
    },
    retry: (runId) => retryTx.immediate(runId),
    readJournal: (runId) => journalOf.all(runId).map((json) => readJournalEntry(json, runId)),
  };
}
