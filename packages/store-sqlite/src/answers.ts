import {
  type Answer,
  AnswerConflictError,
  type AnswerOptions,
  type AnswerReceipt,
  checkActor,
  checkDurableAnswerSize,
  parseAnswer,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import type { Db } from "./driver.js";
import type { EventOps } from "./events.js";
import { canonicalJson, type RunRow, runState, type StoredRequestState, toIso } from "./rows.js";

interface TargetRow {
  run_id: string;
  state: StoredRequestState;
  expires_ms: number | null;
  answer_json: string | null;
}

/**
 * Prepares the statements once and returns `answer`. Recording is one short transaction on
 * two rows: it runs nothing else (the run continues later, in whichever worker claims it).
 */
export function answerOp(
  db: Db,
  events: EventOps,
): (answer: Answer, options?: AnswerOptions) => AnswerReceipt {
  // A request id is normally raised by one run; if several ever share it, the newest halt wins.
  const target = db.prepare<[string], TargetRow>(
    `SELECT run_id, state, expires_ms, answer_json FROM requests
      WHERE request_id = ? ORDER BY halt_no DESC LIMIT 1`,
  );
  const runOf = db.prepare<[string], Pick<RunRow, "state" | "wake_ms">>(
    "SELECT state, wake_ms FROM runs WHERE run_id = ?",
  );
  const record = db.prepare<[string, number, string | null, string, string]>(
    `UPDATE requests SET state = 'answered', answer_json = ?, answered_ms = ?, answered_by = ?
      WHERE request_id = ? AND run_id = ? AND state = 'waiting'`,
  );
  // An answer takes the request out of the run's wake time, and wakes a waiting run.
  const wake = db.prepare<[{ runId: string; now: number }]>(
    `UPDATE runs SET
       wake_ms = (SELECT MIN(expires_ms) FROM requests WHERE run_id = @runId AND state = 'waiting'),
       state = CASE WHEN state = 'waiting' THEN 'ready' ELSE state END,
       ready_ms = CASE WHEN state = 'waiting' THEN @now ELSE ready_ms END,
       updated_ms = @now
     WHERE run_id = @runId`,
  );

  const answerTx = db.transaction((answer: Answer, json: string, by: string | undefined) => {
    const now = Date.now();
    const requestId = answer.id;
    const row = target.get(requestId);
    if (row === undefined) throw new SuspensionNotFoundError(requestId);
    const receipt = (duplicate: boolean): AnswerReceipt => {
      const run = runOf.get(row.run_id);
      return {
        runId: row.run_id,
        requestId,
        duplicate,
        state: run === undefined ? "done" : runState(run, now),
      };
    };
    const pastDeadline = row.expires_ms !== null && row.expires_ms <= now;
    const deadline = row.expires_ms === null ? undefined : toIso(row.expires_ms);

    // Nothing waits for an answer to a cancelled run, not even the same one again.
    if (row.state === "cancelled") throw new AnswerConflictError(requestId, "cancelled");
    if (row.answer_json !== null) {
      // Idempotent: the same answer again (a retried POST, a redelivered message) is fine.
      let same = false;
      try {
        same = canonicalJson(JSON.parse(row.answer_json)) === canonicalJson(answer);
      } catch {
        // A damaged stored answer is not the same answer.
      }
      if (same) return receipt(true);
      throw new AnswerConflictError(requestId, "answered");
    }
    if (row.state === "applied") {
      // Resolved without an answer: it expired, or the run went on without it.
      throw pastDeadline
        ? new AnswerConflictError(requestId, "expired", deadline)
        : new AnswerConflictError(requestId, "answered");
    }
    if (pastDeadline) throw new AnswerConflictError(requestId, "expired", deadline);

    record.run(json, now, by ?? null, requestId, row.run_id);
    wake.run({ runId: row.run_id, now });
    // Who answered and whether, never the answer's data: a follower may see less than the run.
    const data: { requestId: string; ok: boolean; reason?: string; by?: string } = {
      requestId,
      ok: answer.ok,
    };
    if (typeof answer.reason === "string") data.reason = answer.reason;
    if (by !== undefined) data.by = by;
    events.record(row.run_id, [{ type: "answered", data }]);
    return receipt(false);
  });

  return (input, options) => {
    // Validated (and stripped of unknown keys) before anything is read or written.
    const answer = parseAnswer(input);
    // Every size has a cap: an answer too large to keep is refused (answer_too_large).
    // The text kept is the one measured.
    const json = JSON.stringify(answer);
    checkDurableAnswerSize(answer, json);
    if (options !== undefined && (typeof options !== "object" || options === null)) {
      throw new TypeError("answer(): options must be { by? }");
    }
    const by = checkActor(options?.by, "by");
    return answerTx.immediate(answer, json, by) as AnswerReceipt;
  };
}
