import {
  assertJournalEntry,
  type CancelInfo,
  type Checkpoint,
  CheckpointError,
  type FinishedResult,
  type HaltReceipt,
  jsonCopy,
  type Lease,
  MAX_EVENT_DATA_CHARS,
  type RunErrorInfo,
  ToolnexusError,
} from "@toolnexus/core";
import { endCancelled } from "./cancel.js";
import { checkCheckpoint, checkLease, checkLeaseMs, checkOwner, cut, errorJson } from "./checks.js";
import { keepTimers } from "./due.js";
import { capText } from "./events.js";
import type { Fence, Lost } from "./fence.js";
import type { Retention } from "./retention.js";
import { keptCheckpoint, type MemoryState, newRun, type RunRow } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

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

/** What `started` says of a run. */
function startedData(run: RunRow): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (run.sessionId !== undefined) data.sessionId = run.sessionId;
  if (run.agent !== undefined) data.agent = run.agent;
  return data;
}

/**
 * What `suspended` says, as JSON: the Requests as asked, or only their ids and kinds when too
 * big. `requestsJson` is the Requests' JSON, already made for their rows.
 */
function suspendedJson(checkpoint: Checkpoint, requestsJson: string[]): string {
  const json = `{"requests":[${requestsJson.join(",")}]}`;
  if (json.length <= MAX_EVENT_DATA_CHARS - 100) return json;
  return JSON.stringify({
    requests: checkpoint.pending.map(({ request }) => ({ id: request.id, kind: request.kind })),
    truncated: true,
  });
}

// The receipts of a halt that did not end in a cancel: frozen, so every halt can share them.
const WAITING: HaltReceipt = Object.freeze({ state: "waiting" });
const READY: HaltReceipt = Object.freeze({ state: "ready" });

export function writeOps(
  state: MemoryState,
  retention: Retention,
  { lost, fence }: { lost: Lost; fence: Fence },
): WriteOps {
  const { runs, byRequest, notify, record } = state;
  // Numbers every halt and every request it raises first, for the listing order.
  let halts = 0;
  let seq = 0;
  /** The cancel asked of a running run, if any. */
  const askedCancel = (run: RunRow): CancelInfo | undefined =>
    run.cancelJson === undefined ? undefined : (JSON.parse(run.cancelJson) as CancelInfo);

  return {
    halt(checkpoint, lease) {
      if (lease !== undefined) checkLease(lease, "halt");
      checkCheckpoint(checkpoint, lease);
      // A halt with nothing to wait for could never become claimable again.
      if (checkpoint.pending.length === 0) {
        throw new CheckpointError(undefined, "a halted run needs at least one pending call");
      }
      const now = Date.now();
      // The store's own copy; what is read from `checkpoint` below is strings and numbers (or
      // JSON made of it) taken before this synchronous call returns, so nothing is shared with it.
      const kept = keptCheckpoint(checkpoint);
      let run: RunRow;
      if (lease === undefined) {
        if (runs.has(checkpoint.runId)) throw runExists(checkpoint.runId);
        run = newRun(kept, now);
        runs.set(run.runId, run);
        if (run.runId.includes("/")) state.nested++;
        record(run, "started", startedData(run));
      } else {
        run = fence(lease);
      }
      const haltNo = ++halts;
      run.halted = [];
      const requestsJson: string[] = [];
      for (let i = 0; i < checkpoint.pending.length; i++) {
        const call = checkpoint.pending[i]!;
        const request = kept.pending[i]!.request;
        const id = call.request.id;
        const expiresAt = call.deadline ?? call.request.expiresAt;
        const parsed = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
        let row = run.requests.get(id);
        if (row === undefined) {
          row = {
            id,
            runId: run.runId,
            request,
            kind: "",
            state: "waiting",
            answer: undefined,
            answeredBy: undefined,
            answeredAt: undefined,
            expiresAt: undefined,
            expiresMs: undefined,
            haltNo,
            seq: ++seq,
            createdMs: now,
            timers: undefined,
          };
          run.requests.set(id, row);
          const rows = byRequest.get(id);
          if (rows === undefined) byRequest.set(id, [row]);
          else rows.push(row);
        }
        // A known request keeps its state (an answer may have arrived while the run ran);
        // only what describes it is refreshed.
        row.request = request;
        requestsJson.push(JSON.stringify(call.request));
        row.kind = String(call.request.kind);
        keepTimers(row, call);
        // Assigned, not deleted: a deleted property turns the row into a slow dictionary.
        row.expiresAt = expiresAt;
        row.expiresMs = Number.isNaN(parsed) ? undefined : parsed;
        run.halted.push(id);
      }
      // Requests this halt no longer waits for were answered by the steps since the last one.
      // (A halt waits for a few requests: a scan of the list costs less than a Set of it.)
      for (const row of run.requests.values()) {
        if (!run.halted.includes(row.id)) row.state = "applied";
      }
      const ready = run.halted.some((id) => run.requests.get(id)?.state === "answered");
      run.state = ready ? "ready" : "waiting";
      run.readyMs = ready ? now : undefined;
      run.checkpoint = kept;
      run.journal = [];
      run.owner = undefined;
      run.leaseExpiresMs = undefined;
      // The run moved on: earlier errors no longer count against it.
      run.failures = 0;
      run.errorJson = undefined;
      run.sessionId = checkpoint.sessionId;
      run.agent = checkpoint.agent;
      run.updatedMs = now;
      record(run, "suspended", undefined, suspendedJson(checkpoint, requestsJson));
      // Cancelled while it ran: nobody must answer it now, so it ends here.
      const cancel = askedCancel(run);
      if (cancel !== undefined) {
        endCancelled(state, retention, run, cancel, now);
        return { state: "cancelled", cancel };
      }
      if (ready) {
        notify();
        return READY;
      }
      return WAITING;
    },

    start(checkpoint, owner, leaseMs) {
      checkCheckpoint(checkpoint);
      checkOwner(owner, "start");
      checkLeaseMs(leaseMs, "start");
      if (runs.has(checkpoint.runId)) throw runExists(checkpoint.runId);
      const now = Date.now();
      // Only strings are read from `checkpoint` (before this call returns) besides the copy kept.
      const run = newRun(keptCheckpoint(checkpoint), now);
      run.state = "running";
      run.owner = owner;
      run.token = 1;
      run.leaseExpiresMs = now + leaseMs;
      runs.set(run.runId, run);
      if (run.runId.includes("/")) state.nested++;
      record(run, "started", startedData(run));
      return { runId: run.runId, owner, token: 1, expiresAt: now + leaseMs };
    },

    step(lease, checkpoint) {
      checkLease(lease, "step");
      checkCheckpoint(checkpoint, lease);
      const kept = keptCheckpoint(checkpoint);
      const run = fence(lease);
      run.checkpoint = kept;
      run.journal = [];
      run.failures = 0;
      run.errorJson = undefined;
      run.updatedMs = Date.now();
    },

    journal(lease, entry) {
      checkLease(lease, "journal");
      assertJournalEntry(entry, lease.runId);
      const kept = jsonCopy(entry);
      const run = fence(lease);
      run.journal.push(kept);
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
      const renewed: Lease = {
        runId: lease.runId,
        owner: lease.owner,
        token: lease.token,
        expiresAt: now + leaseMs,
      };
      // How a worker learns that someone asked to cancel the run it holds.
      const cancel = askedCancel(run);
      if (cancel !== undefined) renewed.cancel = cancel;
      return renewed;
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
      // Cancelled while it ran: given back, it ends cancelled rather than being tried again.
      const cancel = askedCancel(run);
      if (cancel !== undefined) {
        endCancelled(state, retention, run, cancel, now);
        return;
      }
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
      let result: FinishedResult | undefined;
      let failedJson: string | undefined;
      let cancel: CancelInfo | undefined;
      if (
        outcome?.state === "done" &&
        typeof outcome.result === "object" &&
        outcome.result !== null
      ) {
        result = jsonCopy(outcome.result);
      } else if (outcome?.state === "failed") {
        failedJson = errorJson(outcome.error, "finish");
      } else if (outcome?.state === "cancelled") {
        cancel = cancelInfo(outcome.cancel);
      } else {
        throw new TypeError(
          'memoryRunStore.finish(): outcome must be { state: "done", result }, { state: "failed", error } or { state: "cancelled", cancel }',
        );
      }
      const run = fence(lease);
      const now = Date.now();
      if (cancel !== undefined) {
        // Who asked first is kept over what the worker says.
        endCancelled(state, retention, run, askedCancel(run) ?? cancel, now);
        return;
      }
      if (result !== undefined) {
        // Done keeps the result only; failed keeps the checkpoint, to be tried again by id.
        run.state = "done";
        run.result = result;
        run.checkpoint = undefined;
        run.failures = 0;
        run.errorJson = undefined;
        const text = String((outcome as { result: { text?: unknown } }).result.text ?? "");
        record(run, "done", { text: capText(text, 16_000, "the run's result") });
      } else {
        run.state = "failed";
        run.errorJson = failedJson;
        const error = JSON.parse(failedJson!) as RunErrorInfo;
        record(run, "failed", { code: error.code, message: error.message });
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

/** A cancel as `finish` is given it: who and why are checked, the time kept or set. */
function cancelInfo(given: unknown): CancelInfo {
  const cancel = (typeof given === "object" && given !== null ? given : {}) as Partial<CancelInfo>;
  const info: CancelInfo = {
    at: typeof cancel.at === "string" ? cancel.at : new Date().toISOString(),
  };
  if (typeof cancel.by === "string" && cancel.by !== "") info.by = cancel.by.slice(0, 256);
  if (typeof cancel.reason === "string") info.reason = cancel.reason.slice(0, 1000);
  return info;
}
