import { describe, expect, it } from "vitest";
import { StoreUnsupportedError } from "./errors.js";
import { followRunEvents } from "./follow.js";
import type { RecordedRunEvent, RunEventType } from "./run-events.js";
import type { RunInfo, RunState, RunStore } from "./stores.js";

/** Just enough of a store to follow: one run, its events, its state, and a watcher. */
function tinyStore(options: { repeat?: boolean; watch?: boolean } = {}) {
  const events: RecordedRunEvent[] = [];
  let state: RunState = "running";
  const watchers = new Set<() => void>();
  const store = {
    getRun: (runId: string) =>
      runId === "run_1"
        ? ({ runId, state, createdAt: "", updatedAt: "", requests: [], failures: 0 } as RunInfo)
        : undefined,
    readEvents: (_runId: string, after: number, limit = 1_000) => {
      // A misbehaving store may hand an event back again: the follower must not repeat it.
      const from = options.repeat && after > 0 ? after - 1 : after;
      return events.slice(from, from + limit);
    },
    ...(options.watch === false
      ? {}
      : {
          watchEvents: (_runId: string, onEvent: () => void) => {
            watchers.add(onEvent);
            return () => watchers.delete(onEvent);
          },
        }),
  };
  return {
    store: store as unknown as RunStore,
    watchers,
    record(type: RunEventType, ended?: RunState) {
      events.push({ runId: "run_1", offset: events.length + 1, at: "", type, data: {} });
      if (ended !== undefined) state = ended;
      for (const watcher of watchers) queueMicrotask(watcher);
    },
  };
}

async function collect(events: AsyncIterable<RecordedRunEvent>): Promise<RecordedRunEvent[]> {
  const seen: RecordedRunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("followRunEvents", () => {
  it("yields what is recorded, then waits and yields new events until a terminal one", async () => {
    const tiny = tinyStore();
    tiny.record("started");
    const following = collect(followRunEvents(tiny.store, "run_1", { pollMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    tiny.record("turn");
    tiny.record("done", "done");
    const seen = await following;
    expect(seen.map((e) => e.type)).toEqual(["started", "turn", "done"]);
    // Unwatched once it ended.
    expect(tiny.watchers.size).toBe(0);
  });

  it("never repeats an offset, even when the store hands one back", async () => {
    const tiny = tinyStore({ repeat: true, watch: false });
    tiny.record("started");
    const following = collect(followRunEvents(tiny.store, "run_1", { pollMs: 5 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    tiny.record("turn");
    await new Promise((resolve) => setTimeout(resolve, 20));
    tiny.record("cancelled", "cancelled");
    expect((await following).map((e) => e.offset)).toEqual([1, 2, 3]);
  });

  it("ends without an error when its signal aborts while it waits", async () => {
    const tiny = tinyStore();
    tiny.record("started");
    const controller = new AbortController();
    const following = collect(
      followRunEvents(tiny.store, "run_1", { signal: controller.signal, pollMs: 60_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect((await following).map((e) => e.type)).toEqual(["started"]);
    expect(tiny.watchers.size).toBe(0);
  });

  it("refuses a store without readEvents, an unknown run, and bad options, with typed errors", async () => {
    const tiny = tinyStore();
    const { readEvents: _r, ...legacy } = tiny.store as unknown as Record<string, unknown>;
    const refused = await collect(followRunEvents(legacy as unknown as RunStore, "run_1")).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StoreUnsupportedError);
    expect((refused as StoreUnsupportedError).member).toBe("readEvents");
    await expect(collect(followRunEvents(tiny.store, "nope"))).rejects.toMatchObject({
      code: "run_not_found",
    });
    await expect(collect(followRunEvents(tiny.store, "run_1", { after: -1 }))).rejects.toThrow(
      TypeError,
    );
    await expect(collect(followRunEvents(tiny.store, "run_1", { pollMs: 0 }))).rejects.toThrow(
      TypeError,
    );
  });
});
