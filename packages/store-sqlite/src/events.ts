// A run's events in the `events` table: offsets 1, 2, 3… per run, each allocated inside the
// write transaction that records it (IMMEDIATE, so processes sharing the file never allocate the
// same one), and the hints that wake followers.
import {
  checkEventOffset,
  eventReadLimit,
  type RecordedRunEvent,
  type RunEventType,
} from "@toolnexus/core";
import type { Db } from "./driver.js";

/** How often followers in other processes are looked for, in ms, by default. */
export const DEFAULT_EVENTS_POLL_MS = 150;

interface EventRow {
  offset: number;
  at: string;
  type: RunEventType;
  data: string;
}

/** Records, reads and watches events. */
export interface EventOps {
  /**
   * Appends events to a run after its last one; call inside a write transaction. Returns the
   * offset of the last event of the run. An event's `json` is its data already as JSON text
   * (checked by `checkLoopEventTexts`); otherwise its `data` is written as JSON.
   */
  record(
    runId: string,
    events: readonly { type: RunEventType; data?: object; json?: string }[],
  ): number;
  read(runId: string, after: unknown, limit?: unknown): RecordedRunEvent[];
  watch(runId: string, onEvent: () => void): () => void;
  /** Wakes this process's watchers of the runs written since the last call. */
  flush(): void;
  /** Stops polling (the store is closing). */
  close(): void;
}

/** Prepares the statements once and returns the event operations. */
export function eventOps(db: Db, pollMs: number): EventOps {
  // One lookup at the end of the run's primary key range.
  const last = db
    .prepare<[string], number>(`SELECT IFNULL(MAX("offset"), 0) FROM events WHERE run_id = ?`)
    .pluck();
  const insert = db.prepare<[string, number, string, string, string]>(
    `INSERT INTO events (run_id, "offset", at, type, data) VALUES (?, ?, ?, ?, ?)`,
  );
  const page = db.prepare<[string, number, number], EventRow>(
    `SELECT "offset" AS offset, at, type, data FROM events
      WHERE run_id = ? AND "offset" > ? ORDER BY "offset" LIMIT ?`,
  );

  /** Runs written by this process since the last flush. */
  const touched = new Set<string>();
  /** Watchers per run, with the last offset each run was seen at. */
  const watchers = new Map<string, { seen: number; callbacks: Set<() => void> }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dataVersion: unknown;
  let closed = false;

  const wake = (runId: string): void => {
    const entry = watchers.get(runId);
    if (entry === undefined) return;
    for (const callback of [...entry.callbacks]) {
      try {
        callback();
      } catch {
        // A watcher's own error must not stop the others or the poll.
      }
    }
  };

  // Another process's commit changes `PRAGMA data_version` on this connection (this one's own do
  // not: flush covers them), so an idle file costs one pragma per tick, and a busy one one
  // index lookup per watched run.
  const poll = (): void => {
    timer = undefined;
    if (closed || watchers.size === 0 || !db.open) return;
    try {
      const version = db.pragma("data_version", { simple: true });
      if (version !== dataVersion) {
        dataVersion = version;
        for (const [runId, entry] of watchers) {
          const now = last.get(runId) ?? 0;
          if (now !== entry.seen) {
            entry.seen = now;
            wake(runId);
          }
        }
      }
    } catch {
      // A closing store, or a file busy for longer than the busy timeout: try at the next tick.
    }
    schedule();
  };
  const schedule = (): void => {
    if (timer !== undefined || closed || watchers.size === 0) return;
    timer = setTimeout(poll, pollMs);
    // Following a run never keeps a process alive on its own.
    timer.unref?.();
  };

  return {
    record(runId, events) {
      let offset = last.get(runId) ?? 0;
      const at = new Date().toISOString();
      for (const event of events) {
        offset += 1;
        insert.run(runId, offset, at, event.type, event.json ?? JSON.stringify(event.data ?? {}));
      }
      if (events.length > 0) touched.add(runId);
      return offset;
    },

    read(runId, after, limit) {
      const from = checkEventOffset(after, "readEvents()");
      const most = eventReadLimit(limit, "readEvents()");
      return page.all(runId, from, most).map((row) => ({
        runId,
        offset: row.offset,
        at: row.at,
        type: row.type,
        data: parseData(row.data),
      }));
    },

    watch(runId, onEvent) {
      if (typeof onEvent !== "function") {
        throw new TypeError("watchEvents(): onEvent must be a function");
      }
      let entry = watchers.get(runId);
      if (entry === undefined) {
        let seen = 0;
        try {
          seen = last.get(runId) ?? 0;
        } catch {
          // Seen as 0: the first poll wakes the watcher, who reads for itself.
        }
        entry = { seen, callbacks: new Set() };
        watchers.set(runId, entry);
      }
      const callback = () => onEvent();
      entry.callbacks.add(callback);
      schedule();
      return () => {
        const current = watchers.get(runId);
        if (current === undefined) return;
        current.callbacks.delete(callback);
        if (current.callbacks.size === 0) watchers.delete(runId);
        if (watchers.size === 0 && timer !== undefined) {
          clearTimeout(timer);
          timer = undefined;
        }
      };
    },

    flush() {
      if (touched.size === 0) return;
      const runIds = [...touched];
      touched.clear();
      for (const runId of runIds) {
        const entry = watchers.get(runId);
        if (entry === undefined) continue;
        try {
          entry.seen = last.get(runId) ?? entry.seen;
        } catch {
          // Woken anyway: the watcher reads for itself.
        }
        wake(runId);
      }
    },

    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      watchers.clear();
    },
  };
}

/** An event's stored data; a damaged row reads as `{}` rather than breaking a follower. */
function parseData(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
