// Reminders and escalations of waiting requests: a halt stores each request's timers once (a
// later halt never re-arms one that fired), and `claimDue` hands the due ones out and marks
// them fired in one write transaction, so across processes and restarts each fires once. An
// escalation re-addresses its request (`data.to`) in that same transaction.
import {
  checkClaimDue,
  type DueTimer,
  type PendingCall,
  type Request,
  readdressed,
  storedTimers,
} from "@toolnexus/core";
import type { Db } from "./driver.js";

/** The timers table (schema version 4). */
export const TIMERS_SCHEMA = `
  CREATE TABLE timers (
    run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    request_id  TEXT NOT NULL,
    idx         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('reminder', 'escalation')),
    due_ms      INTEGER NOT NULL,
    to_group    TEXT,
    fired_ms    INTEGER,
    fired_by    TEXT,
    PRIMARY KEY (run_id, request_id, idx)
  );
  CREATE INDEX timers_by_due ON timers (fired_ms, due_ms);
`;

interface DueRow {
  run_id: string;
  request_id: string;
  idx: number;
  kind: "reminder" | "escalation";
  due_ms: number;
  to_group: string | null;
  request_json: string;
  session_id: string | null;
  agent: string | null;
}

/** The timer writes. */
export interface DueOps {
  /**
   * Inside the halt's transaction, before its requests are written: stores the call's timers
   * (once), and returns the request as it must be kept (re-addressed by an escalation that fired).
   */
  keep(runId: string, call: Pick<PendingCall, "request" | "timers">): Request;
  claimDue(options: { now: number; owner: string; limit?: number }): DueTimer[];
}

export function dueOps(db: Db): DueOps {
  const insert = db.prepare<[string, string, number, string, number, string | null]>(
    `INSERT OR IGNORE INTO timers (run_id, request_id, idx, kind, due_ms, to_group)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const firedTo = db
    .prepare<[string, string], string>(
      `SELECT to_group FROM timers
        WHERE run_id = ? AND request_id = ? AND kind = 'escalation' AND fired_ms IS NOT NULL
        ORDER BY idx DESC LIMIT 1`,
    )
    .pluck();
  // Due, not fired, and its request still waiting within its deadline.
  const due = db.prepare<[number, number, number], DueRow>(
    `SELECT t.run_id, t.request_id, t.idx, t.kind, t.due_ms, t.to_group, r.request_json,
            r.session_id, r.agent
       FROM timers t
       JOIN requests r ON r.run_id = t.run_id AND r.request_id = t.request_id
      WHERE t.fired_ms IS NULL AND t.due_ms <= ? AND r.state = 'waiting'
        AND (r.expires_ms IS NULL OR r.expires_ms > ?)
      ORDER BY t.due_ms, t.run_id, t.request_id, t.idx
      LIMIT ?`,
  );
  const fire = db.prepare<[number, string, string, string, number]>(
    `UPDATE timers SET fired_ms = ?, fired_by = ?
      WHERE run_id = ? AND request_id = ? AND idx = ? AND fired_ms IS NULL`,
  );
  const readdress = db.prepare<[string, string, string]>(
    "UPDATE requests SET request_json = ? WHERE run_id = ? AND request_id = ?",
  );

  const claimTx = db.transaction((now: number, owner: string, limit: number): DueTimer[] => {
    const handed: DueTimer[] = [];
    for (const row of due.all(now, now, limit)) {
      if (fire.run(now, owner, row.run_id, row.request_id, row.idx).changes !== 1) continue;
      let request = JSON.parse(row.request_json) as Request;
      if (row.kind === "escalation" && row.to_group !== null) {
        request = readdressed(request, row.to_group);
        readdress.run(JSON.stringify(request), row.run_id, row.request_id);
      }
      const item: DueTimer = {
        runId: row.run_id,
        requestId: row.request_id,
        index: row.idx,
        kind: row.kind,
        at: new Date(row.due_ms).toISOString(),
        request,
      };
      if (row.to_group !== null) item.to = row.to_group;
      if (row.session_id !== null) item.sessionId = row.session_id;
      if (row.agent !== null) item.agent = row.agent;
      handed.push(item);
    }
    return handed;
  });

  return {
    keep(runId, call) {
      const timers = storedTimers(call.timers);
      timers.forEach((timer, index) => {
        insert.run(runId, call.request.id, index, timer.kind, timer.atMs, timer.to ?? null);
      });
      const to = firedTo.get(runId, call.request.id);
      return to === undefined || to === null ? call.request : readdressed(call.request, to);
    },
    claimDue(options) {
      const { now, owner, limit } = checkClaimDue(options, "sqliteStore.claimDue()");
      // IMMEDIATE: the write lock first, so two processes never read the same timers as due.
      return claimTx.immediate(now, owner, limit);
    },
  };
}
