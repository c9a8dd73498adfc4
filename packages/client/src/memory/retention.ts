import { pruneCutoff } from "@toolnexus/core";
import type { MemoryState, RunRow } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// Finished runs are kept for reads and retries by id, but not forever: a long-lived process
// must not grow without bound. Runs still going are never dropped.

export interface Retention extends Pick<MemoryRunStore, "prune"> {
  /** Records that `run` just finished, then drops the oldest finished runs beyond the cap. */
  finished(run: RunRow): void;
}

export function retention(state: MemoryState, keepFinished: number): Retention {
  if (
    !(Number.isInteger(keepFinished) && keepFinished >= 0) &&
    keepFinished !== Number.POSITIVE_INFINITY
  ) {
    throw new TypeError("memoryRunStore(): keepFinished must be a whole number of runs, 0 or more");
  }
  const { runs, byRequest, finished } = state;

  /** Forgets a run and its requests, so an answer to one of them is no longer taken. */
  const drop = (run: RunRow) => {
    if (runs.delete(run.runId) && run.runId.includes("/")) state.nested--;
    finished.delete(run.runId);
    for (const id of run.requests.keys()) {
      const rows = byRequest.get(id)?.filter((row) => row.runId !== run.runId) ?? [];
      if (rows.length === 0) byRequest.delete(id);
      else byRequest.set(id, rows);
    }
  };

  return {
    finished(run) {
      // Last in the order, even when it had finished before (a failed run tried again by id).
      finished.delete(run.runId);
      finished.add(run.runId);
      // Beyond keepFinished, the run that finished first goes.
      for (const runId of finished) {
        if (finished.size <= keepFinished) break;
        drop(runs.get(runId)!);
      }
    },

    prune(options) {
      const cutoff = pruneCutoff(options, "memoryRunStore.prune()");
      let pruned = 0;
      for (const runId of [...finished]) {
        const run = runs.get(runId)!;
        if (run.finishedMs !== undefined && run.finishedMs <= cutoff) {
          drop(run);
          pruned++;
        }
      }
      return pruned;
    },
  };
}
