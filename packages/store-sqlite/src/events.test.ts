// Events on a shared file: offsets from two connections (as two processes would write), a
// watcher woken by another connection's commit through polling, at once by its own store's.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "./store.js";
import { checkpoint, openRaw, request, stepCheckpoint, tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
let a: SqliteStore;
let b: SqliteStore;
let path: string;
beforeEach(() => {
  tmp = tempDir();
  path = tmp.file();
  a = sqliteStore({ path, eventsPollMs: 20 });
  b = sqliteStore({ path, eventsPollMs: 20 });
});
afterEach(() => {
  a.close();
  b.close();
  tmp.cleanup();
});

/** Resolves the next time `store` wakes a watcher of `runId`. */
function woken(store: SqliteStore, runId: string): { next: () => Promise<void>; stop: () => void } {
  let resolve: () => void = () => {};
  let calls = 0;
  let seen = 0;
  const stop = store.watchEvents(runId, () => {
    calls++;
    resolve();
  });
  return {
    next: () =>
      new Promise<void>((done) => {
        if (calls > seen) {
          seen = calls;
          done();
          return;
        }
        resolve = () => {
          seen = calls;
          done();
        };
      }),
    stop,
  };
}

describe("run events in one file", () => {
  it("offsets stay 1, 2, 3… when two connections append in turns, no gap and no repeat", () => {
    const lease = a.start(stepCheckpoint("run_1"), "w1", 60_000);
    for (let i = 0; i < 50; i++) {
      // The same lease from either connection: both see one run, one last offset.
      const store = i % 2 === 0 ? a : b;
      store.appendEvents(lease, [
        { type: "text", data: { turn: 1, text: `a${i}` } },
        { type: "text", data: { turn: 1, text: `b${i}` } },
      ]);
    }
    const all = [...a.readEvents("run_1", 0), ...a.readEvents("run_1", 1000)];
    expect(all.map((e) => e.offset)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    expect(all[1]!.data).toEqual({ turn: 1, text: "a0" });
    expect(all[100]!.data).toEqual({ turn: 1, text: "b49" });
  });

  it("wakes a watcher for another connection's write by polling, and for its own at once", async () => {
    const asked = request();
    a.halt(checkpoint([asked], { runId: "run_1" }));
    let calls = 0;
    const counted = a.watchEvents("run_1", () => calls++);
    const watcher = woken(a, "run_1");
    try {
      // b is another connection: a learns of its commit only through the poll.
      b.answer({ id: asked.id, ok: true }, { by: "bob" });
      await watcher.next();
      expect(a.readEvents("run_1", 2).map((e) => [e.type, e.data.by])).toEqual([
        ["answered", "bob"],
      ]);
      // Its own write wakes it before the call returns.
      const before = calls;
      const claimed = a.claim({ owner: "w1", leaseMs: 60_000 })!;
      expect(calls).toBe(before + 1);
      expect(claimed.lease.runId).toBe("run_1");
    } finally {
      watcher.stop();
      counted();
    }
  });

  it("does not wake a watcher of another run, and stops after unsubscribing", async () => {
    const first = a.start(stepCheckpoint("run_1"), "w1", 60_000);
    const other = b.start(stepCheckpoint("run_2"), "w1", 60_000);
    let calls = 0;
    const stop = a.watchEvents("run_1", () => calls++);
    const second = woken(a, "run_2");
    b.appendEvents(other, [{ type: "turn", data: { turn: 1 } }]);
    // The poll has seen b's commit once run_2's watcher, on the same store, is woken.
    await second.next();
    second.stop();
    expect(calls).toBe(0);
    stop();
    // Unsubscribed: a later write of run_1 wakes nothing (run_2's wake shows the poll ran).
    b.appendEvents(first, [{ type: "turn", data: { turn: 2 } }]);
    const third = woken(a, "run_2");
    b.appendEvents(other, [{ type: "turn", data: { turn: 3 } }]);
    await third.next();
    third.stop();
    expect(calls).toBe(0);
  });

  it("an event's data that is not JSON-safe or too big is refused and nothing is recorded", () => {
    const lease = a.start(stepCheckpoint("run_1"), "w1", 60_000);
    expect(() =>
      a.appendEvents(lease, [{ type: "text", data: { text: "x".repeat(70_000) } }]),
    ).toThrow(expect.objectContaining({ code: "wire_format" }));
    expect(a.readEvents("run_1", 0).map((e) => e.type)).toEqual(["started"]);
  });

  it("an events poll interval out of range is refused when the store opens", () => {
    expect(() => sqliteStore({ path, eventsPollMs: 0 })).toThrow(TypeError);
  });

  it("keeps events in the events table, keyed by run and offset", () => {
    a.start(stepCheckpoint("run_1"), "w1", 60_000);
    const db = openRaw(path);
    expect(db.prepare(`SELECT run_id, "offset", type FROM events`).all()).toEqual([
      { run_id: "run_1", offset: 1, type: "started" },
    ]);
    db.close();
  });
});
