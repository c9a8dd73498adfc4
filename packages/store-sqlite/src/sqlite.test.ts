// What is specific to the SQLite store: the file outlives the process, rows can be damaged by
// hand, several connections share the file, and the queries must stay index lookups.
import { CheckpointError, LeaseLostError } from "@toolnexus/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "./driver.js";
import { type SqliteStore, sqliteStore } from "./store.js";
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
const opened: SqliteStore[] = [];
const open = (): SqliteStore => {
  const s = sqliteStore({ path: tmp.file() });
  opened.push(s);
  return s;
};
/** A second, plain connection, for what the store never does itself (damaging rows). */
const raw = (): Db => openRaw(tmp.file());
const exec = (sql: string, ...params: unknown[]) => {
  const db = raw();
  db.prepare(sql).run(...params);
  db.close();
};

beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  tmp.cleanup();
});

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

describe("persistence across close and reopen", () => {
  it("a run lives through every step with the file closed in between", () => {
    const r1 = request();
    const r2 = request();
    const ckp = checkpoint([r1, r2], { sessionId: "s1" });
    let store = open();
    store.halt(ckp);
    store.close();

    store = open();
    store.answer({ id: r1.id, ok: true, data: { env: "eu" } });
    store.close();

    store = open();
    const claimed = store.claim({ owner: "w1", leaseMs: 60_000 })!;
    expect(claimed.answers).toEqual([{ id: r1.id, ok: true, data: { env: "eu" } }]);
    store.journal(claimed.lease, journalEntry(`call_${r1.id}`, r1.id));
    store.close();

    // The worker died here; another process takes over after the lease, journal intact.
    store = open();
    store.renew(claimed.lease, 0);
    const taken = store.claim({ owner: "w2", leaseMs: 60_000 })!;
    expect(taken).toMatchObject({ reason: "takeover", checkpoint: ckp });
    expect(taken.journal).toEqual([journalEntry(`call_${r1.id}`, r1.id)]);
    store.close();

    store = open();
    expect(() => store.step(claimed.lease, stepCheckpoint(ckp.runId))).toThrow(LeaseLostError);
    store.finish(taken.lease, { state: "done", result: doneResult(ckp.runId) });
    store.close();

    store = open();
    const info = store.getRun(ckp.runId)!;
    expect(info.state).toBe("done");
    expect(info.result?.text).toBe("Deployed.");
    expect(info.requests.map((r) => [r.request.id, r.state])).toEqual([
      [r1.id, "applied"],
      [r2.id, "applied"],
    ]);
  });
});

describe("corrupt rows", () => {
  it("a corrupt checkpoint: a claim by id and getRun throw a CheckpointError naming the run; nothing changes", () => {
    const store = open();
    const bad = request();
    const good = request();
    const badCkp = checkpoint([bad], { runId: "run_bad" });
    store.halt(badCkp);
    store.halt(checkpoint([good], { runId: "run_good" }));
    store.answer({ id: bad.id, ok: true });
    exec("UPDATE runs SET checkpoint_json = ? WHERE run_id = 'run_bad'", '{"version":2,"runId":');

    for (const fn of [
      () => store.claim({ owner: "w", leaseMs: 1000, runId: "run_bad" }),
      () => store.getRun("run_bad"),
    ]) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toContain('run "run_bad"');
      expect((error as Error).message).toContain("corrupt");
    }
    // The failed claims rolled back: the run is still ready, its token unchanged, and every
    // listing and the other runs still work.
    const db = raw();
    expect(
      db.prepare("SELECT state, token, owner FROM runs WHERE run_id = 'run_bad'").get(),
    ).toEqual({ state: "ready", token: 0, owner: null });
    db.close();
    expect(store.list().map((s) => [s.request.id, s.state])).toEqual([
      [good.id, "waiting"],
      [bad.id, "answered"],
    ]);
    expect(store.getRequest(bad.id)?.state).toBe("answered");
    store.answer({ id: good.id, ok: true });
    expect(store.claim({ owner: "w", leaseMs: 1000, runId: "run_good" })?.reason).toBe("ready");
  });

  it("a corrupt run does not block workers: the generic claim sets it aside as failed and takes the next", () => {
    const store = open();
    const bad = request();
    const good = request();
    store.halt(checkpoint([bad], { runId: "run_bad" }));
    store.halt(checkpoint([good], { runId: "run_good" }));
    store.answer({ id: bad.id, ok: true });
    store.answer({ id: good.id, ok: true });
    exec("UPDATE runs SET checkpoint_json = ? WHERE run_id = 'run_bad'", '{"version":2,"runId":');
    const claimed = store.claim({ owner: "w", leaseMs: 1000 });
    expect(claimed?.lease.runId).toBe("run_good");
    const db = raw();
    const row = db
      .prepare(
        "SELECT state, owner, checkpoint_json, error_json FROM runs WHERE run_id = 'run_bad'",
      )
      .get() as { state: string; owner: null; checkpoint_json: string; error_json: string };
    db.close();
    // Kept as it was, for someone to inspect or repair; the error says what is wrong.
    expect(row).toMatchObject({
      state: "failed",
      owner: null,
      checkpoint_json: '{"version":2,"runId":',
    });
    expect(JSON.parse(row.error_json)).toMatchObject({ code: "checkpoint_invalid" });
    expect(store.claim({ owner: "w", leaseMs: 1000 })).toBeUndefined();
  });

  it("a checkpoint of another version names the version problem", () => {
    const store = open();
    const ckp = checkpoint([request({ expiresAt: new Date(0).toISOString() })], { runId: "run_v" });
    store.halt(ckp);
    exec("UPDATE runs SET checkpoint_json = ?", JSON.stringify({ ...ckp, version: 7 }));
    expect(() => store.claim({ owner: "w", leaseMs: 1000, runId: "run_v" })).toThrow(
      /run "run_v".*checkpoint version 7.*reads version 2/,
    );
  });

  it("a corrupt journal entry or recorded answer fails the claim, naming the run", () => {
    const store = open();
    const r = request();
    store.halt(checkpoint([r], { runId: "run_a" }));
    store.answer({ id: r.id, ok: true });
    exec("UPDATE requests SET answer_json = '{oops' WHERE request_id = ?", r.id);
    expect(() => store.claim({ owner: "w", leaseMs: 1000, runId: "run_a" })).toThrow(
      /answer of run "run_a"/,
    );
    // A read tolerates it: the answer is left out rather than failing the whole run.
    expect(store.getRequest(r.id)?.answer).toBeUndefined();

    const lease = store.start(stepCheckpoint("run_j"), "w", 0);
    store.journal(lease, journalEntry("c1"));
    exec("UPDATE journal SET json = '[]' WHERE run_id = 'run_j'");
    expect(() => store.claim({ owner: "w", leaseMs: 1000, runId: "run_j" })).toThrow(
      /journal entry of run run_j is malformed/,
    );
    expect(store.getRun("run_j")?.owner).toBe("w");
  });

  it("list survives damaged request JSON and rows written by hand", () => {
    const store = open();
    const r = request({ kind: "approval", prompt: "Ship?" });
    store.halt(checkpoint([r]));
    exec("UPDATE requests SET request_json = 'nope' WHERE request_id = ?", r.id);
    exec(
      `INSERT INTO runs (run_id, state, created_at, updated_ms, checkpoint_json, wake_ms)
       VALUES ('run_hand', 'waiting', 'whenever', 0, 'garbage', NULL)`,
    );
    exec(
      `INSERT INTO requests (request_id, run_id, halt_no, position, state, kind, prompt,
         request_json, created_at, expires_at, expires_ms)
       VALUES ('pnd_hand', 'run_hand', 99, 0, 'waiting', 'input', 'typed by hand', '[1]',
         'whenever', 'never', NULL)`,
    );
    const listed = store.list();
    expect(listed).toHaveLength(2);
    expect(listed[0]).toEqual({
      request: { id: "pnd_hand", kind: "input", prompt: "typed by hand" },
      runId: "run_hand",
      createdAt: "whenever",
      expiresAt: "never",
      state: "waiting",
    });
    expect(listed[1]?.request).toEqual({ id: r.id, kind: "approval", prompt: "Ship?" });
    expect(store.getRequest("pnd_hand")?.state).toBe("waiting");
    expect(() => store.getRun("run_hand")).toThrow(CheckpointError);
  });
});

describe("two connections on one file", () => {
  it("alternating claims of 100 ready runs from two stores: each is taken exactly once", () => {
    const [a, b] = [open(), open()];
    for (let i = 0; i < 100; i++) {
      const lease = a.start(stepCheckpoint(`run_${i}`), "starter", 60_000);
      a.release(lease);
    }
    const taken: string[] = [];
    for (let i = 0; i < 100; i++) {
      for (const s of i % 2 === 0 ? [a, b] : [b, a]) {
        const claimed = s.claim({ owner: s === a ? "a" : "b", leaseMs: 60_000 });
        if (claimed !== undefined) taken.push(claimed.lease.runId);
      }
    }
    expect(taken).toHaveLength(100);
    expect(new Set(taken).size).toBe(100);
    expect(a.claim({ owner: "a", leaseMs: 1000 })).toBeUndefined();
  });

  it("an answer recorded in one is claimed in the other; fencing holds across them", () => {
    const [a, b] = [open(), open()];
    const r = request();
    const ckp = checkpoint([r]);
    a.halt(ckp);
    expect(b.answer({ id: r.id, ok: true }).state).toBe("ready");
    const first = a.claim({ owner: "a", leaseMs: 0 })!;
    const second = b.claim({ owner: "b", leaseMs: 60_000 })!;
    expect(second.reason).toBe("takeover");
    expect(second.answers).toEqual([{ id: r.id, ok: true }]);
    expect(() => a.journal(first.lease, journalEntry("c1"))).toThrow(LeaseLostError);
    b.journal(second.lease, journalEntry("c1", r.id));
    expect(a.getRequest(r.id)?.state).toBe("applied");
  });
});

describe("at scale", () => {
  it("10,000 runs: list, claim and answer stay index lookups", () => {
    // Through the store's own write path; "normal" skips the per-commit disk sync (not the
    // subject here) so 10,000 halts take a second, not a minute.
    const store = sqliteStore({ path: tmp.file(), synchronous: "normal" });
    opened.push(store);
    for (let i = 0; i < 10_000; i++) {
      const r = request({ id: `pnd_${i}`, kind: i % 2 === 0 ? "approval" : "input" });
      store.halt(checkpoint([r], { runId: `run_${i}`, sessionId: `s${i % 100}` }));
    }
    expect(store.list()).toHaveLength(10_000);
    expect(store.list({ limit: 50 }).map((s) => s.request.id)[0]).toBe("pnd_9999");
    expect(store.list({ sessionId: "s7" })).toHaveLength(100);
    expect(store.list({ kind: "input", state: "waiting", limit: 10 })).toHaveLength(10);
    expect(store.claim({ owner: "w", leaseMs: 1000 })).toBeUndefined();
    store.answer({ id: "pnd_4321", ok: true });
    expect(store.claim({ owner: "w", leaseMs: 1000 })?.lease.runId).toBe("run_4321");

    const db = raw();
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((row) => row.detail)
        .join("; ");
    const now = Date.now();
    for (const [sql, index] of [
      [
        "SELECT run_id FROM runs WHERE state = 'ready' AND ready_ms <= ? ORDER BY ready_ms LIMIT 1",
        "runs_by_ready",
      ],
      [
        "SELECT run_id FROM runs WHERE state = 'waiting' AND wake_ms <= ? ORDER BY wake_ms LIMIT 1",
        "runs_by_wake",
      ],
      [
        "SELECT run_id FROM runs WHERE state = 'running' AND lease_expires_ms <= ? ORDER BY lease_expires_ms LIMIT 1",
        "runs_by_lease",
      ],
    ] as const) {
      expect(plan(sql, now)).toContain(`USING INDEX ${index}`);
      expect(plan(sql, now)).not.toContain("TEMP B-TREE");
    }
    expect(
      plan(
        "SELECT * FROM requests WHERE state = 'waiting' AND (expires_ms IS NULL OR expires_ms > ?) ORDER BY halt_no DESC, rowid ASC LIMIT 50",
        now,
      ),
    ).toContain("USING INDEX requests_by_state");
    expect(
      plan("DELETE FROM runs WHERE finished_ms <= ? AND state IN ('done', 'failed')", now),
    ).toContain("USING COVERING INDEX runs_by_finished");
    expect(
      plan("SELECT * FROM requests WHERE request_id = ? ORDER BY halt_no DESC LIMIT 1", "x"),
    ).toMatch(/USING INDEX sqlite_autoindex_requests_1/);
    db.close();
  });
});

describe("backup and close", () => {
  it("backup copies runs and conversations to a file that opens as a store", async () => {
    const store = open();
    const r = request();
    const ckp = checkpoint([r]);
    store.halt(ckp);
    store.save("s1", [{ role: "user", content: "hello" }]);
    const copyPath = tmp.file("backup.db");
    await store.backup(copyPath);
    const copy = sqliteStore({ path: copyPath });
    opened.push(copy);
    expect(copy.getRun(ckp.runId)?.checkpoint).toEqual(ckp);
    expect(copy.load("s1")).toEqual([{ role: "user", content: "hello" }]);
  });

  it("close is idempotent, and the store is unusable afterwards", () => {
    const s = sqliteStore({ path: tmp.file() });
    s.close();
    s.close();
    expect(() => s.list()).toThrow();
  });
});
