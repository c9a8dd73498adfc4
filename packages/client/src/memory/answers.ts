import {
  AnswerConflictError,
  type AnswerReceipt,
  canonicalJson,
  parseAnswer,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import type { MemoryRunStore } from "../memory-stores.js";
import { type MemoryState, newest, runState, toIso } from "./rows.js";

// A human's answer is only recorded (and the run made ready); nothing runs here: the run
// continues later, in whichever worker claims it.

export function answerOp(state: MemoryState): MemoryRunStore["answer"] {
  const { runs, byRequest, notify } = state;
  return (input) => {
    // Validated (and stripped of unknown keys) and copied before anything is read.
    const answer = parseAnswer(input);
    const json = JSON.stringify(answer);
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
    if (row.answerJson !== undefined) {
      // Idempotent: the same answer again (a retried POST, a redelivery) changes nothing.
      if (canonicalJson(JSON.parse(row.answerJson)) === canonicalJson(answer)) return receipt(true);
      throw new AnswerConflictError(answer.id, "answered");
    }
    if (row.state === "applied") {
      // Resolved without an answer: it expired, or the run went on without it.
      throw pastDeadline
        ? new AnswerConflictError(answer.id, "expired", deadline)
        : new AnswerConflictError(answer.id, "answered");
    }
    if (pastDeadline) throw new AnswerConflictError(answer.id, "expired", deadline);
    row.state = "answered";
    row.answerJson = json;
    run.updatedMs = now;
    if (run.state === "waiting") {
      run.state = "ready";
      run.readyMs = now;
      notify();
    }
    return receipt(false);
  };
}
