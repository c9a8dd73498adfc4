import { answerOp } from "./memory/answers.js";
import { cancelOp } from "./memory/cancel.js";
import { checked } from "./memory/checks.js";
import { claimOp } from "./memory/claim.js";
import { claimDueOp } from "./memory/due.js";
import { eventLog, eventOps } from "./memory/events.js";
import { fencing } from "./memory/fence.js";
import { operationOps } from "./memory/operations.js";
import { readOps } from "./memory/reads.js";
import { retention } from "./memory/retention.js";
import type { MemoryState } from "./memory/rows.js";
import type { MemoryRunStore } from "./memory/store.js";
import { subscribers } from "./memory/subscribers.js";
import { Table } from "./memory/table.js";
import { writeOps } from "./memory/writes.js";

// The public entry of the in-memory stores. Each concept of the run store lives in ./memory/
// (its shape in store.ts; records, checks, worker writes, claim, answers, reads, events,
// cancel, retention, subscribers); this file only puts one store together from them, over one
// shared state.

export { memoryConversationStore } from "./memory/conversations.js";
export type { MemoryRunStore } from "./memory/store.js";

/** Options of {@link memoryRunStore}. */
export interface MemoryRunStoreOptions {
  /**
   * At most this many `done`, `failed` and `cancelled` runs (with their events) are kept; beyond it the one that finished first
   * is dropped. Default 1000, so a long-lived process does not grow without bound.
   */
  keepFinished?: number;
}

/**
 * Keeps durable runs in this process's memory: the client's default, with the same semantics
 * as a durable store (answers, leases, journal), for tests and single-process apps. Use
 * `@toolnexus/store-sqlite` when a run must survive a restart or continue in another process.
 */
export function memoryRunStore(options: MemoryRunStoreOptions = {}): MemoryRunStore {
  const { notify, subscribe } = subscribers();
  const { record, watchEvents } = eventLog();
  const state: MemoryState = {
    runs: new Table(),
    byRequest: new Table(),
    finished: new Set(),
    nested: 0,
    notify,
    record,
  };
  const retained = retention(state, options.keepFinished ?? 1000);
  const fences = fencing(state);
  const writes = writeOps(state, retained, fences);
  const reads = readOps(state);
  const events = eventOps(state, fences.fence, watchEvents);
  const operations = operationOps(state);
  // One object literal with every member named (not spread): every store then has the same
  // shape, where spreading gave each one a hidden class of its own on Node 20.
  const store: MemoryRunStore = {
    halt: checked("halt", writes.halt),
    start: checked("start", writes.start),
    step: checked("step", writes.step),
    journal: checked("journal", writes.journal),
    renew: checked("renew", writes.renew),
    release: checked("release", writes.release),
    finish: checked("finish", writes.finish),
    claim: checked("claim", claimOp(state, retained)),
    answer: checked("answer", answerOp(state)),
    getRun: checked("getRun", reads.getRun),
    getRequest: checked("getRequest", reads.getRequest),
    list: checked("list", reads.list),
    appendEvents: checked("appendEvents", events.appendEvents),
    readEvents: checked("readEvents", events.readEvents),
    watchEvents: checked("watchEvents", events.watchEvents),
    cancel: checked("cancel", cancelOp(state, retained)),
    prune: checked("prune", retained.prune),
    subscribe: checked("subscribe", subscribe),
    listRuns: checked("listRuns", operations.listRuns),
    retry: checked("retry", operations.retry),
    readJournal: checked("readJournal", operations.readJournal),
    claimDue: checked("claimDue", claimDueOp(state)),
  };
  return store;
}
