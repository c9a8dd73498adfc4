// A version 2 file (before run events and cancel) opened by this release: rebuilt to the current
// schema with every run, request and journal entry kept, and every new feature working on them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUNS_SCHEMA_V2 } from "./migrate-v2.js";
import { SCHEMA_VERSION } from "./schema.js";
import { sqliteStore } from "./store.js";
import {
  checkpoint,
  doneResult,
  journalEntry,
  openRaw,
  request,
  stepCheckpoint,
  tempDir,
} from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** A real version 2 file: the v2 DDL, with a waiting, a running (lease lapsed) and a done run. */
function v2File() {
  const path = tmp.file();
  const db = openRaw(path);
  db.exec(RUNS_SCHEMA_V2);
  db.exec(
    "CREATE TABLE conversations (session_id TEXT PRIMARY KEY, json TEXT NOT NULL, updated_ms INTEGER NOT NULL)",
  );
  db.pragma("user_version = 2");
  const now = Date.now();
  const asked = request({ id: "r_1" });
  const waiting = checkpoint([asked], { runId: "run_w" });
  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, state, created_at, updated_ms, owner, token, lease_expires_ms,
       checkpoint_json, result_json, finished_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  insertRun.run(
    "run_w",
    "waiting",
    waiting.createdAt,
    now,
    null,
    0,
    null,
    JSON.stringify(waiting),
    null,
    null,
  );
  db.prepare(
    `INSERT INTO requests (request_id, run_id, halt_no, position, state, kind, prompt,
       request_json, created_at)
     VALUES ('r_1', 'run_w', 1, 0, 'waiting', ?, ?, ?, ?)`,
  ).run(asked.kind, asked.prompt, JSON.stringify(asked), waiting.createdAt);
  const running = stepCheckpoint("run_r");
  insertRun.run(
    "run_r",
    "running",
    running.createdAt,
    now,
    "gone",
    3,
    now - 1000,
    JSON.stringify(running),
    null,
    null,
  );
  db.prepare("INSERT INTO journal (run_id, json) VALUES ('run_r', ?)").run(
    JSON.stringify(journalEntry("call_1")),
  );
  insertRun.run(
    "run_d",
    "done",
    running.createdAt,
    now,
    null,
    1,
    null,
    null,
    JSON.stringify(doneResult("run_d")),
    now - 1000,
  );
  db.close();
  return { path, asked };
}

describe("migration from schema version 2", () => {
  it("keeps every run, request and journal entry, and the new features work on them", () => {
    const { path } = v2File();
    const store = sqliteStore({ path });
    try {
      const db = openRaw(path);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma("foreign_key_check")).toEqual([]);
      expect(db.prepare("SELECT count(*) FROM journal").pluck().get()).toBe(1);
      db.close();

      expect(store.getRun("run_w")).toMatchObject({ state: "waiting" });
      expect(store.getRun("run_d")).toMatchObject({ state: "done" });
      // A run of version 2 has no events yet; its next write records the first.
      expect(store.readEvents("run_w", 0)).toEqual([]);
      store.answer({ id: "r_1", ok: true }, { by: "alice" });
      expect(store.getRequest("r_1")).toMatchObject({ state: "answered", answeredBy: "alice" });
      expect(store.readEvents("run_w", 0).map((e) => [e.offset, e.type])).toEqual([
        [1, "answered"],
      ]);

      // The lapsed run is taken over with its journal and its token, then cancelled from outside.
      const taken = store.claim({ owner: "w2", leaseMs: 60_000, runId: "run_r" });
      expect(taken?.lease.token).toBe(4);
      expect(taken?.journal).toHaveLength(1);
      expect(store.cancel("run_r", { by: "ops" }).outcome).toBe("requested");
      expect(store.renew(taken!.lease, 60_000).cancel).toMatchObject({ by: "ops" });
      expect(store.cancel("run_w").outcome).toBe("cancelled");
      expect(store.getRun("run_w")?.requests[0]?.state).toBe("cancelled");
      // The rebuilt foreign keys still take a run's rows with it.
      expect(store.prune({ olderThan: 0 })).toBe(2);
      const after = openRaw(path);
      expect(after.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(0);
      expect(
        after.prepare("SELECT count(*) FROM events WHERE run_id = 'run_w'").pluck().get(),
      ).toBe(0);
      after.close();
    } finally {
      store.close();
    }
  });
});
