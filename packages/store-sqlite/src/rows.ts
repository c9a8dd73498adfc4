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
  cancel_by: string | null;
  cancel_reason: string | null;
  /** ISO time a cancel was asked (running) or done (cancelled); null when none was. */
  cancel_at: string | null;
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
  answered_ms: number | null;
  answered_by: string | null;
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

/** Who cancelled a run, why and when, from its row; undefined when no cancel was asked. */
export function readCancel(
  row: Pick<RunRow, "cancel_by" | "cancel_reason" | "cancel_at">,
): CancelInfo | undefined {
  if (row.cancel_at === null) return undefined;
  const info: CancelInfo = { at: row.cancel_at };
  if (row.cancel_by !== null) info.by = row.cancel_by;
  if (row.cancel_reason !== null) info.reason = row.cancel_reason;
  return info;
}

/** The data of a `cancel_requested` or `cancelled` event: who and why, never when (`at` is). */
export function cancelData(cancel: { by?: string | null; reason?: string | null }): {
  by?: string;
  reason?: string;
} {
  const data: { by?: string; reason?: string } = {};
  if (typeof cancel.by === "string") data.by = cancel.by;
  if (typeof cancel.reason === "string") data.reason = cancel.reason;
  return data;
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
