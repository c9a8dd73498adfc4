import type { Answer, CancelInfo, ClaimedRun, RunErrorInfo } from "@toolnexus/core";
import { jsonCopy } from "@toolnexus/core";
import { endCancelled } from "./cancel.js";
import { checkLeaseMs, checkOwner } from "./checks.js";
import type { Retention } from "./retention.js";
import { checkpointOf, type MemoryState, type RunRow, wakeMs } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// A worker takes a run under a new lease: the one asked for by id, or the one claimable longest.
// The token goes up, so whoever held the run before is fenced off from then on.

/** Why the run can be claimed now (`byId`: asked for by id), or undefined. */
function reasonOf(
  run: RunRow,
  now: number,
  byId: boolean,
): { reason: ClaimedRun["reason"]; since: number } | undefined {
  switch (run.state) {
    case "ready": {
      const since = run.readyMs ?? run.updatedMs;
      // A claim by id does not wait for the retry time: the caller asked for this run.
      return byId || since <= now ? { reason: "ready", since } : undefined;
    }
    case "waiting": {
      const wake = wakeMs(run);
      return wake !== undefined && wake <= now ? { reason: "expired", since: wake } : undefined;
    }
    case "running": {
      const expires = run.leaseExpiresMs ?? 0;
      return expires <= now ? { reason: "takeover", since: expires } : undefined;
    }
    case "failed":
      return byId ? { reason: "failed", since: run.finishedMs ?? run.updatedMs } : undefined;
    default:
      return undefined;
  }
}

export function claimOp(state: MemoryState, retention: Retention): MemoryRunStore["claim"] {
  const { runs, finished, record } = state;
  return (claimOptions) => {
    if (typeof claimOptions !== "object" || claimOptions === null) {
      throw new TypeError("memoryRunStore.claim(): options must be { owner, leaseMs, runId? }");
    }
    const { owner, leaseMs, runId } = claimOptions;
    checkOwner(owner, "claim");
    checkLeaseMs(leaseMs, "claim");
    const now = Date.now();
    let run: RunRow | undefined;
    let reason: ClaimedRun["reason"] | undefined;
    if (runId !== undefined) {
      run = runs.get(runId);
      if (run !== undefined) reason = reasonOf(run, now, true)?.reason;
    } else {
      // The run claimable longest; on a tie, the one stored first (insertion order).
      let since = Number.POSITIVE_INFINITY;
      const { agent } = claimOptions;
      runs.forEach((candidate) => {
        if (agent !== undefined && (candidate.agent ?? null) !== agent) return;
        const found = reasonOf(candidate, now, false);
        if (found !== undefined && found.since < since) {
          ({ reason, since } = found);
          run = candidate;
        }
      });
    }
    if (run === undefined || reason === undefined || run.checkpoint === undefined) {
      return undefined;
    }
    if (run.cancelJson !== undefined) {
      // Cancelled while it ran, and its worker is gone: it ends here instead of running again.
      endCancelled(state, retention, run, JSON.parse(run.cancelJson) as CancelInfo, now);
      return undefined;
    }
    const checkpoint = checkpointOf(run.checkpoint);
    const answers: Answer[] = [];
    for (const call of checkpoint.pending) {
      const row = run.requests.get(call.request.id);
      if (row?.state === "answered" && row.answer !== undefined) {
        answers.push(jsonCopy(row.answer));
      }
    }
    run.token++;
    run.state = "running";
    run.owner = owner;
    run.leaseExpiresMs = now + leaseMs;
    run.readyMs = undefined;
    run.finishedMs = undefined;
    run.updatedMs = now;
    // A failed run tried again by id is running, not finished: retention leaves it alone.
    finished.delete(run.runId);
    record(run, "continued", { owner, reason });
    const claimed: ClaimedRun = {
      lease: { runId: run.runId, owner, token: run.token, expiresAt: now + leaseMs },
      checkpoint,
      journal: run.journal.map(jsonCopy),
      answers,
      reason,
      failures: run.failures,
    };
    if (run.errorJson !== undefined) claimed.lastError = JSON.parse(run.errorJson) as RunErrorInfo;
    return claimed;
  };
}
