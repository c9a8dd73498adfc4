import type {
  Answer,
  AnswerOptions,
  AnswerReceipt,
  CancelReceipt,
  CancelRequest,
  Checkpoint,
  ClaimedRun,
  ClaimOptions,
  JournalEntry,
  Lease,
  PruneOptions,
  RecordedRunEvent,
  RequestInfo,
  RunErrorInfo,
  RunEventInit,
  RunInfo,
  RunOutcome,
  RunStore,
  SuspensionFilter,
  SuspensionSummary,
} from "@toolnexus/core";
import { guardStoreIds } from "@toolnexus/core";
import { answerOp } from "./memory/answers.js";
import { cancelOp } from "./memory/cancel.js";
import { claimOp } from "./memory/claim.js";
import { eventLog, eventOps } from "./memory/events.js";
import { fencing } from "./memory/fence.js";
import { readOps } from "./memory/reads.js";
import { retention } from "./memory/retention.js";
import type { MemoryState } from "./memory/rows.js";
import { subscribers } from "./memory/subscribers.js";
import { writeOps } from "./memory/writes.js";

// The public entry of the in-memory stores. Each concept of the run store lives in ./memory/
// (records, checks, worker writes, claim, answers, reads, retention, subscribers); this file
// only puts one store together from them, over one shared state.

export { memoryConversationStore } from "./memory/conversations.js";

/** The in-memory {@link RunStore}: every method is synchronous. */
export interface MemoryRunStore extends RunStore {
  halt(checkpoint: Checkpoint, lease?: Lease): "waiting" | "ready";
  start(checkpoint: Checkpoint, owner: string, leaseMs: number): Lease;
  step(lease: Lease, checkpoint: Checkpoint): void;
  journal(lease: Lease, entry: JournalEntry): void;
  renew(lease: Lease, leaseMs: number): Lease;
  release(lease: Lease, error?: RunErrorInfo, retryAt?: number): void;
  finish(lease: Lease, outcome: RunOutcome): void;
  claim(options: ClaimOptions): ClaimedRun | undefined;
  answer(answer: Answer, options?: AnswerOptions): AnswerReceipt;
  getRun(runId: string): RunInfo | undefined;
  getRequest(requestId: string): RequestInfo | undefined;
  list(filter?: SuspensionFilter): SuspensionSummary[];
  prune(options: PruneOptions): number;
  subscribe(onReady: () => void): () => void;
  appendEvents(lease: Lease, events: readonly RunEventInit[]): number;
  readEvents(runId: string, after: number, limit?: number): RecordedRunEvent[];
  watchEvents(runId: string, onEvent: () => void): () => void;
  cancel(runId: string, request?: CancelRequest): CancelReceipt;
}

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
    runs: new Map(),
    byRequest: new Map(),
    finished: new Set(),
    notify,
    record,
  };
  const retained = retention(state, options.keepFinished ?? 1000);
  const fences = fencing(state);
  const store: MemoryRunStore = {
    ...writeOps(state, retained, fences),
    claim: claimOp(state, retained),
    answer: answerOp(state),
    ...readOps(state),
    ...eventOps(state, fences.fence, watchEvents),
    cancel: cancelOp(state, retained),
    prune: retained.prune,
    subscribe,
  };
  // Ids no store can keep exactly are refused here too, so an app behaves the same on every store.
  return guardStoreIds(store, "sync");
}
