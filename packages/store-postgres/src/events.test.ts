// What the contract cannot see of the events on PostgreSQL: offsets under concurrent writers in
// many connections, followers in another pool told through NOTIFY (ids up to the longest kept), the one
// listening connection killed, a notification lost (the slow poll), cancel's cascade with ids
// that are LIKE patterns, a schema of version 1 upgraded with its runs.
import { MAX_STORE_ID_CHARS } from "@toolnexus/core";
import { sampleCheckpoint, sampleResult } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";

let url: string;
let admin: pg.Client;
const stores: PostgresStore[] = [];
const open = (schema: string, options: { eventsPollMs?: number } = {}) => {
  const store = postgresStore({ connectionString: url }, { schema, ...options });
  stores.push(store);
  return store;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LONG = 60_000;

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "events");
  admin = new pg.Client(url);
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await admin.end();
});

/** A watcher's calls, and a way to wait for the next ones. */
function counter() {
  let calls = 0;
  const waiting: { target: number; resolve: () => void }[] = [];
  return {
    onEvent: () => {
      calls++;
      for (const w of waiting.filter((w) => calls >= w.target)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    },
    calls: () => calls,
    /** Resolves once called `n` more times than now. */
    more(n = 1): Promise<void> {
      const target = calls + n;
      return new Promise((resolve) => waiting.push({ target, resolve }));
    },
  };
}

describe("run events on PostgreSQL", () => {
  it("gives offsets 1..n without gaps or repeats to writers racing on many connections", async () => {
    const store = open("ev_race");
    const other = open("ev_race");
    const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
    await store.halt(sampleCheckpoint({ runId: "run_1", pending: ids }));
    // Twenty answers from two pools at once, then a worker appending while more answers land.
    await Promise.all(
      ids.slice(0, 10).map((id, i) => (i % 2 ? store : other).answer({ id, ok: true })),
    );
    const claimed = (await store.claim({ owner: "w1", leaseMs: LONG, runId: "run_1" }))!;
    await Promise.all([
      ...ids.slice(10).map((id, i) => (i % 2 ? store : other).answer({ id, ok: true })),
      ...Array.from({ length: 10 }, (_, i) =>
        store.appendEvents(claimed.lease, [
          { type: "text", data: { turn: 1, text: `a${i}` } },
          { type: "text", data: { turn: 1, text: `b${i}` } },
        ]),
      ),
    ]);
    const events = await store.readEvents("run_1", 0);
    // started, suspended, 20 answered, continued, 20 appended.
    expect(events).toHaveLength(43);
    expect(events.map((e) => e.offset)).toEqual(Array.from({ length: 43 }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === "answered")).toHaveLength(20);
    // Each batch stays whole and in order.
    const texts = events.filter((e) => e.type === "text").map((e) => String(e.data.text));
    for (let i = 0; i < 10; i++) {
      expect(texts.indexOf(`b${i}`)).toBe(texts.indexOf(`a${i}`) + 1);
    }
  });

  it("tells a watcher in another pool, for the longest id a store keeps", async () => {
    const web = open("ev_long");
    const follower = open("ev_long");
    // MAX_STORE_ID_CHARS characters, two UTF-8 bytes each after the prefix.
    const runId = `run/${"é".repeat(MAX_STORE_ID_CHARS - 4)}`;
    const otherId = `run/${"é".repeat(MAX_STORE_ID_CHARS - 5)}x`;
    await web.halt(sampleCheckpoint({ runId, pending: ["r1"] }));
    await web.halt(sampleCheckpoint({ runId: otherId, pending: ["r2"] }));
    const mine = counter();
    const second = counter();
    const stranger = counter();
    const stops = [
      follower.watchEvents(runId, mine.onEvent),
      follower.watchEvents(runId, second.onEvent),
      follower.watchEvents(otherId, stranger.onEvent),
    ];
    await follower.getRun("warm-up");
    await pause(100);
    const before = stranger.calls();
    const both = Promise.all([mine.more(), second.more()]);
    await web.answer({ id: "r1", ok: true }, { by: "alice" });
    await both;
    await pause(200);
    // The other run, whose id shares all but its last character with this one, heard nothing.
    expect(stranger.calls()).toBe(before);
    const events = await follower.readEvents(runId, 2);
    expect(events).toMatchObject([{ runId, offset: 3, type: "answered", data: { by: "alice" } }]);
    for (const stop of stops) stop();
  });

  it("keeps telling watchers after its listening connection is killed", async () => {
    const web = open("ev_killed");
    const follower = open("ev_killed");
    await web.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1", "r2"] }));
    const seen = counter();
    const stop = follower.watchEvents("run_1", seen.onEvent);
    await follower.getRun("warm-up");
    await pause(100);
    const listening = `LISTEN "toolnexus:ev_killed"; LISTEN "toolnexus-events:ev_killed"`;
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1",
      [listening],
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    // Back and listening: it wakes its watchers once (events may have been missed meanwhile).
    await seen.more();
    for (let i = 0; i < 50; i++) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1",
        [listening],
      );
      if (rows[0].n === 1) break;
      await pause(50);
    }
    const next = seen.more();
    await web.answer({ id: "r1", ok: true });
    await next;
    stop();
  });

  it("finds an event whose notification was lost, by its slow poll", async () => {
    const store = open("ev_poll", { eventsPollMs: 200 });
    await store.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    const seen = counter();
    const stop = store.watchEvents("run_1", seen.onEvent);
    await store.getRun("warm-up");
    await pause(600);
    // An event written without a NOTIFY, as if the notification were lost on the way.
    const woken = seen.more();
    await admin.query(
      `WITH u AS (UPDATE ev_poll.runs SET events_last = events_last + 1
                   WHERE run_id = 'run_1' RETURNING run_key, run_id, events_last)
       INSERT INTO ev_poll.events (run_key, "offset", run_id, at_ms, type, data)
       SELECT run_key, events_last, run_id, 0, 'progress', '{}' FROM u`,
    );
    await woken;
    expect((await store.readEvents("run_1", 2)).map((e) => e.type)).toEqual(["progress"]);
    stop();
  });

  it("cancels the sub-agents of a run whose id holds % and _, and no run the pattern would match", async () => {
    const store = open("ev_like");
    for (const runId of ["a%_", "a%_/c1", "a%_/c1/c2", "abc/c1", "a%x/c1", "a%_x/c1", "a%_/"]) {
      await store.halt(sampleCheckpoint({ runId, pending: [`req:${runId}`] }));
    }
    expect(await store.cancel("a%_", { by: "ops" })).toEqual({
      runId: "a%_",
      outcome: "cancelled",
      state: "cancelled",
    });
    const states: Record<string, string | undefined> = {};
    for (const runId of ["a%_", "a%_/c1", "a%_/c1/c2", "abc/c1", "a%x/c1", "a%_x/c1", "a%_/"]) {
      states[runId] = (await store.getRun(runId))?.state;
    }
    expect(states).toEqual({
      "a%_": "cancelled",
      "a%_/c1": "cancelled",
      "a%_/c1/c2": "cancelled",
      "abc/c1": "waiting",
      "a%x/c1": "waiting",
      "a%_x/c1": "waiting",
      "a%_/": "cancelled",
    });
    expect((await store.readEvents("a%_/c1/c2", 0)).at(-1)).toMatchObject({
      type: "cancelled",
      data: { by: "ops" },
    });
  });

  it("never hands out a run asked to stop whose worker is gone: the claim ends it cancelled", async () => {
    const store = open("ev_claim");
    await store.start(sampleCheckpoint({ runId: "run_1" }), "w1", 300);
    expect((await store.cancel("run_1", { by: "ops", reason: "stuck" })).outcome).toBe("requested");
    await pause(600);
    expect(await store.claim({ owner: "w2", leaseMs: LONG })).toBeUndefined();
    expect(await store.getRun("run_1")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops", reason: "stuck" },
    });
    expect((await store.readEvents("run_1", 0)).map((e) => e.type)).toEqual([
      "started",
      "cancel_requested",
      "cancelled",
    ]);
  });

  it("a worker that halts a run asked to stop ends it cancelled, its requests unanswerable", async () => {
    const store = open("ev_halt");
    const lease = await store.start(sampleCheckpoint({ runId: "run_1" }), "w1", LONG);
    await store.cancel("run_1", { by: "ops" });
    await store.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }), lease);
    expect((await store.getRun("run_1"))?.state).toBe("cancelled");
    await expect(store.answer({ id: "r1", ok: true })).rejects.toMatchObject({
      name: "AnswerConflictError",
      reason: "cancelled",
    });
    expect((await store.readEvents("run_1", 0)).map((e) => e.type)).toEqual([
      "started",
      "cancel_requested",
      "suspended",
      "cancelled",
    ]);
  });

  it("refuses a `by` PostgreSQL text could not keep exactly, recording nothing", async () => {
    const store = open("ev_by");
    await store.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    for (const by of ["ali\u0000ce", "\ud800bob"]) {
      await expect(store.answer({ id: "r1", ok: true }, { by })).rejects.toMatchObject({
        name: "InvalidIdError",
      });
      await expect(store.cancel("run_1", { by })).rejects.toMatchObject({
        name: "InvalidIdError",
      });
    }
    expect((await store.getRun("run_1"))?.state).toBe("waiting");
    expect((await store.readEvents("run_1", 0)).map((e) => e.type)).toEqual([
      "started",
      "suspended",
    ]);
    // A reason with a NUL is kept exactly (it is stored as JSON).
    await store.cancel("run_1", { by: "ops", reason: "nul \u0000 here" });
    expect((await store.getRun("run_1"))?.cancel?.reason).toBe("nul \u0000 here");
  });

  it("upgrades a schema of version 1 with its runs: they keep going, and record events from then on", async () => {
    const schema = "ev_upgrade";
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.migrations (version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now(),
         applied_by text NOT NULL DEFAULT current_user)`,
    );
    await admin.query(MIGRATIONS[0]!(`"${schema}"`));
    await admin.query(`INSERT INTO ${schema}.migrations (version) VALUES (1)`);
    // A run halted by the release before, written as it wrote it.
    const json = JSON.stringify(sampleCheckpoint({ runId: "old", pending: ["r_old"] }));
    await admin.query(
      `INSERT INTO ${schema}.runs (run_key, run_id, state, created_at, updated_ms, checkpoint_json)
       VALUES (sha256(convert_to('old', 'UTF8')), 'old', 'waiting', '2026-01-01T00:00:00Z', 0, $1)`,
      [json],
    );
    await admin.query(
      `INSERT INTO ${schema}.requests (request_key, run_key, request_id, run_id, halt_no, position,
         state, kind, prompt, request_json, created_at)
       VALUES (sha256(convert_to('r_old', 'UTF8')), sha256(convert_to('old', 'UTF8')), 'r_old',
         'old', 1, 0, 'waiting', 'input', 'question 1',
         '{"id":"r_old","kind":"input","prompt":"question 1"}', '2026-01-01T00:00:00Z')`,
    );
    const store = open(schema);
    expect(await store.migrate()).toEqual({ from: 1, to: SCHEMA_VERSION });
    await store.answer({ id: "r_old", ok: true }, { by: "carol" });
    const claimed = (await store.claim({ owner: "w1", leaseMs: LONG }))!;
    expect(claimed.lease.runId).toBe("old");
    await store.finish(claimed.lease, { state: "done", result: sampleResult("old") });
    // Its events start where the upgrade found it.
    const events = await store.readEvents("old", 0);
    expect(events.map((e) => [e.offset, e.type])).toEqual([
      [1, "answered"],
      [2, "continued"],
      [3, "done"],
    ]);
    expect((await store.getRequest("r_old"))?.answeredBy).toBe("carol");
  });
});
