import { writeFileSync } from "node:fs";
import { AnswerConflictError, CheckpointError } from "@toolnexus/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStoreError } from "./errors.js";
import { SCHEMA_VERSION } from "./schema.js";
import { sqliteStore } from "./store.js";
import { checkpoint, openRaw, request, tempDir } from "./test-fixtures.js";
import { createV1File, insertV1Checkpoint, V1_SCHEMA, v1Checkpoint } from "./v1-fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const raw = (path: string) => openRaw(path);

describe("schema", () => {
  it("is created on first open, versioned, in WAL mode", () => {
    const path = tmp.file();
    sqliteStore({ path }).close();
    const db = raw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      "conversations",
      "events",
      "journal",
      "requests",
      "runs",
      "sqlite_sequence",
      "timers",
    ]);
    db.close();
  });

  it("reopens an existing file and keeps its rows", () => {
    const path = tmp.file();
    const first = sqliteStore({ path });
    const ckp = checkpoint([request()]);
    first.halt(ckp);
    first.close();
    const second = sqliteStore({ path });
    expect(second.getRun(ckp.runId)?.checkpoint).toEqual(ckp);
    second.close();
  });

  it("a version 3 file gains the timers table (version 4) and keeps its runs", () => {
    const path = tmp.file();
    const first = sqliteStore({ path });
    const ckp = checkpoint([request()]);
    first.halt(ckp);
    first.close();
    const db = raw(path);
    db.exec("DROP TABLE timers");
    db.pragma("user_version = 3");
    db.close();
    const second = sqliteStore({ path });
    expect(second.getRun(ckp.runId)?.checkpoint).toEqual(ckp);
    expect(second.claimDue({ now: Date.now(), owner: "w" })).toEqual([]);
    second.close();
    const after = raw(path);
    expect(after.pragma("user_version", { simple: true })).toBe(4);
    after.close();
  });

  it("two processes' worth of stores opening a new file at once both work", () => {
    const path = tmp.file();
    const a = sqliteStore({ path });
    const b = sqliteStore({ path });
    const ckp = checkpoint([request()]);
    a.halt(ckp);
    expect(b.getRun(ckp.runId)).toBeDefined();
    a.close();
    b.close();
  });

  it("refuses a file written by a newer schema with a clear error, without changing it", () => {
    const path = tmp.file();
    sqliteStore({ path }).close();
    const db = raw(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    let caught: unknown;
    try {
      sqliteStore({ path });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SqliteStoreError);
    const error = caught as SqliteStoreError;
    expect(error.code).toBe("store_schema");
    expect(error.path).toBe(path);
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(error.message).toContain(`up to version ${SCHEMA_VERSION}`);
    expect(error.message).toContain("upgrade @toolnexus/store-sqlite");

    const after = raw(path);
    expect(after.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1);
    after.close();
  });

  it("a file that is not a database is a store_open error naming the path", () => {
    const path = tmp.file("garbage.db");
    writeFileSync(path, "this is not a sqlite database, just text ".repeat(100));
    expect(() => sqliteStore({ path })).toThrow(SqliteStoreError);
    try {
      sqliteStore({ path });
    } catch (error) {
      expect((error as SqliteStoreError).code).toBe("store_open");
      expect((error as Error).message).toContain(path);
    }
  });

  it("rejects an empty path", () => {
    expect(() => sqliteStore({ path: "" })).toThrow(TypeError);
  });
});

describe("migration from schema version 1", () => {
  const iso = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();
  const v2 = (v1: Record<string, unknown>) => {
    const { id: _id, ...rest } = v1;
    return { ...rest, version: 2 };
  };

  /** A v1 file as the v1 release left it: waiting, resumed and re-halted runs, a conversation. */
  function v1File() {
    const path = tmp.file("v1.db");
    createV1File(path);
    const waiting = v1Checkpoint(
      {
        id: "ckp_w",
        runId: "run_w",
        requests: [
          { id: "pnd_w1", kind: "input", prompt: "Which env?" },
          { id: "pnd_w2", kind: "approval", prompt: "Deploy?", expiresAt: iso(3_600_000) },
        ],
        deadlines: [iso(-1000), undefined],
      },
      { sessionId: "s1", agent: "ops", extra: { tenant: 7 }, conversation: true },
    );
    const resumed = v1Checkpoint({
      id: "ckp_r",
      runId: "run_r",
      requests: [{ id: "pnd_r", kind: "approval", prompt: "Ship?" }],
    });
    // A run resumed once, then halted again on the request of that turn still open.
    const first = v1Checkpoint({
      id: "ckp_h1",
      runId: "run_h",
      requests: [
        { id: "pnd_h1", kind: "input", prompt: "a?" },
        { id: "pnd_h2", kind: "input", prompt: "b?" },
      ],
    });
    first.createdAt = iso(-5000);
    const second = v1Checkpoint({
      id: "ckp_h2",
      runId: "run_h",
      requests: [{ id: "pnd_h2", kind: "input", prompt: "b?" }],
    });
    insertV1Checkpoint(path, waiting);
    insertV1Checkpoint(path, resumed, { resumedMs: Date.now() - 60_000 });
    insertV1Checkpoint(path, first, { resumedMs: Date.now() - 4000 });
    insertV1Checkpoint(path, second);
    const corrupt = v1Checkpoint({
      id: "ckp_c",
      runId: "run_c",
      requests: [{ id: "pnd_c", kind: "input", prompt: "c?" }],
    });
    insertV1Checkpoint(path, corrupt, { json: '{"version":1,"id":' });
    const db = raw(path);
    db.prepare("INSERT INTO conversations (session_id, json, updated_ms) VALUES (?, ?, ?)").run(
      "s1",
      JSON.stringify([{ role: "user", content: "hi" }]),
      Date.now(),
    );
    db.close();
    return { path, waiting, resumed, first, second };
  }

  it("the fixture is a real v1 file: the v1 DDL, user_version 1", () => {
    const { path } = v1File();
    const db = raw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(1);
    expect(db.prepare("SELECT count(*) FROM checkpoints").pluck().get()).toBe(5);
    expect(V1_SCHEMA).toContain("CHECK (state IN ('pending', 'resumed'))");
    db.close();
  });

  it("a pending v1 checkpoint becomes a waiting run with a v2 checkpoint and its requests", () => {
    const { path, waiting } = v1File();
    const store = sqliteStore({ path });
    const db = raw(path);
    // Through version 2 to the current one.
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      "conversations",
      "events",
      "journal",
      "requests",
      "runs",
      "sqlite_sequence",
      "timers",
    ]);
    db.close();

    const info = store.getRun("run_w")!;
    // The first request's deadline passed: the run waits, but reads as expired.
    expect(info).toMatchObject({
      state: "expired",
      sessionId: "s1",
      agent: "ops",
      createdAt: waiting.createdAt,
      failures: 0,
    });
    expect(info.checkpoint).toEqual(v2(waiting));
    expect(info.checkpoint).not.toHaveProperty("id");
    expect(info.requests.map((r) => [r.request.id, r.state, r.expiresAt])).toEqual([
      ["pnd_w1", "expired", (waiting.pending as { deadline: string }[])[0]!.deadline],
      [
        "pnd_w2",
        "waiting",
        (waiting.pending as { request: { expiresAt: string } }[])[1]!.request.expiresAt,
      ],
    ]);
    // It continues like any run: answered, then claimed with its answer.
    expect(store.answer({ id: "pnd_w2", ok: true }).state).toBe("ready");
    const claimed = store.claim({ owner: "w", leaseMs: 1000, runId: "run_w" })!;
    expect(claimed.checkpoint).toEqual(v2(waiting));
    expect(claimed.answers).toEqual([{ id: "pnd_w2", ok: true }]);
    expect(store.load("s1")).toEqual([{ role: "user", content: "hi" }]);
    store.close();
  });

  it("a resumed v1 checkpoint becomes a failed run (migrated) that prune can remove", () => {
    const { path, resumed } = v1File();
    const store = sqliteStore({ path });
    const info = store.getRun("run_r")!;
    expect(info.state).toBe("failed");
    expect(info.lastError?.code).toBe("migrated");
    expect(info.lastError?.message).toMatch(/resumed by an earlier release.*outcome is unknown/);
    expect(info.checkpoint).toEqual(v2(resumed));
    expect(info.requests.map((r) => [r.request.id, r.state])).toEqual([["pnd_r", "applied"]]);
    expect(() => store.answer({ id: "pnd_r", ok: true })).toThrow(AnswerConflictError);
    // The generic claim skips failed runs: it takes the expired run_w, then nothing.
    expect(store.claim({ owner: "w", leaseMs: 1000 })?.lease.runId).toBe("run_w");
    expect(store.claim({ owner: "w", leaseMs: 1000 })).toBeUndefined();
    expect(store.prune({ olderThan: 30_000 })).toBe(1);
    expect(store.getRun("run_r")).toBeUndefined();
    store.close();
  });

  it("a run halted twice keeps its newest halt; the older halt's requests stay known", () => {
    const { path, second } = v1File();
    const store = sqliteStore({ path });
    const info = store.getRun("run_h")!;
    expect(info.state).toBe("waiting");
    expect(info.checkpoint).toEqual(v2(second));
    expect(info.requests.map((r) => [r.request.id, r.state])).toEqual([["pnd_h2", "waiting"]]);
    expect(store.getRequest("pnd_h1")?.state).toBe("applied");
    expect(() => store.answer({ id: "pnd_h1", ok: true })).toThrow(
      expect.objectContaining({ reason: "answered" }),
    );
    expect(store.answer({ id: "pnd_h2", ok: true }).state).toBe("ready");
    store.close();
  });

  it("a corrupt v1 row is kept verbatim: it lists, and reading it names the run", () => {
    const { path } = v1File();
    const store = sqliteStore({ path });
    expect(store.list().map((s) => s.request.id)).toEqual(
      expect.arrayContaining(["pnd_c", "pnd_w1", "pnd_w2", "pnd_r", "pnd_h1", "pnd_h2"]),
    );
    expect(store.list()).toHaveLength(6);
    expect(() => store.getRun("run_c")).toThrow(CheckpointError);
    expect(() => store.getRun("run_c")).toThrow(/run "run_c"/);
    store.close();
  });

  it("lists the migrated requests newest halt first, as v1 did", () => {
    const { path } = v1File();
    const store = sqliteStore({ path });
    expect(store.list().map((s) => s.request.id)).toEqual([
      "pnd_c",
      "pnd_h2",
      "pnd_h1",
      "pnd_r",
      "pnd_w1",
      "pnd_w2",
    ]);
    store.close();
  });

  it("a second store opening the file (migrated or not) finds it done and sees the same runs", () => {
    const { path } = v1File();
    const a = sqliteStore({ path });
    const b = sqliteStore({ path });
    expect(b.getRun("run_w")?.state).toBe("expired");
    expect(b.list()).toHaveLength(6);
    a.close();
    b.close();
    const again = sqliteStore({ path });
    expect(again.list()).toHaveLength(6);
    again.close();
  });

  it("a failed migration rolls back: the file stays version 1 with its rows", () => {
    const path = tmp.file("broken-v1.db");
    createV1File(path);
    insertV1Checkpoint(
      path,
      v1Checkpoint({
        id: "ckp_1",
        runId: "run_1",
        requests: [{ id: "p1", kind: "x", prompt: "?" }],
      }),
    );
    // Something in the way of the migration: a table named like one it creates.
    const db = raw(path);
    db.exec("CREATE TABLE runs (x)");
    db.close();
    expect(() => sqliteStore({ path })).toThrow(SqliteStoreError);
    const after = raw(path);
    expect(after.pragma("user_version", { simple: true })).toBe(1);
    expect(after.prepare("SELECT id FROM checkpoints").pluck().all()).toEqual(["ckp_1"]);
    after.close();
  });
});
