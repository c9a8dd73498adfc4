// Reminders and escalations of waiting requests. A halt passes each request's timers after its
// request JSON (see `withTimers`); a trigger of schema version 4 moves them into the
// `timers` table in the halt's own transaction (once: a later halt never re-arms one that fired)
// and keeps an escalated request re-addressed. `claimDue` hands the due timers out and marks
// them fired in one statement, skipping rows another caller holds: each fires once.
import {
  checkClaimDue,
  type DueTimer,
  type PendingCall,
  type Request,
  readdressed,
  storedTimers,
} from "@toolnexus/core";
import type { Context } from "./context.js";
import { type Int8, ms } from "./rows.js";
import { TIMERS_SEPARATOR } from "./timers-schema.js";

/** The text a halt writes for a request: its JSON, then its timers' JSON for the trigger when it has any. */
export function withTimers(call: Pick<PendingCall, "request" | "timers">): string {
  const timers = storedTimers(call.timers);
  const json = JSON.stringify(call.request);
  return timers.length === 0 ? json : `${json}${TIMERS_SEPARATOR}${JSON.stringify(timers)}`;
}

interface DueRow {
  run_id: string;
  request_id: string;
  idx: number;
  kind: "reminder" | "escalation";
  due_ms: Int8;
  to_group: string | null;
  request_json: string;
  session_id: string | null;
  agent: string | null;
}

export function claimDueOp(
  ctx: Context,
): (options: { now: number; owner: string; limit?: number }) => Promise<DueTimer[]> {
  const { db, s, name } = ctx;
  return async (options) => {
    const { now, owner, limit } = checkClaimDue(options, "postgresStore.claimDue()");
    await ctx.ready();
    // One statement: take the due timers (skipping rows another caller holds), mark them fired,
    // re-address escalated requests. Its parts see the same snapshot, so the request JSON read
    // at the end is the one before the escalation and is re-addressed here as well.
    const { rows } = await db.run<DueRow>({
      name: name("claim_due"),
      text: `WITH due AS (
               SELECT t.run_key, t.request_key, t.idx FROM ${s}.timers t
                 JOIN ${s}.requests q
                   ON q.run_key = t.run_key AND q.request_key = t.request_key
                WHERE t.fired_ms IS NULL AND t.due_ms <= $1 AND q.state = 'waiting'
                  AND (q.expires_ms IS NULL OR q.expires_ms > $1)
                ORDER BY t.due_ms, t.run_key, t.request_key, t.idx
                LIMIT $3
                FOR UPDATE OF t SKIP LOCKED),
             fired AS (
               UPDATE ${s}.timers t SET fired_ms = $1, fired_by = $2
                 FROM due
                WHERE t.run_key = due.run_key AND t.request_key = due.request_key
                  AND t.idx = due.idx AND t.fired_ms IS NULL
               RETURNING t.run_key, t.request_key, t.idx, t.run_id, t.request_id, t.kind,
                 t.due_ms, t.to_group),
             readdressed AS (
               UPDATE ${s}.requests q SET request_json = jsonb_set(q.request_json::jsonb,
                   '{data}',
                   CASE WHEN jsonb_typeof(q.request_json::jsonb -> 'data') = 'object'
                        THEN q.request_json::jsonb -> 'data' ELSE '{}'::jsonb END
                     || jsonb_build_object('to', f.to_group))::text
                 FROM fired f
                WHERE f.kind = 'escalation' AND q.run_key = f.run_key
                  AND q.request_key = f.request_key
                  AND strpos(q.request_json, '\\u0000') = 0
               RETURNING q.request_key)
             SELECT f.run_id, f.request_id, f.idx, f.kind, f.due_ms, f.to_group, q.request_json,
                    q.session_id, q.agent
               FROM fired f
               JOIN ${s}.requests q ON q.run_key = f.run_key AND q.request_key = f.request_key
              ORDER BY f.due_ms, f.run_id, f.request_id, f.idx`,
      values: [now, owner, limit],
    });
    return rows.map((row) => {
      let request = JSON.parse(row.request_json) as Request;
      if (row.kind === "escalation" && row.to_group !== null) {
        request = readdressed(request, row.to_group);
      }
      const item: DueTimer = {
        runId: row.run_id,
        requestId: row.request_id,
        index: row.idx,
        kind: row.kind,
        at: new Date(ms(row.due_ms)!).toISOString(),
        request,
      };
      if (row.to_group !== null) item.to = row.to_group;
      if (row.session_id !== null) item.sessionId = row.session_id;
      if (row.agent !== null) item.agent = row.agent;
      return item;
    });
  };
}
