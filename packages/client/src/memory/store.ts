// The in-memory run store's shape: the parts in this folder each build some of its methods,
// and memory-stores.ts puts them together.
import type {
  Answer,
  AnswerOptions,
  AnswerReceipt,
  CancelReceipt,
  CancelRequest,
  Checkpoint,
  ClaimDueOptions,
  ClaimedRun,
  ClaimOptions,
  DueTimer,
  HaltReceipt,
  JournalEntry,
  Lease,
  PruneOptions,
  RecordedRunEvent,
  RequestInfo,
  RetryReceipt,
  RunErrorInfo,
  RunEventInit,
  RunFilter,
  RunInfo,
  RunOutcome,
  RunStore,
  RunSummary,
  SuspensionFilter,
  SuspensionSummary,
} from "@toolnexus/core";

/** The in-memory {@link RunStore}: every method is synchronous. */
export interface MemoryRunStore extends RunStore {
  halt(checkpoint: Checkpoint, lease?: Lease): HaltReceipt;
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
  listRuns(filter?: RunFilter): RunSummary[];
  retry(runId: string): RetryReceipt;
  readJournal(runId: string): JournalEntry[];
  claimDue(options: ClaimDueOptions): DueTimer[];
}
