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
import { key } from "./connection.js";
import type { Context } from "./context.js";
import {
  canonicalJson,
  type Int8,
  ms,
  NOW_MS,
  runState,
  type StoredRequestState,
  type StoredRunState,
  toIso,
} from "./rows.js";

interface TargetRow {
  run_key: Buffer;
  run_id: string;
  state: StoredRequestState;
  expires_ms: Int8;
  answer_json: string | null;
  run_state: StoredRunState;
  wake_ms: Int8;
  now_ms: Int8;
}

/**
 * Builds `answer`. Recording is one short transaction on two rows: it runs nothing else (the
 * run continues later, in whichever worker claims it), and tells the workers when it made a run
 * ready.
 */
export function answerOp(
  ctx: Context,
): (answer: Answer, options?: AnswerOptions) => Promise<AnswerReceipt> {
  const { db, s, name } = ctx;
  return async (input, options) => {
    // Validated (and stripped of unknown keys) before anything is read or written.
    const answer = parseAnswer(input);
    // Every size has a cap: an answer too large to keep is refused (answer_too_large).
    // The text kept is the one measured.
    const json = JSON.stringify(answer);
    checkDurableAnswerSize(answer, json);
    if (options !== undefined && (typeof options !== "object" || options === null)) {
      throw new TypeError("answer(): options must be { by? }");
    }
    const by = checkActor(options?.by, "answer(): by") ?? null;
    // The `answered` event: who answered and how, never the answer's data.
    const answered: Record<string, unknown> = { requestId: answer.id, ok: answer.ok };
    if (answer.reason !== undefined) answered.reason = answer.reason;
    if (by !== null) answered.by = by;
    const eventJson = JSON.stringify(answered);
    const requestId = answer.id;
    const requestKey = key(requestId);
    // Recording an answer twice is idempotent (the second sees the same answer: a duplicate),
    // so a call cut off by a restart is tried again.
    return db.retrying(async () => {
      await ctx.ready();
      // The common case in one statement (one round trip, its own transaction): the newest run
      // that raised the request is locked, then the request is recorded if it still waits and its
      // deadline has not passed (by the database's clock), the run made ready, and the workers
      // told at commit.
      const fast = await db.run<{
        run_id: string;
        state: StoredRunState;
        wake_ms: Int8;
        now_ms: Int8;
      }>({
        name: name("answer_fast"),
        text: `WITH c AS (SELECT ${NOW_MS} AS now),
             t AS (
               SELECT run_key FROM ${s}.requests WHERE request_key = $1
                ORDER BY halt_no DESC LIMIT 1),
             l AS (
               SELECT run_key FROM ${s}.runs WHERE run_key = (SELECT run_key FROM t)
                  FOR NO KEY UPDATE),
             q AS (
               UPDATE ${s}.requests SET state = 'answered', answer_json = $2,
                 answered_ms = (SELECT now FROM c), answered_by = $4
                WHERE request_key = $1 AND run_key = (SELECT run_key FROM l)
                  AND state = 'waiting' AND answer_json IS NULL
                  AND (expires_ms IS NULL OR expires_ms > (SELECT now FROM c))
                RETURNING run_key, run_id),
             r AS (
               UPDATE ${s}.runs SET
                 state = CASE WHEN state = 'waiting' THEN 'ready' ELSE state END,
                 ready_ms = CASE WHEN state = 'waiting' THEN (SELECT now FROM c) ELSE ready_ms END,
                 updated_ms = (SELECT now FROM c), events_last = events_last + 1
               WHERE run_key = (SELECT run_key FROM q)
               RETURNING run_key, run_id, state, wake_ms, events_last),
             e AS (
               INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
               SELECT run_key, events_last, run_id, (SELECT now FROM c), 'answered', $5 FROM r)
             SELECT q.run_id, r.state, r.wake_ms, c.now AS now_ms,
                    CASE WHEN r.state = 'ready' THEN pg_notify($3, '')::text END AS n,
                    pg_notify($6, encode(r.run_key, 'hex'))::text AS m
               FROM q, r, c`,
        values: [requestKey, json, ctx.channel, by, eventJson, ctx.eventsChannel],
      });
      const recorded = fast.rows[0];
      if (recorded !== undefined) {
        return {
          runId: recorded.run_id,
          requestId,
          duplicate: false,
          state: runState(recorded, ms(recorded.now_ms)!),
        };
      }
      // Not recorded: unknown, answered before (the same answer or another), applied or expired.
      // Read under the run's lock and say which (recording it after all if it waits again).
      return db.tx(async (run) => {
        // The newest run that raised this request id, its row locked: writers of a run's requests
        // all lock the run first, so what is read next is what they left.
        const target = await run<{ run_key: Buffer }>({
          name: name("answer_target"),
          text: `SELECT r.run_key FROM ${s}.requests q JOIN ${s}.runs r ON r.run_key = q.run_key
                WHERE q.request_key = $1 ORDER BY q.halt_no DESC LIMIT 1
                FOR NO KEY UPDATE OF r`,
          values: [requestKey],
        });
        const runKey = target.rows[0]?.run_key;
        if (runKey === undefined) throw new SuspensionNotFoundError(requestId);
        const { rows } = await run<TargetRow>({
          name: name("answer_read"),
          text: `SELECT q.run_key, q.run_id, q.state, q.expires_ms, q.answer_json,
                      r.state AS run_state, r.wake_ms, ${NOW_MS} AS now_ms
                 FROM ${s}.requests q JOIN ${s}.runs r ON r.run_key = q.run_key
                WHERE q.request_key = $1 AND q.run_key = $2`,
          values: [requestKey, runKey],
        });
        const row = rows[0];
        if (row === undefined) throw new SuspensionNotFoundError(requestId);
        const now = ms(row.now_ms)!;
        const receipt = (
          duplicate: boolean,
          run: { state: StoredRunState; wake_ms: Int8 },
        ): AnswerReceipt => ({
          runId: row.run_id,
          requestId,
          duplicate,
          state: runState(run, now),
        });
        const expires = ms(row.expires_ms);
        const pastDeadline = expires !== null && expires <= now;
        const deadline = expires === null ? undefined : toIso(expires);

        if (row.state === "cancelled" || row.run_state === "cancelled") {
          // Nothing waits for it any more, whatever was answered before.
          throw new AnswerConflictError(requestId, "cancelled", "the run was cancelled");
        }
        if (row.answer_json !== null) {
          // Idempotent: the same answer again (a retried POST, a redelivered message) is fine.
          let same = false;
          try {
            same = canonicalJson(JSON.parse(row.answer_json)) === canonicalJson(answer);
          } catch {
            // A damaged stored answer is not the same answer.
          }
          if (same) return receipt(true, { state: row.run_state, wake_ms: row.wake_ms });
          throw new AnswerConflictError(requestId, "answered");
        }
        if (row.state === "applied") {
          // Resolved without an answer: it expired, or the run went on without it.
          throw pastDeadline
            ? new AnswerConflictError(requestId, "expired", deadline)
            : new AnswerConflictError(requestId, "answered");
        }
        if (pastDeadline) throw new AnswerConflictError(requestId, "expired", deadline);

        // Recorded, and a waiting run becomes ready; the workers are told at commit.
        const updated = await run<{ state: StoredRunState; wake_ms: Int8 }>({
          name: name("answer_record"),
          text: `WITH q AS (
                 UPDATE ${s}.requests SET state = 'answered', answer_json = $3, answered_ms = $4,
                   answered_by = $6
                  WHERE request_key = $1 AND run_key = $2),
               r AS (
                 UPDATE ${s}.runs SET
                   state = CASE WHEN state = 'waiting' THEN 'ready' ELSE state END,
                   ready_ms = CASE WHEN state = 'waiting' THEN $4 ELSE ready_ms END,
                   updated_ms = $4, events_last = events_last + 1
                 WHERE run_key = $2 RETURNING run_key, run_id, state, wake_ms, events_last),
               e AS (
                 INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
                 SELECT run_key, events_last, run_id, $4, 'answered', $7 FROM r)
               SELECT state, wake_ms,
                      CASE WHEN state = 'ready' THEN pg_notify($5, '')::text END AS n,
                      pg_notify($8, encode(run_key, 'hex'))::text AS m
                 FROM r`,
          values: [requestKey, runKey, json, now, ctx.channel, by, eventJson, ctx.eventsChannel],
        });
        return receipt(false, updated.rows[0]!);
      });
    });
  };
}
