// What an operator asks of a store beyond one run by id: the runs themselves (by state, agent,
// session and age), a failed run handed back to the workers, and the journal of the step in
// flight. The `toolnexus` command uses them; every store toolnexus ships has them.
import type { RunErrorInfo, RunState } from "./run-state.js";

/** The most runs one {@link RunFilter} returns, and the default. */
export const MAX_RUNS_PER_LIST = 1000;
export const DEFAULT_RUNS_PER_LIST = 100;

/** Filters for `RunStore.listRuns`; all given fields must match. */
export interface RunFilter {
  /** The run's state as `getRun` reports it (`expired` is a waiting run past a deadline). */
  state?: RunState;
  /** The checkpoint's `agent`. */
  agent?: string;
  sessionId?: string;
  /**
   * Only runs that last changed (their `updatedAt`) at or before this moment: a `Date` is that
   * moment, a number an age in ms. A waiting run last changed when it halted, so
   * `{ state: "waiting", olderThan: 2 * 3600_000 }` lists runs waiting for two hours or more.
   */
  olderThan?: Date | number;
  /** At most this many runs (1 to {@link MAX_RUNS_PER_LIST}, default {@link DEFAULT_RUNS_PER_LIST}). */
  limit?: number;
}

/** One run as `RunStore.listRuns` lists it: its plain columns, never its checkpoint. */
export interface RunSummary {
  runId: string;
  state: RunState;
  sessionId?: string;
  agent?: string;
  /** ISO times: when the run began, and when it last changed. */
  createdAt: string;
  updatedAt: string;
  /** Errors recorded since the run last moved on, and the last one. */
  failures: number;
  lastError?: RunErrorInfo;
}

/** What `RunStore.retry` did: `ready` (the failed run is claimable now) or `not_failed`. */
export interface RetryReceipt {
  runId: string;
  outcome: "ready" | "not_failed";
  /** The run's state after the call. */
  state: RunState;
}

/** Every {@link RunState}, in a run's usual order: for checking and listing them. */
export const RUN_STATES: readonly RunState[] = [
  "waiting",
  "ready",
  "running",
  "expired",
  "done",
  "failed",
  "cancelled",
];

/** A {@link RunFilter} checked, with its cutoff in epoch ms (`undefined`: no age filter). */
export interface CheckedRunFilter {
  state?: RunState;
  agent?: string;
  sessionId?: string;
  cutoffMs?: number;
  limit: number;
}

/**
 * Checks a {@link RunFilter} the way every store reads it: a `TypeError` naming the bad field,
 * the age turned into a cutoff (epoch ms, by `now`), the limit defaulted and capped.
 */
export function checkRunFilter(
  filter: RunFilter | undefined,
  where: string,
  now = Date.now(),
): CheckedRunFilter {
  const f = (filter ?? {}) as Record<string, unknown>;
  if (typeof f !== "object" || f === null)
    throw new TypeError(`${where}: filter must be an object`);
  const out: CheckedRunFilter = { limit: DEFAULT_RUNS_PER_LIST };
  if (f.state !== undefined) {
    if (!RUN_STATES.includes(f.state as RunState)) {
      throw new TypeError(`${where}: state must be one of ${RUN_STATES.join(", ")}`);
    }
    out.state = f.state as RunState;
  }
  for (const field of ["agent", "sessionId"] as const) {
    const value = f[field];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new TypeError(`${where}: ${field} must be a string`);
    out[field] = value;
  }
  const olderThan = f.olderThan;
  if (olderThan !== undefined) {
    if (olderThan instanceof Date && !Number.isNaN(olderThan.getTime())) {
      out.cutoffMs = olderThan.getTime();
    } else if (typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0) {
      out.cutoffMs = now - olderThan;
    } else {
      throw new TypeError(`${where}: olderThan must be a valid Date or an age of 0 or more ms`);
    }
  }
  if (f.limit !== undefined) {
    const limit = f.limit;
    if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) {
      throw new TypeError(`${where}: limit must be a whole number, 1 or more`);
    }
    out.limit = Math.min(limit, MAX_RUNS_PER_LIST);
  }
  return out;
}
