// Recording a person's answer the way `POST /requests/:id/answer` does, for handlers of other
// protocols: checked against the request's JSON Schema, kept with who answered (the caller the
// host identified, never a body), and a store's refusals turned into the same typed errors.
import {
  type Answer,
  AnswerConflictError,
  type AnswerReceipt,
  ApprovalRefusedError,
  checkApprover,
  type Request,
  type RunStore,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/core";
import { checkAgainstSchema } from "./answer-body.js";

/**
 * A policy's approval request (`request.data.approval`) is never answered by the person whose
 * run raised it, nor twice by one person: 403 `approval_refused`, with the reason.
 */
function refuseApprover(request: Request, by: string): void {
  try {
    checkApprover(request, by);
  } catch (error) {
    if (!(error instanceof ApprovalRefusedError)) throw error;
    const message =
      error.reason === "own_request"
        ? "you started the run that asks for this approval; someone else must approve it"
        : error.reason === "already_approved"
          ? "you already approved this call; it needs another person's approval"
          : "this approval needs to know who answers";
    throw new WebError(403, "approval_refused", message, { reason: error.reason });
  }
}

import { requestNotFound, WebError } from "./errors.js";

/**
 * Checks `answer` against `request`'s schema (400 `invalid_answer`) and records it with `by`.
 * A different answer already recorded, an expired request or a cancelled run: 409
 * `answer_conflict` with its `reason`; an approval policy's request answered by the run's
 * requester or by someone who already approved the call: 403 `approval_refused` with its
 * `reason`; an unknown request: 404; malformed: 400. Anything else the
 * store throws is thrown as is (a 500 for the host's log).
 */
export async function recordAnswer(
  store: RunStore,
  request: Request,
  answer: Answer,
  by: string,
): Promise<AnswerReceipt> {
  checkAgainstSchema(request, answer);
  refuseApprover(request, by);
  try {
    return await store.answer(answer, { by });
  } catch (error) {
    if (error instanceof SuspensionNotFoundError) throw requestNotFound();
    if (error instanceof AnswerConflictError) {
      const message =
        error.reason === "answered"
          ? "this request already has a different answer; an answer cannot be changed"
          : error.reason === "expired"
            ? "this request expired; its run went on as if it were declined"
            : "this request's run was cancelled; nothing waits for the answer";
      throw new WebError(409, "answer_conflict", message, { reason: error.reason });
    }
    if (error instanceof WireFormatError) {
      throw new WebError(400, "bad_request", "the answer is malformed", {
        issues: [...error.issues],
      });
    }
    throw error;
  }
}
