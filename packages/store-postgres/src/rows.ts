import {
  type CancelInfo,
  type Request,
  type RequestState,
  type RunState,
  readStoredRequest,
} from "@toolnexus/core";

/** The states a run row can hold; `expired` is derived on read (see {@link runState}). */
export type StoredRunState = "waiting" | "ready" | "running" | "done" | "failed" | "cancelled";
/** The states a request row can hold; `expired` is derived on read. */
export type StoredRequestState = "waiting" | "answered" | "applied" | "cancelled";

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
  /** Who asked to cancel it, why and when (a `CancelInfo` as JSON). */
  cancel_json: string | null;
}

/** The columns of `runs` every read selects. */
export const RUN_COLUMNS = `run_id, session_id, agent, state, created_at, updated_ms, owner, token,
  lease_expires_ms, ready_ms, wake_ms, failures, error_json, checkpoint_json, result_json,
  cancel_json`;

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
  answered_ms: Int8;
  answered_by: string | null;
}

/** The columns of `requests` every read selects. */
export const REQUEST_COLUMNS = `request_id, run_id, state, kind, prompt, request_json, session_id,
  agent, created_at, expires_at, expires_ms, answer_json, answered_ms, answered_by`;

/**
 * The database server's clock, in epoch ms, as SQL. Leases, takeovers, retry times and answer
 * deadlines are decided by this one clock, never by the clocks of the machines the workers run
 * on: a worker whose clock runs ahead cannot take over a live lease.
 */
export const NOW_MS = "(floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint";

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

/** A request from its row; a damaged JSON column falls back to the plain columns. */
export function readRequest(
  row: Pick<RequestRow, "request_id" | "kind" | "prompt" | "request_json">,
): Request {
  return readStoredRequest(row.request_json, {
    id: row.request_id,
    kind: row.kind,
    prompt: row.prompt,
  });
}

/** A cancel as stored (`cancel_json`), or undefined when missing or damaged. */
export function readCancel(json: string | null): CancelInfo | undefined {
  if (json === null) return undefined;
  try {
    const value = JSON.parse(json) as Partial<CancelInfo>;
    if (typeof value !== "object" || value === null || typeof value.at !== "string") {
      return undefined;
    }
    const cancel: CancelInfo = { at: value.at };
    if (typeof value.by === "string") cancel.by = value.by;
    if (typeof value.reason === "string") cancel.reason = value.reason;
    return cancel;
  } catch {
    return undefined;
  }
}

/** The data of a `cancelled` or `cancel_requested` event: who and why, without the time. */
export function cancelEventData(cancel: { by?: string; reason?: string }): string {
  const data: { by?: string; reason?: string } = {};
  if (cancel.by !== undefined) data.by = cancel.by;
  if (cancel.reason !== undefined) data.reason = cancel.reason;
  return JSON.stringify(data);
}

// Reading stored values back, the argument checks and canonical JSON: one copy in core for every
// RunStore.
export {
  canonicalJson,
  checkLease,
  checkLeaseMs,
  checkOwner,
  readStoredAnswer as readAnswer,
  readStoredAnswerLoosely as readAnswerLoosely,
  readStoredCheckpoint as readCheckpoint,
  readStoredError as readError,
  readStoredJournalEntry as readJournalEntry,
  readStoredResult as readResult,
  shortId as short,
  storedError as errorInfo,
} from "@toolnexus/core";
