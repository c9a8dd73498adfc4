// What recording an answer would refuse, found before anything is recorded: one POST may answer
// several approvals, and a RunStore records one answer at a time, so every refusal it can
// foresee (who may answer, how large an answer may be) is checked for every approval first. The
// same refusals, with the same messages, as `recordAnswer` of @toolnexus/web gives when it
// records.
import {
  type Answer,
  ApprovalRefusedError,
  checkApprover,
  checkDurableAnswerSize,
  InvalidIdError,
  MAX_DURABLE_ANSWER_CHARS,
  parseAnswer,
  type Request,
  ToolnexusError,
  WireFormatError,
} from "@toolnexus/core";
import { checkAgainstSchema, WebError } from "@toolnexus/web";

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
 * A store's refusal of input the caller sent, as the typed error it is (an approval id no store
 * can keep: 400; an answer too large to keep: 413); `undefined` for anything else (a 500 for the
 * log). An id of the host's (the caller's id from `identify`) stays a 500: the host's bug.
 */
export function storeRefusal(error: unknown): WebError | undefined {
  if (
    error instanceof InvalidIdError &&
    (error.field === "requestId" || error.field === "answer.id")
  ) {
    return new WebError(400, "bad_request", "the approval id is not one a store can keep");
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
 * Checks `answer` to `request` as recording it with `by` would: its schema (400
 * `invalid_answer`), an approval policy's request answered by its requester or a second time by
 * one person (403 `approval_refused`), an answer too large to keep (413 `payload_too_large`), a
 * malformed one (400).
 */
export function checkBeforeRecording(request: Request, answer: Answer, by: string): void {
  checkAgainstSchema(request, answer);
  try {
    checkApprover(request, by);
  } catch (error) {
    if (error instanceof ApprovalRefusedError) throw approverRefusal(error);
    throw error;
  }
  try {
    checkDurableAnswerSize(parseAnswer(answer));
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw new WebError(400, "bad_request", "the answer is malformed", {
        issues: [...error.issues],
      });
    }
    throw storeRefusal(error) ?? error;
  }
}
