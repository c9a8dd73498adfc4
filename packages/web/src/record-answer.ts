// Recording a person's answer the way `POST /requests/:id/answer` does, for handlers of other
// protocols: checked against the request's JSON Schema, kept with who answered (the caller the
// host identified, never a body), and a store's refusals turned into the same typed errors.
import {
  type Answer,
  AnswerConflictError,
  type AnswerReceipt,
  type Request,
  type RunStore,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/core";
import { answerConflict, answerStoreRefusal, checkAnswer } from "./answer-checks.js";
import { requestNotFound, WebError } from "./errors.js";

/**
 * Checks `answer` as {@link checkAnswer} does and records it with `by`. A different answer
 * already recorded, an expired request or a cancelled run: 409 `answer_conflict` with its
 * `reason`; an unknown request: 404; an id or an answer a store cannot keep: 400 or 413.
 * Anything else the store throws is thrown as is (a 500 for the host's log).
 */
export async function recordAnswer(
  store: RunStore,
  request: Request,
  answer: Answer,
  by: string,
): Promise<AnswerReceipt> {
  checkAnswer(request, answer, by);
  try {
    return await store.answer(answer, { by });
  } catch (error) {
    if (error instanceof SuspensionNotFoundError) throw requestNotFound();
    if (error instanceof AnswerConflictError) throw answerConflict(error.reason);
    if (error instanceof WireFormatError) {
      throw new WebError(400, "bad_request", "the answer is malformed", {
        issues: [...error.issues],
      });
    }
    throw answerStoreRefusal(error) ?? error;
  }
}
