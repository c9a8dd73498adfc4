// A toolnexus question as an AG-UI interrupt, and an AG-UI resume entry as its answer. AG-UI 1.0
// ends a run that needs a person with RUN_FINISHED { outcome: interrupt } and takes the answers
// in the next RunAgentInput's `resume`; a toolnexus run halts the same way, so each waiting
// Request is one Interrupt (same id) and each resume entry becomes one recorded Answer.
import type { Interrupt, ResumeEntry } from "@ag-ui/core";
import type { Answer, JSONSchema, RequestInfo, Request as ToolnexusRequest } from "@toolnexus/core";
import { checkAgainstSchema, schemaOf, WebError } from "@toolnexus/web";

/** The longest reason a person may give when declining an approval. */
export const MAX_DECLINE_REASON_CHARS = 1_000;

/**
 * What an approval interrupt's resume payload must be: `{ approved: true }`, or
 * `{ approved: false, reason? }`. Sent as the interrupt's `responseSchema`, so a client can build
 * the form from it.
 */
export const APPROVAL_RESPONSE_SCHEMA: JSONSchema = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    reason: { type: "string", maxLength: MAX_DECLINE_REASON_CHARS },
  },
  required: ["approved"],
  additionalProperties: false,
};

/** The key of a toolnexus interrupt's own `metadata` (AG-UI reserves only `ag-ui`). */
export const METADATA_KEY = "toolnexus";

/**
 * A waiting request as an AG-UI Interrupt: `id` the request's id, `reason` its kind
 * (`approval`, `input`, `authorization`…), `message` its prompt, `responseSchema` what the
 * resume payload must match, `toolCallId` the call it halted when known, and in
 * `metadata.toolnexus` the kind, URL and data as asked.
 */
export function interruptOf(
  request: ToolnexusRequest,
  options: { toolCallId?: string; expiresAt?: string } = {},
): Interrupt {
  const interrupt: Interrupt = { id: request.id, reason: request.kind, message: request.prompt };
  if (options.toolCallId !== undefined) interrupt.toolCallId = options.toolCallId;
  const responseSchema = request.kind === "approval" ? APPROVAL_RESPONSE_SCHEMA : schemaOf(request);
  if (responseSchema !== undefined) interrupt.responseSchema = responseSchema;
  const expiresAt = options.expiresAt ?? request.expiresAt;
  if (expiresAt !== undefined) interrupt.expiresAt = expiresAt;
  const own: Record<string, unknown> = { kind: request.kind };
  if (request.url !== undefined) own.url = request.url;
  if (request.data !== undefined) own.data = request.data;
  interrupt.metadata = { [METADATA_KEY]: own };
  return interrupt;
}

function bad(at: string, issues: string[]): WebError {
  return new WebError(
    400,
    "invalid_answer",
    `${at}: the resume payload does not fit the interrupt`,
    {
      issues: issues.map((issue) => `${at}.payload${issue}`),
    },
  );
}

function approvalAnswer(id: string, payload: unknown, at: string): Answer {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw bad(at, [": an object { approved, reason? }"]);
  }
  const { approved, reason, ...rest } = payload as Record<string, unknown>;
  const issues = Object.keys(rest).map((key) => `.${key.slice(0, 40)}: unknown field`);
  if (typeof approved !== "boolean") issues.push(".approved: required, true or false");
  if (reason !== undefined) {
    if (typeof reason !== "string" || reason.length > MAX_DECLINE_REASON_CHARS) {
      issues.push(`.reason: a string of at most ${MAX_DECLINE_REASON_CHARS} characters`);
    } else if (approved === true) issues.push(".reason: only when approved is false");
  }
  if (issues.length > 0) throw bad(at, issues);
  if (approved === true) return { id, ok: true };
  // The person's words travel in the answer's data; the tool sees them, the event log does not.
  const answer: Answer = { id, ok: false, reason: "declined" };
  if (typeof reason === "string" && reason !== "") answer.data = { reason };
  return answer;
}

/**
 * The Answer a resume entry gives `info`'s request, checked: `cancelled` declines it; a
 * resolved approval takes `{ approved, reason? }`; any other kind takes its data as the payload
 * (an object, `{}` when absent), checked against the request's JSON Schema. A payload that does
 * not fit is a 400 (`invalid_answer`) naming `at` and listing every problem.
 */
export function answerOfResume(entry: ResumeEntry, info: RequestInfo, at: string): Answer {
  const { request } = info;
  if (entry.status === "cancelled") return { id: request.id, ok: false, reason: "declined" };
  if (request.kind === "approval") return approvalAnswer(request.id, entry.payload, at);
  const { payload } = entry;
  if (
    payload !== undefined &&
    (typeof payload !== "object" || payload === null || Array.isArray(payload))
  ) {
    throw bad(at, [": an object (the answer's data)"]);
  }
  const answer: Answer = {
    id: request.id,
    ok: true,
    data: (payload ?? {}) as Record<string, unknown>,
  };
  try {
    checkAgainstSchema(request, answer);
  } catch (error) {
    if (error instanceof WebError) {
      throw bad(
        at,
        (error.issues ?? []).map((issue) => issue.replace(/^data/, "")),
      );
    }
    throw error;
  }
  return answer;
}
