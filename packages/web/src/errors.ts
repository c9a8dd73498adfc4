// Every refusal is a typed JSON body `{ error: { code, message, issues? } }` with a status a
// client can act on. Messages are written here, never copied from a thrown error, so nothing
// the host or the store keeps (a stack, a secret, another caller's id) reaches the caller.

/** The codes a handler's error bodies carry; stable, for `switch`es in a client. */
export type WebErrorCode =
  | "bad_request"
  | "invalid_answer"
  | "unauthenticated"
  | "forbidden"
  | "forbidden_origin"
  | "not_found"
  | "method_not_allowed"
  | "answer_conflict"
  | "approval_refused"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_implemented"
  | "too_many_streams"
  | "internal";

/** The JSON body of every error response. */
export interface WebErrorBody {
  error: {
    code: WebErrorCode;
    message: string;
    /** Every problem found, one readable string each (bad query, bad body, schema problems). */
    issues?: string[];
    /**
     * For `answer_conflict`: why (`answered`, `expired`, `cancelled`); for `approval_refused`:
     * `own_request` or `already_approved`.
     */
    reason?: string;
    /** For `internal`: the id the host's log (and `onError`) has the error under. */
    errorId?: string;
  };
}

/**
 * A refusal with its HTTP status. Throw one from your `start` function to refuse a start with a
 * message of your own (it is sent as is: put nothing secret in it).
 */
export class WebError extends Error {
  readonly status: number;
  readonly code: WebErrorCode;
  readonly issues: readonly string[] | undefined;
  readonly reason: string | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(
    status: number,
    code: WebErrorCode,
    message: string,
    extra: { issues?: readonly string[]; reason?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "WebError";
    this.status = status;
    this.code = code;
    this.issues = extra.issues;
    this.reason = extra.reason;
    this.headers = extra.headers;
  }
}

/** Headers every JSON response carries: not cached, not sniffed. */
const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorResponse(error: WebError): Response {
  const body: WebErrorBody = { error: { code: error.code, message: error.message } };
  if (error.issues !== undefined) body.error.issues = [...error.issues];
  if (error.reason !== undefined) body.error.reason = error.reason;
  return jsonResponse(error.status, body, error.headers);
}

export function internalResponse(errorId: string): Response {
  const body: WebErrorBody = {
    error: {
      code: "internal",
      message: `the server failed to handle this request; its log has the error under ${errorId}`,
      errorId,
    },
  };
  return jsonResponse(500, body);
}

// One message for an unknown id and for one the caller may not see, so a 404 reveals nothing.
export const requestNotFound = () =>
  new WebError(404, "not_found", "no request with this id (or it is not yours to see)");
export const runNotFound = () =>
  new WebError(404, "not_found", "no run with this id (or it is not yours to see)");
