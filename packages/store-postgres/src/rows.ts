import {
  type Answer,
  assertCheckpoint,
  assertJournalEntry,
  type Checkpoint,
  CheckpointError,
  type FinishedResult,
  type JournalEntry,
  type Lease,
  type Request,
  type RequestState,
  type RunErrorInfo,
  type RunState,
} from "@toolnexus/core";

/** The states a run row can hold; `expired` is derived on read (see {@link runState}). */
export type StoredRunState = "waiting" | "ready" | "running" | "done" | "failed";
/** The states a request row can hold; `expired` is derived on read. */
export type StoredRequestState = "waiting" | "answered" | "applied";

/** `bigint` columns arrive as strings (pg keeps 64-bit integers exact); epoch ms fit a number. */
export type Int8 = string | number | null;

/** A row of `runs`, as the statements select it. */
export interface RunRow {
  run_id: string;
  session_id: string | null;
  agent: string | null;
  state: StoredRunState;
  created_at: string;
  updated_ms: Int8;
  owner: string | null;
  token: number;
  lease_expires_ms: Int8;
  ready_ms: Int8;
  wake_ms: Int8;
  failures: number;
  error_json: string | null;
  checkpoint_json: string | null;
  result_json: string | null;
}

/** The columns of `runs` every read selects. */
export const RUN_COLUMNS = `run_id, session_id, agent, state, created_at, updated_ms, owner, token,
  lease_expires_ms, ready_ms, wake_ms, failures, error_json, checkpoint_json, result_json`;

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
  expires_ms: Int8;
  answer_json: string | null;
}

/** The columns of `requests` every read selects. */
export const REQUEST_COLUMNS = `request_id, run_id, state, kind, prompt, request_json, session_id,
  agent, created_at, expires_at, expires_ms, answer_json`;

/** An id cut for an error message: a huge id must not make a huge error. */
export function short(id: string): string {
  const text = String(id);
  return text.length <= 80 ? text : `${text.slice(0, 60)}…(${text.length} chars)`;
}

/** An epoch-ms column as a number, or null. */
export function ms(value: Int8): number | null {
  return value === null ? null : Number(value);
}

/** Epoch ms of an ISO time, or null when it is missing or not a time. */
export function toMs(iso: unknown): number | null {
  if (typeof iso !== "string") return null;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : time;
}

export const toIso = (time: number): string => new Date(time).toISOString();

/**
 * PostgreSQL text cannot hold NUL characters; a plain (display or filter) column gets U+FFFD in
 * their place. The JSON columns keep every character (JSON escapes it).
 */
export function plain(text: string): string;
export function plain(text: string | null): string | null;
export function plain(text: string | null): string | null {
  return text?.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    sorted[name] = sortKeys((value as Record<string, unknown>)[name]);
  }
  return sorted;
}

/** JSON with object keys sorted at every depth: two equal answers give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** A run's state as readers see it: a waiting run whose earliest deadline passed is `expired`. */
export function runState(row: { state: StoredRunState; wake_ms: Int8 }, now: number): RunState {
  const wake = ms(row.wake_ms);
  return row.state === "waiting" && wake !== null && wake <= now ? "expired" : row.state;
}

/** A request's state as readers see it: waiting past its deadline is `expired`. */
export function requestState(
  row: { state: StoredRequestState; expires_ms: Int8 },
  now: number,
): RequestState {
  const expires = ms(row.expires_ms);
  return row.state === "waiting" && expires !== null && expires <= now ? "expired" : row.state;
}

function corrupt(runId: string, what: string, cause: unknown): never {
  throw new CheckpointError(
    undefined,
    `the stored ${what} of run "${short(runId)}" is corrupt: ${(cause as Error).message}`,
    { cause },
  );
}

function parse(json: string, runId: string, what: string): unknown {
  try {
    return JSON.parse(json);
  } catch (cause) {
    return corrupt(runId, what, cause);
  }
}

/** Parses and validates a stored checkpoint; a `CheckpointError` naming the run otherwise. */
export function readCheckpoint(json: string, runId: string): Checkpoint {
  const value = parse(json, runId, "checkpoint");
  try {
    assertCheckpoint(value);
    return value;
  } catch (cause) {
    if (!(cause instanceof CheckpointError)) throw cause;
    const problem = cause.message.replace(/^invalid checkpoint: /, "");
    throw new CheckpointError(
      undefined,
      `the stored checkpoint of run "${short(runId)}" cannot be used: ${problem}`,
      { cause },
    );
  }
}

/** Parses and validates a stored journal entry; a `CheckpointError` naming the run otherwise. */
export function readJournalEntry(json: string, runId: string): JournalEntry {
  const value = parse(json, runId, "journal entry");
  assertJournalEntry(value, short(runId));
  return value;
}

/** Parses a stored answer a worker is about to apply; a `CheckpointError` naming the run otherwise. */
export function readAnswer(json: string, runId: string): Answer {
  const value = parse(json, runId, "answer");
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    corrupt(runId, "answer", new Error("it is not an object"));
  }
  return value as Answer;
}

/** Parses a stored result; a `CheckpointError` naming the run otherwise. */
export function readResult(json: string, runId: string): FinishedResult {
  const result = parse(json, runId, "result") as FinishedResult;
  // `sessionId` is a required key that may be undefined, which JSON drops: put it back.
  if (typeof result === "object" && result !== null && !Object.hasOwn(result, "sessionId")) {
    result.sessionId = undefined;
  }
  return result;
}

/** The recorded error of a run; a damaged column reads as an `unreadable` error, never a failure. */
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

/** A request from its row; a damaged JSON column falls back to the plain columns. */
export function readRequest(
  row: Pick<RequestRow, "request_id" | "kind" | "prompt" | "request_json">,
): Request {
  try {
    const value: unknown = JSON.parse(row.request_json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const request = value as Request;
      return typeof request.id === "string" ? request : { ...request, id: row.request_id };
    }
  } catch {
    // Fall through to the plain columns.
  }
  return { id: row.request_id, kind: row.kind, prompt: row.prompt };
}

/** An answer for a read (getRun, getRequest): a damaged one is left out rather than failing. */
export function readAnswerLoosely(json: string | null): Answer | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as Answer;
    }
  } catch {
    // Fall through.
  }
  return undefined;
}

/** Only what a store records of an error: no stack, no extra fields that could hold secrets. */
export function errorInfo(error: RunErrorInfo, method: string): RunErrorInfo {
  if (
    typeof error !== "object" ||
    error === null ||
    typeof error.code !== "string" ||
    typeof error.message !== "string"
  ) {
    throw new TypeError(`${method}: the error must be { code, message, at }`);
  }
  const at = typeof error.at === "string" ? error.at : toIso(Date.now());
  return { code: error.code, message: error.message, at };
}

/** Throws a TypeError for a lease that is not one (a programming error, not a lost lease). */
export function checkLease(lease: Lease, method: string): void {
  if (
    typeof lease !== "object" ||
    lease === null ||
    typeof lease.runId !== "string" ||
    typeof lease.owner !== "string" ||
    !Number.isInteger(lease.token)
  ) {
    throw new TypeError(`${method}: lease must be { runId, owner, token, expiresAt }`);
  }
}

/** Throws a TypeError unless `leaseMs` is a duration. */
export function checkLeaseMs(leaseMs: number, method: string): void {
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 0) {
    throw new TypeError(`${method}: leaseMs must be zero or more milliseconds`);
  }
}

/** Throws a TypeError unless `owner` names a worker. */
export function checkOwner(owner: string, method: string): void {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`${method}: owner must be a non-empty string`);
  }
}
