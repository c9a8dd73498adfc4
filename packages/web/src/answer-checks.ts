// Everything recording an answer would refuse, found before the store is asked: a request that
// answers several questions at once (an AG-UI resume, an AI SDK POST of approvals) checks every
// one first, so a refusal records nothing. `recordAnswer` runs the same checks, so every handler
// refuses with the same status, code and message.
import {
  type Answer,
  ApprovalRefusedError,
  canonicalJson,
  checkApprover,
  checkDurableAnswerSize,
  InvalidIdError,
  MAX_DURABLE_ANSWER_CHARS,
  parseAnswer,
  type Request,
  type RequestInfo,
  type RunInfo,
  ToolnexusError,
  WireFormatError,
} from "@toolnexus/core";
import { checkAgainstSchema } from "./answer-body.js";
import { WebError } from "./errors.js";

/** Why a store refuses an answer as a conflict (`AnswerConflictError.reason`). */
export type AnswerConflictReason = "answered" | "expired" | "cancelled";

const CONFLICT_MESSAGES: Record<AnswerConflictReason, string> = {
  answered: "this request already has a different answer; an answer cannot be changed",
  expired: "this request expired; its run went on as if it were declined",
  cancelled: "this request's run was cancelled; nothing waits for the answer",
};

/** The `409 answer_conflict` (with its `reason`) a conflicting answer gets. */
export function answerConflict(reason: AnswerConflictReason): WebError {
  return new WebError(409, "answer_conflict", CONFLICT_MESSAGES[reason], { reason });
}

/** The `403 approval_refused` (with its `reason`) for core's `ApprovalRefusedError`. */
function approverRefusal(error: ApprovalRefusedError): WebError {
  const message =
    error.reason === "own_request"
      ? "you started the run that asks for this approval; someone else must approve it"
      : error.reason === "already_approved"
        ? "you already approved this call; it needs another person's approval"
        : "this approval needs to know who answers";
  return new WebError(403, "approval_refused", message, { reason: error.reason });
}

/**
 * A store's refusal of what the caller sent, as its typed error: an answer or request id no
 * store can keep, `400 bad_request` (`idName` names it: "the approval id"); an answer too large
 * to keep, `413 payload_too_large`. `undefined` for anything else (a 500 for the host's log),
 * an id of the host's own (the caller's, from `identify`) included: that is the host's bug.
 */
export function answerStoreRefusal(
  error: unknown,
  idName = "the request id",
): WebError | undefined {
  if (
    error instanceof InvalidIdError &&
    (error.field === "requestId" || error.field === "answer.id")
  ) {
    return new WebError(400, "bad_request", `${idName} is not one a store can keep`);
  }
  if (error instanceof ToolnexusError && error.code === "answer_too_large") {
    return new WebError(
      413,
      "payload_too_large",
      `the answer is over the ${MAX_DURABLE_ANSWER_CHARS} characters of JSON a run keeps`,
    );
  }
  return undefined;
}

/**
 * Throws what recording `answer` to `request` with `by` would refuse before the store decides:
 * an ok answer's `data` against the request's schema (`400 invalid_answer`), an approval
 * policy's request answered by its requester or twice by one person (`403 approval_refused`), a
 * malformed answer (`400 bad_request`) and one too large to keep (`413 payload_too_large`).
 */
export function checkAnswer(request: Request, answer: Answer, by: string): void {
  checkAgainstSchema(request, answer);
  try {
    checkApprover(request, by);
  } catch (error) {
    throw error instanceof ApprovalRefusedError ? approverRefusal(error) : error;
  }
  try {
    checkDurableAnswerSize(parseAnswer(answer));
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw new WebError(400, "bad_request", "the answer is malformed", {
        issues: [...error.issues],
      });
    }
    throw answerStoreRefusal(error) ?? error;
  }
}

/**
 * How the store would take `answer` to the request `info` of `run`, as every store decides:
 * `"duplicate"` when the request already has this very answer (nothing to record), the
 * {@link AnswerConflictReason} it would refuse it with, or `undefined` when it can be recorded.
 * Read with the request's info moments before: another process may still answer first.
 */
export function answerConflictOf(
  info: RequestInfo,
  run: RunInfo,
  answer: Answer,
): AnswerConflictReason | "duplicate" | undefined {
  if (info.answer !== undefined) {
    return canonicalJson(info.answer) === canonicalJson(parseAnswer(answer))
      ? "duplicate"
      : "answered";
  }
  if (info.state === "cancelled" || run.state === "cancelled") return "cancelled";
  const expired = info.expiresAt !== undefined && Date.parse(info.expiresAt) <= Date.now();
  if (info.state === "expired" || expired) return "expired";
  if (info.state !== "waiting") return "answered";
  return undefined;
}
