import {
  assertJournalEntry,
  type Checkpoint,
  CheckpointError,
  type Lease,
  LeaseLostError,
  ToolnexusError,
} from "@toolnexus/core";
import type { MemoryRunStore } from "../memory-stores.js";
import { checkCheckpoint, checkLease, checkLeaseMs, checkOwner, cut, errorJson } from "./checks.js";
import type { Retention } from "./retention.js";
import { type MemoryState, newRun, type RunRow, toIso } from "./rows.js";

// The writes of a run's life: the ones a worker makes under its lease (and the first halt or
// start, which creates the run). Each checks its arguments, then the lease, then writes.

export type WriteOps = Pick<
  MemoryRunStore,
  "halt" | "start" | "step" | "journal" | "renew" | "release" | "finish"
>;

function runExists(runId: string): ToolnexusError {
  return new ToolnexusError(
    "run_exists",
    `a durable run with id "${cut(runId)}" is already in the store; a new run needs a new id`,
  );
}

export function writeOps(state: MemoryState, retention: Retention): WriteOps {
  const { runs, byRequest, notify } = state;
  // Numbers every halt and every request it raises first, for the listing order.
  let halts = 0;
  let seq = 0;

  /** Why a lease no longer holds, or undefined while it does. */
  const lost = (lease: Lease): string | undefined => {
    const run = runs.get(lease.runId);
    if (run === undefined) return "the run is no longer in the store";
    if (run.state !== "running") return `the run is ${run.state}`;
    if (run.token !== lease.token || run.owner !== lease.owner) {
      return `the run was claimed again (lease ${run.token})`;
    }
    return undefined;
  };
  // Fencing: only the current lease writes. Expiry alone does not fail a write; only another
  // claim (which bumps the token) takes the run away.
  const fence = (lease: Lease): RunRow => {
    const why = lost(lease);
    if (why !== undefined) throw new LeaseLostError(lease.runId, why);
    return runs.get(lease.runId)!;
  };

  return {
    halt(checkpoint, lease) {
      if (lease !== undefined) checkLease(lease, "halt");
      checkCheckpoint(checkpoint, lease);
      // A halt with nothing to wait for could never become claimable again.
      if (checkpoint.pending.length === 0) {
        throw new CheckpointError(undefined, "a halted run needs at least one pending call");
      }
      const now = Date.now();
      const json = JSON.stringify(checkpoint);
      const copy = JSON.parse(json) as Checkpoint;
      let run: RunRow;
      if (lease === undefined) {
        if (runs.has(copy.runId)) throw runExists(copy.runId);
        run = newRun(copy, json, now);
        runs.set(run.runId, run);
      } else {
        run = fence(lease);
      }
      const haltNo = ++halts;
      const createdAt = toIso(now);
      run.halted = [];
      for (const call of copy.pending) {
        const id = call.request.id;
        const expiresAt = call.deadline ?? call.request.expiresAt;
        const parsed = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
        let row = run.requests.get(id);
        if (row === undefined) {
          row = {
            id,
            runId: run.runId,
            requestJson: "",
            kind: "",
            state: "waiting",
            haltNo,
            seq: ++seq,
            createdAt,
          };
          run.requests.set(id, row);
          const rows = byRequest.get(id);
          if (rows === undefined) byRequest.set(id, [row]);
          else rows.push(row);
        }
        // A known request keeps its state (an answer may have arrived while the run ran);
        // only what describes it is refreshed.
        row.requestJson = JSON.stringify(call.request);
        row.kind = String(call.request.kind);
        delete row.expiresAt;
        delete row.expiresMs;
        if (expiresAt !== undefined) row.expiresAt = expiresAt;
        if (!Number.isNaN(parsed)) row.expiresMs = parsed;
        run.halted.push(id);
      }
      // Requests this halt no longer waits for were answered by the steps since the last one.
      const listed = new Set(run.halted);
      for (const row of run.requests.values()) {
        if (!listed.has(row.id)) row.state = "applied";
      }
      const ready = run.halted.some((id) => run.requests.get(id)?.state === "answered");
      run.state = ready ? "ready" : "waiting";
      run.readyMs = ready ? now : undefined;
      run.checkpointJson = json;
      run.journal = [];
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      // The run moved on: earlier errors no longer count against it.
      run.failures = 0;
      run.errorJson = undefined;
      run.sessionId = copy.sessionId;
      run.agent = copy.agent;
      run.updatedMs = now;
      if (ready) notify();
      return run.state as "waiting" | "ready";
    },

    start(checkpoint, owner, leaseMs) {
      checkCheckpoint(checkpoint);
      checkOwner(owner, "start");
      checkLeaseMs(leaseMs, "start");
      if (runs.has(checkpoint.runId)) throw runExists(checkpoint.runId);
      const now = Date.now();
      const json = JSON.stringify(checkpoint);
      const run = newRun(JSON.parse(json) as Checkpoint, json, now);
      run.state = "running";
      run.owner = owner;
      run.token = 1;
      run.leaseExpiresMs = now + leaseMs;
      runs.set(run.runId, run);
      return { runId: run.runId, owner, token: 1, expiresAt: now + leaseMs };
    },

    step(lease, checkpoint) {
      checkLease(lease, "step");
      checkCheckpoint(checkpoint, lease);
      const json = JSON.stringify(checkpoint);
      const run = fence(lease);
      run.checkpointJson = json;
      run.journal = [];
      run.failures = 0;
      run.errorJson = undefined;
      run.updatedMs = Date.now();
    },

    journal(lease, entry) {
      checkLease(lease, "journal");
      assertJournalEntry(entry, lease.runId);
      const json = JSON.stringify(entry);
      const run = fence(lease);
      run.journal.push(json);
      if (typeof entry.answered === "string") {
        const row = run.requests.get(entry.answered);
        if (row !== undefined) row.state = "applied";
      }
      run.updatedMs = Date.now();
    },

    renew(lease, leaseMs) {
      checkLease(lease, "renew");
      checkLeaseMs(leaseMs, "renew");
      const run = fence(lease);
      const now = Date.now();
      run.leaseExpiresMs = now + leaseMs;
      run.updatedMs = now;
      return {
        runId: lease.runId,
        owner: lease.owner,
        token: lease.token,
        expiresAt: now + leaseMs,
      };
    },

    release(lease, error, retryAt) {
      checkLease(lease, "release");
      if (retryAt !== undefined && (typeof retryAt !== "number" || !Number.isFinite(retryAt))) {
        throw new TypeError("memoryRunStore.release(): retryAt must be an epoch time in ms");
      }
      const json = error === undefined ? undefined : errorJson(error, "release");
      // A lost lease is not an error here: the worker is giving the run up anyway.
      if (lost(lease) !== undefined) return;
      const run = runs.get(lease.runId)!;
      const now = Date.now();
      run.state = "ready";
      run.readyMs = retryAt ?? now;
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      if (json !== undefined) {
        run.failures++;
        run.errorJson = json;
      }
      run.updatedMs = now;
      notify();
    },

    finish(lease, outcome) {
      checkLease(lease, "finish");
      let resultJson: string | undefined;
      let failedJson: string | undefined;
      if (
        outcome?.state === "done" &&
        typeof outcome.result === "object" &&
        outcome.result !== null
      ) {
        resultJson = JSON.stringify(outcome.result);
      } else if (outcome?.state === "failed") {
        failedJson = errorJson(outcome.error, "finish");
      } else {
        throw new TypeError(
          'memoryRunStore.finish(): outcome must be { state: "done", result } or { state: "failed", error }',
        );
      }
      const run = fence(lease);
      const now = Date.now();
      if (resultJson !== undefined) {
        // Done keeps the result only; failed keeps the checkpoint, to be tried again by id.
        run.state = "done";
        run.resultJson = resultJson;
        run.checkpointJson = undefined;
        run.failures = 0;
        run.errorJson = undefined;
      } else {
        run.state = "failed";
        run.errorJson = failedJson;
      }
      for (const row of run.requests.values()) row.state = "applied";
      run.journal = [];
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      run.readyMs = undefined;
      run.finishedMs = now;
      run.updatedMs = now;
      retention.finished(run);
    },
  };
}
