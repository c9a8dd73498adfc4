// What recording an answer would refuse, found before anything is recorded: a resume answers
// several interrupts, and a RunStore records one answer at a time, so every refusal it can
// foresee (who may answer, how large an answer may be, an answer already given) is checked for
// every entry first. The same refusals, with the same messages, as `recordAnswer` of
// @toolnexus/web gives when it records.
import {
  type Answer,
  ApprovalRefusedError,
  canonicalJson,
  checkApprover,
  checkDurableAnswerSize,
  InvalidIdError,
  MAX_DURABLE_ANSWER_CHARS,
  parseAnswer,
  type RequestInfo,
  type RunInfo,
  ToolnexusError,
  WireFormatError,
} from "@toolnexus/core";
import { WebError } from "@toolnexus/web";

/** Why a store would refuse an answer as a conflict (as `AnswerConflictError.reason`). */
export type ConflictReason = "answered" | "expired" | "cancelled";

const CONFLICT_MESSAGES: Record<ConflictReason, string> = {
  answered: "this request already has a different answer; an answer cannot be changed",
  expired: "this request expired; its run went on as if it were declined",
  cancelled: "this request's run was cancelled; nothing waits for the answer",
};

/** The 409 `answer_conflict` a store's conflict becomes. */
export function conflictError(reason: ConflictReason): WebError {
  return new WebError(409, "answer_conflict", CONFLICT_MESSAGES[reason], { reason });
}

function approverRefusal(error: ApprovalRefusedError): WebError {
  const message =
    error.reason === "own_request"
      ? "you started the run that asks for this approval; someone else must approve it"
      : error.reason === "already_approved"
        ? "you already approved this call; it needs another person's approval"
        : "this approval needs to know who answers";
  return new WebError(403, "approval_refused", message, { reason: error.reason });
}

const tooLarge = () =>
  new WebError(
    413,
    "payload_too_large",
    `the answer is over the ${MAX_DURABLE_ANSWER_CHARS} characters of JSON a run keeps`,
  );

/**
 * A store's refusal of input the caller sent, as the typed error it is (an id no store can keep:
 * 400; an answer too large to keep: 413); `undefined` for anything else (a 500 for the log). An
 * id of the host's (the caller's id from `identify`, a run id) stays a 500: the host's bug.
 */
export function storeRefusal(error: unknown): WebError | undefined {
  if (
    error instanceof InvalidIdError &&
    (error.field === "requestId" || error.field === "answer.id")
  ) {
    return new WebError(400, "bad_request", "the interrupt id is not one a store can keep");
  }
  if (error instanceof ToolnexusError && error.code === "answer_too_large") return tooLarge();
  return undefined;
}

/**
 * Checks `answer` to `info`'s request as recording it with `by` would: an approval policy's
 * request answered by its requester or a second time by one person (403 `approval_refused`), an
 * answer too large to keep (413 `payload_too_large`), a malformed one (400). Returns
 * `"duplicate"` when the request already has this very answer (nothing to record), a
 * {@link ConflictReason} when recording would conflict, `undefined` when it can be recorded.
 */
export function checkBeforeRecording(
  info: RequestInfo,
  run: RunInfo,
  answer: Answer,
  by: string,
): ConflictReason | "duplicate" | undefined {
  try {
    checkApprover(info.request, by);
  } catch (error) {
    if (error instanceof ApprovalRefusedError) throw approverRefusal(error);
    throw error;
  }
  let parsed: Answer;
  try {
    parsed = parseAnswer(answer);
    checkDurableAnswerSize(parsed);
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw new WebError(400, "bad_request", "the answer is malformed", {
        issues: [...error.issues],
      });
    }
    throw storeRefusal(error) ?? error;
  }
  // As every store decides: a recorded answer is kept (the same one again changes nothing), a
  // cancelled run or a passed deadline takes none, a request resolved without one takes none.
  if (info.answer !== undefined) {
    return canonicalJson(info.answer) === canonicalJson(parsed) ? "duplicate" : "answered";
  }
  if (info.state === "cancelled" || run.state === "cancelled") return "cancelled";
  const expired = info.expiresAt !== undefined && Date.parse(info.expiresAt) <= Date.now();
  if (info.state === "expired" || expired) return "expired";
  if (info.state !== "waiting") return "answered";
  return undefined;
}
