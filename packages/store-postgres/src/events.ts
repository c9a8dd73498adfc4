import {
  checkEventOffset,
  checkLease,
  checkLoopEventTexts,
  eventReadLimit,
  type Lease,
  type RecordedRunEvent,
  type RunEventInit,
  type RunEventType,
} from "@toolnexus/core";
import { key, type Run } from "./connection.js";
import type { Context } from "./context.js";
import { type Int8, ms, NOW_MS, toIso } from "./rows.js";

/** An event about to be written by the store: its type and its data as JSON text. */
export interface StoreEvent {
  type: RunEventType;
  data: string;
}

/**
 * The statement that appends events to a run, after its last: the run row's `events_last` is
 * raised by their number (which locks the row, so concurrent writers take offsets one after the
 * other, without gaps), the rows inserted, and the run's followers told at commit. Run it inside
 * the transaction of the state change the events describe. `$1` is the run key; `extra` narrows
 * the run row (a lease's fence), with its own values from `$5` on.
 */
function appendStatement(ctx: Context, extra = "") {
  const { s } = ctx;
  return `WITH u AS (
            UPDATE ${s}.runs SET events_last = events_last + cardinality($2::text[])
             WHERE run_key = $1 ${extra} RETURNING run_key, run_id, events_last),
          i AS (
            INSERT INTO ${s}.events (run_key, "offset", run_id, at_ms, type, data)
            SELECT u.run_key, u.events_last - cardinality($2::text[]) + t.n, u.run_id, ${NOW_MS},
                   t.type, t.data
              FROM u, unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(type, data, n))
          SELECT events_last AS last, pg_notify($4, encode(run_key, 'hex'))::text AS n FROM u`;
}

/**
 * Writes the store's own events of a run in the caller's transaction (after the change they
 * describe); returns the offset of the run's last event.
 */
export async function recordEvents(
  ctx: Context,
  run: Run,
  runKey: Buffer,
  events: readonly StoreEvent[],
): Promise<number> {
  const { rows } = await run<{ last: Int8 }>({
    name: ctx.name("events_record"),
    text: appendStatement(ctx),
    values: [runKey, events.map((e) => e.type), events.map((e) => e.data), ctx.eventsChannel],
  });
  return ms(rows[0]?.last ?? 0)!;
}

/** The hex digest followers of `runId` are told by (the NOTIFY payload). */
export const watchKey = (runId: string): string => key(runId).toString("hex");

export interface EventOps {
  appendEvents(lease: Lease, events: readonly RunEventInit[]): Promise<number>;
  readEvents(runId: string, after: number, limit?: number): Promise<RecordedRunEvent[]>;
  /** The last offset of each watched run (by hex key), for the safety-net poll. */
  lastOffsets(keys: readonly string[]): Promise<Map<string, number>>;
}

export function eventOps(
  ctx: Context,
  lost: (lease: Lease, run?: Run) => Promise<never>,
): EventOps {
  const { db, s, name } = ctx;
  const FENCE = "AND owner = $5 AND token = $6 AND state = 'running'";

  return {
    async appendEvents(lease, events) {
      checkLease(lease, "appendEvents()");
      const checked = checkLoopEventTexts(events, "appendEvents()");
      const held = { ...lease };
      const types = checked.map((e) => e.type);
      const datas = checked.map((e) => e.json);
      const runKey = key(held.runId);
      return db.retrying(async (uncertain) => {
        await ctx.ready();
        if (checked.length === 0) {
          // Nothing to add: still fenced, as every write of a worker.
          const { rows } = await db.run<{ last: Int8 }>({
            name: name("events_fenced"),
            text: `SELECT events_last AS last FROM ${s}.runs
                    WHERE run_key = $1 AND owner = $2 AND token = $3 AND state = 'running'`,
            values: [runKey, held.owner, held.token],
          });
          if (rows[0] === undefined) return lost(held);
          return ms(rows[0].last)!;
        }
        const append = async (run: Run) => {
          const { rows } = await run<{ last: Int8 }>({
            name: name("events_append"),
            text: appendStatement(ctx, FENCE),
            values: [runKey, types, datas, ctx.eventsChannel, held.owner, held.token],
          });
          if (rows[0] === undefined) return lost(held, run);
          return ms(rows[0].last)!;
        };
        // One statement, its own transaction: the common case in one round trip.
        if (!uncertain) return append(db.run);
        return db.tx(async (run) => {
          // An earlier attempt's commit went unanswered: if the run's last events, under this
          // lease, are this batch, it went through and is not appended twice.
          const { rows } = await run<{ last: Int8; type: string; data: string }>({
            name: name("events_landed"),
            text: `SELECT r.events_last AS last, e.type, e.data FROM ${s}.runs r
                     JOIN ${s}.events e ON e.run_key = r.run_key
                    WHERE r.run_key = $1 AND r.owner = $2 AND r.token = $3
                      AND r.state = 'running' AND e."offset" > r.events_last - $4
                    ORDER BY e."offset" FOR NO KEY UPDATE OF r`,
            values: [runKey, held.owner, held.token, checked.length],
          });
          const same =
            rows.length === checked.length &&
            rows.every((row, i) => row.type === types[i] && row.data === datas[i]);
          if (same) return ms(rows[0]!.last)!;
          return append(run);
        });
      });
    },

    async readEvents(runId, after, limit) {
      const from = checkEventOffset(after, "readEvents()");
      const most = eventReadLimit(limit, "readEvents()");
      const id = String(runId);
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<{ offset: Int8; at_ms: Int8; type: RunEventType; data: string }>({
          name: name("events_read"),
          text: `SELECT "offset", at_ms, type, data FROM ${s}.events
                  WHERE run_key = $1 AND "offset" > $2 ORDER BY "offset" LIMIT $3`,
          values: [key(id), from, most],
        });
      });
      return rows.map((row) => {
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(row.data) as Record<string, unknown>;
        } catch {
          // A damaged row still says what happened, and where.
          data = {};
        }
        return {
          runId: id,
          offset: ms(row.offset)!,
          at: toIso(ms(row.at_ms)!),
          type: row.type,
          data,
        };
      });
    },

    async lastOffsets(keys) {
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<{ k: string; last: Int8 }>({
          name: name("events_last"),
          text: `SELECT encode(run_key, 'hex') AS k, events_last AS last FROM ${s}.runs
                  WHERE run_key = ANY ($1::bytea[])`,
          values: [keys.map((k) => Buffer.from(k, "hex"))],
        });
      });
      return new Map(rows.map((row) => [row.k, ms(row.last)!]));
    },
  };
}
