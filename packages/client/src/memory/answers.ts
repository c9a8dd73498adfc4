import {
  AnswerConflictError,
  type AnswerReceipt,
  canonicalJson,
  checkActor,
  checkDurableAnswerSize,
  jsonCopy,
  parseAnswer,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import { type MemoryState, newest, runState, toIso } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// A human's answer is only recorded (and the run made ready); nothing runs here: the run
// continues later, in whichever worker claims it.

export function answerOp(state: MemoryState): MemoryRunStore["answer"] {
  const { runs, byRequest, notify, record } = state;
  return (input, options) => {
    // Validated (and stripped of unknown keys) and copied before anything is read.
    const answer = parseAnswer(input);
    // Every size has a cap: an answer too large to keep is refused (answer_too_large).
    checkDurableAnswerSize(answer);
    const by = checkActor(options?.by, "answer: by");
    // The store's own copy, made before anything changes (it throws for data JSON cannot hold).
    const kept = jsonCopy(answer);
    const row = newest(byRequest, answer.id);
    if (row === undefined) throw new SuspensionNotFoundError(answer.id);
    const run = runs.get(row.runId)!;
    const now = Date.now();
    const receipt = (duplicate: boolean): AnswerReceipt => ({
      runId: run.runId,
      requestId: answer.id,
      duplicate,
      state: runState(run, now),
    });
    const pastDeadline = row.expiresMs !== undefined && row.expiresMs <= now;
    const deadline = row.expiresMs === undefined ? undefined : toIso(row.expiresMs);
    if (row.answer !== undefined) {
      // Idempotent: the same answer again (a retried POST, a redelivery) changes nothing.
      if (canonicalJson(row.answer) === canonicalJson(answer)) return receipt(true);
      throw new AnswerConflictError(answer.id, "answered");
    }
    if (row.state === "cancelled" || run.state === "cancelled") {
      throw new AnswerConflictError(answer.id, "cancelled", cancelledBy(run.cancelJson));
    }
    if (row.state === "applied") {
      // Resolved without an answer: it expired, or the run went on without it.
      throw pastDeadline
        ? new AnswerConflictError(answer.id, "expired", deadline)
        : new AnswerConflictError(answer.id, "answered");
    }
    if (pastDeadline) throw new AnswerConflictError(answer.id, "expired", deadline);
    row.state = "answered";
    row.answer = kept;
    row.answeredAt = toIso(now);
    if (by !== undefined) row.answeredBy = by;
    run.updatedMs = now;
    // Who answered and how, never the answer's data: a follower may see less than the run.
    const data: Record<string, unknown> = { requestId: answer.id, ok: answer.ok };
    if (answer.reason !== undefined) data.reason = answer.reason;
    if (by !== undefined) data.by = by;
    record(run, "answered", data);
    if (run.state === "waiting") {
      run.state = "ready";
      run.readyMs = now;
      notify();
    }
    return receipt(false);
  };
}

/** "cancelled by bob: changed my mind", for the conflict's message. */
function cancelledBy(cancelJson: string | undefined): string | undefined {
  if (cancelJson === undefined) return undefined;
  const cancel = JSON.parse(cancelJson) as { by?: string; reason?: string };
  const who = cancel.by === undefined ? "cancelled" : `cancelled by ${cancel.by}`;
  return cancel.reason === undefined ? who : `${who}: ${cancel.reason}`;
}
