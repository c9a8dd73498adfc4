import {
  checkRunFilter,
  type JournalEntry,
  type RetryReceipt,
  type RunFilter,
  RunNotFoundError,
  type RunSummary,
} from "@toolnexus/core";
import { key } from "./connection.js";
import type { Context } from "./context.js";
import {
  type Int8,
  ms,
  NOW_MS,
  type RunRow,
  readError,
  readJournalEntry,
  runState,
  toIso,
} from "./rows.js";

// What an operator asks beyond one run by id: the runs by state, agent, session and age; a
// failed run handed back to the workers; the journal of the step in flight.

export interface OperationOps {
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  retry(runId: string): Promise<RetryReceipt>;
  readJournal(runId: string): Promise<JournalEntry[]>;
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
> & { now_ms: Int8 };

const LISTED =
  "run_id, session_id, agent, state, created_at, updated_ms, wake_ms, failures, error_json";

/** Builds the operations over the store's context. */
export function operationOps(ctx: Context): OperationOps {
  const { db, s, name } = ctx;

  return {
    async listRuns(filter) {
      // The age is measured by this machine's clock (as `prune`'s), the states by the server's.
      const f = checkRunFilter(filter, "postgresStore.listRuns()");
      const where: string[] = [];
      const values: unknown[] = [];
      const param = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      switch (f.state) {
        case undefined:
          break;
        case "waiting":
          where.push("state = 'waiting' AND (wake_ms IS NULL OR wake_ms > c.now)");
          break;
        case "expired":
          where.push("state = 'waiting' AND wake_ms <= c.now");
          break;
        default:
          where.push(`state = ${param(f.state)}`);
      }
      if (f.agent !== undefined) where.push(`agent = ${param(f.agent)}`);
      if (f.sessionId !== undefined) where.push(`session_id = ${param(f.sessionId)}`);
      if (f.cutoffMs !== undefined) where.push(`updated_ms <= ${param(f.cutoffMs)}`);
      // Plain columns only: a damaged checkpoint still lists.
      let text = `SELECT ${LISTED}, c.now AS now_ms FROM ${s}.runs, (SELECT ${NOW_MS} AS now) c`;
      if (where.length > 0) text += ` WHERE ${where.join(" AND ")}`;
      text += ` ORDER BY updated_ms DESC LIMIT ${param(f.limit)}`;
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<ListedRow>({ text, values });
      });
      return rows.map((row) => {
        const summary: RunSummary = {
          runId: row.run_id,
          state: runState(row, ms(row.now_ms)!),
          createdAt: row.created_at,
          updatedAt: toIso(ms(row.updated_ms)!),
          failures: row.failures,
        };
        if (row.session_id !== null) summary.sessionId = row.session_id;
        if (row.agent !== null) summary.agent = row.agent;
        const lastError = readError(row.error_json);
        if (lastError !== undefined) summary.lastError = lastError;
        return summary;
      });
    },

    async retry(runId) {
      const runKey = key(String(runId));
      const outcome = await db.retrying(async (uncertain) => {
        await ctx.ready();
        // One statement: the run as it was (the snapshot before the update), and whether the
        // update made it ready; workers listening hear of it.
        const { rows } = await db.run<{
          changed: number;
          state: RunRow["state"];
          wake_ms: Int8;
          now_ms: Int8;
        }>({
          name: name("retry"),
          text: `WITH u AS (
                   UPDATE ${s}.runs SET state = 'ready', ready_ms = ${NOW_MS}, failures = 0,
                     finished_ms = NULL, owner = NULL, lease_expires_ms = NULL,
                     updated_ms = ${NOW_MS}
                   WHERE run_key = $1 AND state = 'failed' RETURNING 1)
                 SELECT (SELECT count(*) FROM u)::int AS changed,
                        (SELECT max(pg_notify($2, '')::text) FROM u) AS n,
                        r.state, r.wake_ms, ${NOW_MS} AS now_ms
                   FROM ${s}.runs r WHERE r.run_key = $1`,
          values: [runKey, ctx.channel],
        });
        const row = rows[0];
        if (row === undefined) return undefined;
        // A try cut off at its commit may have made it ready already: that was this call.
        if (row.changed === 1 || (uncertain && row.state === "ready")) return "ready" as const;
        return runState(row, ms(row.now_ms)!);
      });
      if (outcome === undefined) throw new RunNotFoundError(String(runId));
      return outcome === "ready"
        ? { runId, outcome: "ready", state: "ready" }
        : { runId, outcome: "not_failed", state: outcome };
    },

    async readJournal(runId) {
      const runKey = key(String(runId));
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<{ json: string }>({
          name: name("read_journal"),
          text: `SELECT json FROM ${s}.journal WHERE run_key = $1 ORDER BY seq`,
          values: [runKey],
        });
      });
      return rows.map((row) => readJournalEntry(row.json, runId));
    },
  };
}
