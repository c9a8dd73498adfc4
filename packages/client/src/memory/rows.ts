import type {
  Answer,
  Checkpoint,
  FinishedResult,
  JournalEntry,
  Request,
  RequestInfo,
  RunEventType,
  RunState,
} from "@toolnexus/core";
import { isoTime, jsonCopy } from "@toolnexus/core";
import type { Table } from "./table.js";

// Like a database, the store shares no object with the run that wrote it or with whoever reads
// it: data is kept as JSON text or as a private copy of JSON data (core's jsonCopy), and copied or
// parsed on the way out. Requests and answers are private copies: a direct copy of such a small
// object costs less than parsing its text at every read.

export interface RequestRow {
  id: string;
  runId: string;
  /**
   * The store's own copy of the Request (the kept checkpoint's, shared: the store edits
   * neither, an escalation replaces it); reads copy it.
   */
  request: Request;
  kind: string;
  state: "waiting" | "answered" | "applied" | "cancelled";
  /** The store's own copy of the answer (reads copy it). */
  answer?: Answer;
  /** Who answered (as the host said) and when (ISO). */
  answeredBy?: string;
  answeredAt?: string;
  /** The effective deadline, as given, and in epoch ms. */
  expiresAt?: string;
  expiresMs?: number;
  /** Which halt first raised it (newest first in listings), and its place among all requests. */
  haltNo: number;
  seq: number;
  /** Epoch ms of that halt (given out as ISO). */
  createdMs: number;
  /** Its reminders and escalation (`PendingCall.timers`), each fired at most once. */
  timers?: { kind: "reminder" | "escalation"; atMs: number; to?: string; fired: boolean }[];
}

export interface RunRow {
  runId: string;
  sessionId?: string;
  agent?: string;
  createdAt: string;
  state: "waiting" | "ready" | "running" | "done" | "failed" | "cancelled";
  updatedMs: number;
  owner?: string;
  token: number;
  leaseExpiresMs?: number;
  /** While `ready`: since when a worker may take it (its retry time after an error). */
  readyMs?: number;
  finishedMs?: number;
  failures: number;
  errorJson?: string;
  /** The store's own copy of the checkpoint (never handed out: reads copy it). */
  checkpoint?: Checkpoint;
  /** The store's own copies of the result and of the journal's entries (reads copy them). */
  result?: FinishedResult;
  journal: JournalEntry[];
  requests: Map<string, RequestRow>;
  /** The request ids of the current (or last) halt, in pending order. */
  halted: string[];
  /** Who asked to cancel it, why and when (a `CancelInfo` as JSON): asked while running, or done. */
  cancelJson?: string;
  /** Its recorded events; `events[i]` has offset `i + 1`. */
  events: EventRow[];
}

/** One recorded event of a run. */
export interface EventRow {
  /** Epoch ms (given out as ISO). */
  atMs: number;
  type: RunEventType;
  dataJson: string;
}

/** What every part of one store shares: its tables, and the way to wake its subscribers. */
export interface MemoryState {
  runs: Table<RunRow>;
  // request id -> the rows of every run that raised it (the newest has the highest haltNo)
  byRequest: Table<RequestRow[]>;
  // done and failed run ids, the first finished first: the retention order
  finished: Set<string>;
  // How many runs kept have a sub-agent's id (`<runId>/…`): a cancel looks for a run's
  // sub-agents among all runs only when there are some.
  nested: number;
  /** Tells the subscribers, later, that a run may be claimable. */
  notify: () => void;
  /**
   * Records an event of the store's own (in the same synchronous step as the change it tells):
   * its data, or the data's JSON when the caller already made it.
   */
  record: (
    run: RunRow,
    type: RunEventType,
    data: Record<string, unknown> | undefined,
    json?: string,
  ) => void;
}

// The last time given out as ISO text: a store call often stamps several things in the same
// millisecond.
let lastMs = 0;
let lastIso = "1970-01-01T00:00:00.000Z";

export function toIso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = isoTime(ms);
    lastMs = ms;
  }
  return lastIso;
}

// A checkpoint is kept as a private copy of its JSON data (the version 2 shape), not as text:
// nothing here is written to disk or sent, and a direct copy in on a write and out on a read
// (core's jsonCopy) gives what a JSON round trip would, at about a third of its cost.

/** The copy this store keeps of `checkpoint` (already validated). */
export const keptCheckpoint = (checkpoint: Checkpoint): Checkpoint => jsonCopy(checkpoint);

/** A fresh copy of a run's kept checkpoint, not validated again (it was when written). */
export const checkpointOf = (kept: Checkpoint): Checkpoint => jsonCopy(kept);

/** A new run row, `waiting` on `checkpoint` (the store's own copy). */
export function newRun(checkpoint: Checkpoint, now: number): RunRow {
  // Every field from the start, unset ones undefined: each row keeps one shape as it changes,
  // so V8 keeps its fast properties and the store's code sees one kind of row.
  return {
    runId: checkpoint.runId,
    sessionId: checkpoint.sessionId,
    agent: checkpoint.agent,
    createdAt: checkpoint.createdAt,
    state: "waiting",
    updatedMs: now,
    owner: undefined,
    token: 0,
    leaseExpiresMs: undefined,
    readyMs: undefined,
    finishedMs: undefined,
    failures: 0,
    errorJson: undefined,
    checkpoint,
    result: undefined,
    journal: [],
    requests: new Map(),
    halted: [],
    cancelJson: undefined,
    events: [],
  };
}

/** The row of the newest halt that raised `requestId`: the one an answer or a read goes to. */
export function newest(byRequest: Table<RequestRow[]>, requestId: string): RequestRow | undefined {
  let found: RequestRow | undefined;
  for (const row of byRequest.get(requestId) ?? []) {
    if (found === undefined || row.haltNo > found.haltNo) found = row;
  }
  return found;
}

// `expired` is never stored: it is derived on read from the deadlines and the clock.

export function requestState(row: RequestRow, now: number): RequestInfo["state"] {
  return row.state === "waiting" && row.expiresMs !== undefined && row.expiresMs <= now
    ? "expired"
    : row.state;
}

/** The earliest deadline of the run's waiting requests, if any. */
export function wakeMs(run: RunRow): number | undefined {
  let wake: number | undefined;
  for (const row of run.requests.values()) {
    if (row.state === "waiting" && row.expiresMs !== undefined) {
      wake = wake === undefined ? row.expiresMs : Math.min(wake, row.expiresMs);
    }
  }
  return wake;
}

export function runState(run: RunRow, now: number): RunState {
  if (run.state !== "waiting") return run.state;
  const wake = wakeMs(run);
  return wake !== undefined && wake <= now ? "expired" : "waiting";
}
