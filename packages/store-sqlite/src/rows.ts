import {
  type Answer,
  assertCheckpoint,
  assertJournalEntry,
  type Checkpoint,
  CheckpointError,
  type FinishedResult,
  type JournalEntry,
  type Request,
  type RequestState,
  type RunErrorInfo,
  type RunState,
} from "@toolnexus/core";

/** The states a run row can hold; `expired` is derived on read (see {@link runState}). */
export type StoredRunState = "waiting" | "ready" | "running" | "done" | "failed";
/** The states a request row can hold; `expired` is derived on read. */
export type StoredRequestState = "waiting" | "answered" | "applied";

/** A row of `runs`, as the statements select it. */
export interface RunRow {
  run_id: string;
  session_id: string | null;
  agent: string | null;
  state: StoredRunState;
  created_at: string;
  updated_ms: number;
  owner: string | null;
  token: number;
  lease_expires_ms: number | null;
  ready_ms: number | null;
  wake_ms: number | null;
  failures: number;
  error_json: string | null;
  checkpoint_json: string | null;
  result_json: string | null;
}

/** A row of `requests`, as the statements select it. */
export interface RequestRow {
  request_id: string;
  run_id: string;
  state: StoredRequestState;
  kind: string;
  prompt: string;
  request_json: string;
  session_id: string | null;
  agent: string | null;
  created_at: string;
  expires_at: string | null;
  expires_ms: number | null;
  answer_json: string | null;
}

/** An id cut for an error message: a huge id must not make a huge error. */
export function short(id: string): string {
  const text = String(id);
  return text.length <= 80 ? text : `${text.slice(0, 60)}…(${text.length} chars)`;
}

/** Epoch ms of an ISO time, or null when it is missing or not a time. */
export function toMs(iso: unknown): number | null {
  if (typeof iso !== "string") return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

export const toIso = (ms: number): string => new Date(ms).toISOString();

/** A run's state as readers see it: a waiting run whose earliest deadline passed is `expired`. */
export function runState(row: Pick<RunRow, "state" | "wake_ms">, now: number): RunState {
  return row.state === "waiting" && row.wake_ms !== null && row.wake_ms <= now
    ? "expired"
    : row.state;
}

/** A request's state as readers see it: waiting past its deadline is `expired`. */
export function requestState(
  row: Pick<RequestRow, "state" | "expires_ms">,
  now: number,
): RequestState {
  return row.state === "waiting" && row.expires_ms !== null && row.expires_ms <= now
    ? "expired"
    : row.state;
}

function corrupt(runId: string, what: string, cause: unknown): never {
  throw new CheckpointError(
    undefined,
    `the stored ${what} of run "${short(runId)}" is corrupt: ${(cause as Error).message}`,
    { cause },
  );
}

/** Re-throws a validation failure with the run named, so an operator knows which row to look at. */
function namingRun<T>(runId: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (!(cause instanceof CheckpointError)) throw cause;
    const problem = cause.message.replace(/^invalid checkpoint: /, "");
    throw new CheckpointError(
      undefined,
      `the stored ${what} of run "${short(runId)}" cannot be used: ${problem}`,
      {
        cause,
      },
    );
  }
}

/** Parses and validates a stored checkpoint; a `CheckpointError` naming the run otherwise. */
export function readCheckpoint(json: string, runId: string): Checkpoint {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    corrupt(runId, "checkpoint", cause);
  }
  return namingRun(runId, "checkpoint", () => {
    assertCheckpoint(value);
    return value;
  });
}

/** Parses and validates a stored journal entry; a `CheckpointError` naming the run otherwise. */
export function readJournalEntry(json: string, runId: string): JournalEntry {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    corrupt(runId, "journal entry", cause);
  }
  assertJournalEntry(value, short(runId));
  return value;
}

/** Parses a stored answer a worker is about to apply; a `CheckpointError` naming the run otherwise. */
export function readAnswer(json: string, runId: string): Answer {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    corrupt(runId, "answer", cause);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    corrupt(runId, "answer", new Error("it is not an object"));
  }
  return value as Answer;
}

/** Parses a stored result; a `CheckpointError` naming the run otherwise. */
export function readResult(json: string, runId: string): FinishedResult {
  let result: FinishedResult;
  try {
    result = JSON.parse(json) as FinishedResult;
  } catch (cause) {
    return corrupt(runId, "result", cause);
  }
  // `sessionId` is a required key that may be undefined, which JSON drops: put it back.
  if (typeof result === "object" && result !== null && !Object.hasOwn(result, "sessionId")) {
    result.sessionId = undefined;
  }
  return result;
}

/**
 * The recorded error of a run. It is only informational, so a damaged column reads as an
 * `unreadable` error rather than failing the whole read.
 */
export function readError(json: string | null): RunErrorInfo | undefined {
  if (json === null) return undefined;
  try {
    const value = JSON.parse(json) as RunErrorInfo;
    if (typeof value === "object" && value !== null && typeof value.code === "string") return value;
  } catch {
    // Fall through.
  }
  return { code: "unreadable", message: "the stored error cannot be read", at: toIso(0) };
}

/**
 * A request from its row. Listings must never fail on one bad row, so a damaged JSON column
 * falls back to the indexed columns.
 */
export function readRequest(
  row: Pick<RequestRow, "request_id" | "kind" | "prompt" | "request_json">,
): Request {
  try {
    const value: unknown = JSON.parse(row.request_json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { ...(value as Request), id: row.request_id };
    }
  } catch {
    // Fall through to the indexed columns.
  }
  return { id: row.request_id, kind: row.kind, prompt: row.prompt };
}

/** An answer for a read (getRun, getRequest): a damaged one is left out rather than failing. */
export function readAnswerLoosely(json: string | null): Answer | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Answer;
  } catch {
    // Fall through.
  }
  return undefined;
}

// The argument checks and canonical JSON every RunStore shares live in core.
export {
  canonicalJson,
  checkLease,
  checkLeaseMs,
  checkOwner,
  storedError as errorInfo,
} from "@toolnexus/core";
