import {
  checkRunFilter,
  jsonCopy,
  type RunErrorInfo,
  RunNotFoundError,
  type RunSummary,
} from "@toolnexus/core";
import { type MemoryState, runState, toIso } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// What an operator asks beyond one run by id: the runs by state, agent, session and age; a
// failed run handed back to the workers; the journal of the step in flight.

export type OperationOps = Pick<MemoryRunStore, "listRuns" | "retry" | "readJournal">;

export function operationOps(state: MemoryState): OperationOps {
  const { runs, finished, notify } = state;
  return {
    listRuns(filter) {
      const now = Date.now();
      const f = checkRunFilter(filter, "memoryRunStore.listRuns()", now);
      const found: RunSummary[] = [];
      // Newest change first; the runs map is in creation order, so sort what matched.
      const matched = [...runs.values()].filter(
        (run) =>
          (f.state === undefined || runState(run, now) === f.state) &&
          (f.agent === undefined || run.agent === f.agent) &&
          (f.sessionId === undefined || run.sessionId === f.sessionId) &&
          (f.cutoffMs === undefined || run.updatedMs <= f.cutoffMs),
      );
      matched.sort((a, b) => b.updatedMs - a.updatedMs);
      for (const run of matched.slice(0, f.limit)) {
        const summary: RunSummary = {
          runId: run.runId,
          state: runState(run, now),
          createdAt: run.createdAt,
          updatedAt: toIso(run.updatedMs),
          failures: run.failures,
        };
        if (run.sessionId !== undefined) summary.sessionId = run.sessionId;
        if (run.agent !== undefined) summary.agent = run.agent;
        if (run.errorJson !== undefined) {
          summary.lastError = JSON.parse(run.errorJson) as RunErrorInfo;
        }
        found.push(summary);
      }
      return found;
    },

    retry(runId) {
      const run = runs.get(runId);
      if (run === undefined) throw new RunNotFoundError(String(runId));
      const now = Date.now();
      if (run.state !== "failed") {
        return { runId: run.runId, outcome: "not_failed", state: runState(run, now) };
      }
      run.state = "ready";
      run.readyMs = now;
      run.failures = 0;
      run.finishedMs = undefined;
      run.updatedMs = now;
      // Going again, not finished: retention leaves it alone.
      finished.delete(run.runId);
      notify();
      return { runId: run.runId, outcome: "ready", state: "ready" };
    },

    readJournal(runId) {
      const run = runs.get(runId);
      return (run?.journal ?? []).map(jsonCopy);
    },
  };
}
