import {
  checkEventOffset,
  checkLoopEventTexts,
  eventReadLimit,
  MAX_EVENT_DATA_CHARS,
  type RecordedRunEvent,
  type RunEventType,
} from "@toolnexus/core";
import { checkLease } from "./checks.js";
import type { Fence } from "./fence.js";
import type { MemoryState, RunRow } from "./rows.js";
import type { MemoryRunStore } from "./store.js";

// A run's events: the store's own are recorded by the write that changes the run (`record`),
// the loop's are appended under its lease. A watcher is told later, never inside the write.

export type EventOps = Pick<MemoryRunStore, "appendEvents" | "readEvents" | "watchEvents">;

/** The recorder every write shares, and the watchers it wakes. */
export function eventLog(): {
  record: MemoryState["record"];
  watchEvents: MemoryRunStore["watchEvents"];
} {
  const watchers = new Map<string, Set<() => void>>();
  // Runs with events recorded since the last wake-up: one wake-up per run per microtask.
  const due = new Set<string>();

  const wake = () => {
    const runIds = [...due];
    due.clear();
    for (const runId of runIds) {
      for (const listener of [...(watchers.get(runId) ?? [])]) {
        try {
          listener();
        } catch {
          // A failing watcher must not break the store nor crash the process from a microtask.
        }
      }
    }
  };

  return {
    record(run, type, data, json) {
      push(run, type, json ?? dataText(data));
      if (!watchers.has(run.runId)) return;
      if (due.size === 0) queueMicrotask(wake);
      due.add(run.runId);
    },

    watchEvents(runId, onEvent) {
      if (typeof onEvent !== "function") {
        throw new TypeError("memoryRunStore.watchEvents(): onEvent must be a function");
      }
      // A wrapper per subscription, so watching with the same function twice is two watches.
      const listener = () => onEvent();
      const set = watchers.get(runId) ?? new Set<() => void>();
      watchers.set(runId, set);
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && watchers.get(runId) === set) watchers.delete(runId);
      };
    },
  };
}

// The store's own events mostly carry no data (started, cancelled): their text is "{}"
// without a JSON.stringify call, which has a fixed cost on Node 20.
/**
 * `JSON.stringify(data)` for an event's or a row's data object, `"{}"` without the call when
 * there is none or it has no key of its own.
 */
export function dataText(data: Record<string, unknown> | undefined): string {
  if (data === undefined) return "{}";
  for (const _ in data) return JSON.stringify(data);
  // No key, but an own toJSON (not enumerable) or a class with one still decides the text.
  return Object.getPrototypeOf(data) === Object.prototype && !("toJSON" in data)
    ? "{}"
    : JSON.stringify(data);
}

function push(run: RunRow, type: RunEventType, dataJson: string): void {
  // The store's own events are built from capped values; this only guards the cap itself.
  const json =
    dataJson.length > MAX_EVENT_DATA_CHARS
      ? JSON.stringify({ truncated: dataJson.length })
      : dataJson;
  // The time as a number: most events are never read, so the ISO text is made on read.
  run.events.push({ atMs: Date.now(), type, dataJson: json });
}

export function eventOps(
  state: MemoryState,
  fence: Fence,
  watchEvents: MemoryRunStore["watchEvents"],
): EventOps {
  const { runs, record } = state;
  return {
    appendEvents(lease, events) {
      checkLease(lease, "appendEvents");
      const checked = checkLoopEventTexts(events, "memoryRunStore.appendEvents()");
      const run = fence(lease);
      for (const event of checked) record(run, event.type, undefined, event.json);
      return run.events.length;
    },

    readEvents(runId, after, limit) {
      const from = checkEventOffset(after, "memoryRunStore.readEvents()");
      const most = eventReadLimit(limit, "memoryRunStore.readEvents()");
      const run = runs.get(runId);
      if (run === undefined) return [];
      return run.events.slice(from, from + most).map(
        (row, i): RecordedRunEvent => ({
          runId,
          offset: from + i + 1,
          at: new Date(row.atMs).toISOString(),
          type: row.type,
          data: JSON.parse(row.dataJson) as Record<string, unknown>,
        }),
      );
    },

    watchEvents,
  };
}

/** A text kept in a store event, cut to `max` characters with a note of what was left out. */
export function capText(text: string, max: number, where: string): string {
  return text.length > max
    ? `${text.slice(0, max)}… [${text.length - max} more characters in ${where}]`
    : text;
}
