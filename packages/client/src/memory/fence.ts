import { type Lease, LeaseLostError } from "@toolnexus/core";
import type { MemoryState, RunRow } from "./rows.js";

// Fencing: only the current lease writes. Expiry alone does not fail a write; only another
// claim (which bumps the token), an end or a cancel takes the run away.

/** Why a lease no longer holds, or undefined while it does. */
export type Lost = (lease: Lease) => string | undefined;
/** The leased run, or a LeaseLostError. */
export type Fence = (lease: Lease) => RunRow;

export function fencing(state: MemoryState): { lost: Lost; fence: Fence } {
  const { runs } = state;
  const lost: Lost = (lease) => {
    const run = runs.get(lease.runId);
    if (run === undefined) return "the run is no longer in the store";
    if (run.state !== "running") return `the run is ${run.state}`;
    if (run.token !== lease.token || run.owner !== lease.owner) {
      return `the run was claimed again (lease ${run.token})`;
    }
    return undefined;
  };
  const fence: Fence = (lease) => {
    const why = lost(lease);
    if (why !== undefined) throw new LeaseLostError(lease.runId, why);
    return runs.get(lease.runId)!;
  };
  return { lost, fence };
}
