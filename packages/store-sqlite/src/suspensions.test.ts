import {
  AlreadyResumedError,
  type Checkpoint,
  CheckpointError,
  type ConversationStore,
  SuspensionNotFoundError,
  type SuspensionStore,
} from "@toolnexus/core";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "./store.js";
import { checkpoint, request, tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
const opened: SqliteStore[] = [];
const open = (): SqliteStore => {
  const s = sqliteStore({ path: tmp.file() });
  opened.push(s);
  return s;
};
const raw = (): Database.Database => new Database(tmp.file());

beforeEach(() => {
  tmp = tempDir();
  store = open();
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

const iso = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();

describe("the store interfaces", () => {
  it("one object is both a SuspensionStore and a ConversationStore", () => {
    const suspensions: SuspensionStore = store;
    const conversations: ConversationStore = store;
    expect(typeof suspensions.claim).toBe("function");
    expect(typeof conversations.load).toBe("function");
  });
});

describe("save and get", () => {
  it("get returns the checkpoint under each of its request ids, as a fresh copy", () => {
    const r1 = request({ prompt: "Which env?" });
    const r2 = request({ kind: "approval", prompt: "Deploy?", url: "https://x.test/ok" });
    const ckp = checkpoint([r1, r2], { sessionId: "s1", agent: "ops", extra: { tenant: 7 } });
    store.save(ckp);
    expect(store.get(r1.id)).toEqual(ckp);
    expect(store.get(r2.id)).toEqual(ckp);
    expect(store.get(r1.id)).not.toBe(store.get(r1.id));
  });

  it("keeps fields core may add later (the checkpoint JSON is stored whole)", () => {
    const r = request();
    const ckp = { ...checkpoint([r]), conversation: true } as Checkpoint;
    store.save(ckp);
    expect(store.get(r.id)).toEqual(ckp);
  });

  it("get is undefined for an unknown id and does not claim", () => {
    const r = request();
    store.save(checkpoint([r]));
    expect(store.get("pnd_nope")).toBeUndefined();
    store.get(r.id);
    store.get(r.id);
    expect(store.claim(r.id).pending[0]?.request.id).toBe(r.id);
  });

  it("refuses an invalid checkpoint with a CheckpointError and stores nothing", () => {
    const bad = { ...checkpoint([request()]), version: 99 } as unknown as Checkpoint;
    expect(() => store.save(bad)).toThrow(CheckpointError);
    expect(() => store.save({ ...checkpoint([]) })).toThrow(/no pending calls/);
    expect(store.list()).toEqual([]);
  });

  it("refuses a checkpoint without a valid createdAt and stores nothing", () => {
    const r = request();
    const { createdAt: _dropped, ...rest } = checkpoint([r]);
    expect(() => store.save(rest as Checkpoint)).toThrow(CheckpointError);
    expect(() => store.save({ ...rest, createdAt: "soon" } as Checkpoint)).toThrow(
      "invalid checkpoint: its createdAt is not an ISO 8601 time",
    );
    expect(store.get(r.id)).toBeUndefined();
    expect(store.list()).toEqual([]);
  });

  it("saving an id again is idempotent: a waiting one is updated, a resumed one not revived", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.save(ckp);
    store.save(JSON.parse(JSON.stringify(ckp)) as Checkpoint);
    expect(store.list()).toHaveLength(1);

    const r2 = request();
    const updated = checkpoint([r, r2], { id: ckp.id, runId: ckp.runId, turns: 2 });
    store.save(updated);
    expect(store.get(r.id)).toEqual(updated);
    expect(store.get(r2.id)).toEqual(updated);
    expect(store.list().map((s) => s.request.id)).toEqual([r.id, r2.id]);

    store.claim(r.id);
    store.save(updated);
    expect(store.get(r.id)).toBeUndefined();
    expect(() => store.claim(r2.id)).toThrow(AlreadyResumedError);
    expect(store.list({ state: "resumed" })).toHaveLength(2);
  });
});

describe("claim", () => {
  it("takes the checkpoint once; then AlreadyResumedError; unknown ids SuspensionNotFoundError", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.save(ckp);
    expect(store.claim(r.id)).toEqual(ckp);
    const again = thrown(() => store.claim(r.id));
    expect(again).toBeInstanceOf(AlreadyResumedError);
    expect((again as AlreadyResumedError).requestId).toBe(r.id);
    expect(store.get(r.id)).toBeUndefined();
    const unknown = thrown(() => store.claim("pnd_unknown"));
    expect(unknown).toBeInstanceOf(SuspensionNotFoundError);
    expect((unknown as SuspensionNotFoundError).requestId).toBe("pnd_unknown");
  });

  it("claiming one request of a multi-request halt resumes the whole checkpoint", () => {
    const r1 = request();
    const r2 = request();
    store.save(checkpoint([r1, r2]));
    store.claim(r1.id);
    expect(() => store.claim(r2.id)).toThrow(AlreadyResumedError);
  });

  it("a later halt on the same still-pending request is found by get and claim", () => {
    const r1 = request();
    const r2 = request();
    const first = checkpoint([r1, r2], { createdAt: iso(-1000) });
    store.save(first);
    expect(store.claim(r1.id).id).toBe(first.id);
    // The resumed run answered r1 and halted again on r2 (same Request, same id).
    const second = checkpoint([r2], { runId: first.runId, createdAt: iso(0) });
    store.save(second);
    expect(store.get(r2.id)?.id).toBe(second.id);
    expect(store.claim(r2.id).id).toBe(second.id);
    expect(() => store.claim(r2.id)).toThrow(AlreadyResumedError);
    const states = store.list().map((s) => [s.checkpointId, s.request.id, s.state]);
    expect(states).toEqual([
      [second.id, r2.id, "resumed"],
      [first.id, r1.id, "resumed"],
      [first.id, r2.id, "resumed"],
    ]);
  });

  it("an expired request can still be claimed (the client resolves it as expired)", () => {
    const r = request({ expiresAt: iso(-60_000) });
    store.save(checkpoint([r]));
    expect(store.list()[0]?.state).toBe("expired");
    expect(store.claim(r.id).pending[0]?.request.id).toBe(r.id);
    expect(store.list()[0]?.state).toBe("resumed");
  });

  it("two stores on the same file: a claim in one is seen by the other", () => {
    const other = open();
    const r = request();
    store.save(checkpoint([r]));
    expect(other.get(r.id)).toBeDefined();
    other.claim(r.id);
    expect(() => store.claim(r.id)).toThrow(AlreadyResumedError);
    expect(store.get(r.id)).toBeUndefined();
  });

  it("alternating claims from two stores: every request is taken exactly once", () => {
    const other = open();
    const ids = Array.from({ length: 100 }, () => request().id);
    for (const id of ids) store.save(checkpoint([{ id, kind: "input", prompt: "?" }]));
    let wins = 0;
    let losses = 0;
    for (const [i, id] of ids.entries()) {
      const [a, b] = i % 2 === 0 ? [store, other] : [other, store];
      for (const s of [a, b]) {
        try {
          s.claim(id);
          wins++;
        } catch (error) {
          expect(error).toBeInstanceOf(AlreadyResumedError);
          losses++;
        }
      }
    }
    expect(wins).toBe(100);
    expect(losses).toBe(100);
  });
});

describe("corrupt and foreign rows", () => {
  const corrupt = (checkpointId: string, json: string) => {
    const db = raw();
    db.prepare("UPDATE checkpoints SET json = ? WHERE id = ?").run(json, checkpointId);
    db.close();
  };

  it("corrupt JSON: get and claim throw a CheckpointError naming the request; others stay usable", () => {
    const bad = request();
    const good = request();
    const badCkp = checkpoint([bad]);
    store.save(badCkp);
    store.save(checkpoint([good]));
    corrupt(badCkp.id, '{"version":1,"id":');

    for (const fn of [() => store.get(bad.id), () => store.claim(bad.id)]) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).requestId).toBe(bad.id);
      expect((error as Error).message).toContain(`request "${bad.id}"`);
      expect((error as Error).message).toContain("corrupt");
    }
    // The failed claim changed nothing: the row still waits, and lists without crashing.
    const listed = store.list();
    expect(listed.map((s) => [s.request.id, s.state])).toEqual([
      [good.id, "pending"],
      [bad.id, "pending"],
    ]);
    expect(store.claim(good.id).pending[0]?.request.id).toBe(good.id);
  });

  it("a checkpoint from another version names the version problem", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.save(ckp);
    corrupt(ckp.id, JSON.stringify({ ...ckp, version: 0 }));
    const error = thrown(() => store.claim(r.id));
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toMatch(
      new RegExp(`request "${r.id}".*checkpoint version 0.*reads version 1`),
    );
  });

  it("a checkpoint that does not list the indexed request is refused", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.save(ckp);
    const other = checkpoint([request()], { id: ckp.id });
    corrupt(ckp.id, JSON.stringify(other));
    expect(() => store.get(r.id)).toThrow(/does not list it as pending/);
  });

  it("list survives rows written by hand with bad request JSON and odd columns", () => {
    const r = request({ kind: "approval", prompt: "Ship?" });
    const ckp = checkpoint([r]);
    store.save(ckp);
    const db = raw();
    db.prepare("UPDATE requests SET request_json = 'nope' WHERE request_id = ?").run(r.id);
    db.prepare(
      `INSERT INTO checkpoints (id, run_id, state, created_at, created_ms, json)
       VALUES ('ckp_hand', 'run_hand', 'pending', 'whenever', 0, 'garbage')`,
    ).run();
    db.prepare(
      `INSERT INTO requests (checkpoint_id, position, request_id, kind, prompt, created_ms,
         expires_at, expires_ms, request_json)
       VALUES ('ckp_hand', 0, 'pnd_hand', 'input', 'typed by hand', 0, 'never', NULL, '[1]')`,
    ).run();
    db.close();
    const listed = store.list();
    expect(listed).toHaveLength(2);
    expect(listed[0]?.request).toEqual({ id: r.id, kind: "approval", prompt: "Ship?" });
    expect(listed[1]).toMatchObject({
      request: { id: "pnd_hand", kind: "input", prompt: "typed by hand" },
      checkpointId: "ckp_hand",
      createdAt: "whenever",
      expiresAt: "never",
      state: "pending",
    });
    expect(() => store.claim("pnd_hand")).toThrow(CheckpointError);
  });
});

describe("list", () => {
  it("one summary per request, newest first, with all fields", () => {
    const r1 = request({ data: { schema: { type: "string" } } });
    const r2 = request({ kind: "approval", prompt: "Deploy?", expiresAt: iso(3_600_000) });
    const r3 = request({ kind: "authorization", prompt: "Log in", url: "https://x.test/a" });
    const older = checkpoint([r1, r2], { createdAt: iso(-2000), sessionId: "s1", agent: "ops" });
    const newer = checkpoint([r3], { createdAt: iso(-1000) });
    store.save(older);
    store.save(newer);
    expect(store.list()).toEqual([
      {
        request: r3,
        checkpointId: newer.id,
        runId: newer.runId,
        createdAt: newer.createdAt,
        state: "pending",
      },
      {
        request: r1,
        checkpointId: older.id,
        runId: older.runId,
        sessionId: "s1",
        agent: "ops",
        createdAt: older.createdAt,
        state: "pending",
      },
      {
        request: r2,
        checkpointId: older.id,
        runId: older.runId,
        sessionId: "s1",
        agent: "ops",
        createdAt: older.createdAt,
        expiresAt: r2.expiresAt,
        state: "pending",
      },
    ]);
  });

  it("the effective deadline is the call's deadline, else the request's expiresAt", () => {
    const late = iso(3_600_000);
    const r1 = request({ expiresAt: late });
    const r2 = request({ expiresAt: late });
    store.save(checkpoint([r1, r2], { deadlines: [iso(-1), undefined] }));
    const byId = new Map(store.list().map((s) => [s.request.id, s]));
    expect(byId.get(r1.id)?.state).toBe("expired");
    expect(byId.get(r2.id)?.state).toBe("pending");
    expect(byId.get(r2.id)?.expiresAt).toBe(late);
  });

  it("filters by state, session and kind; all given filters must match", () => {
    const waiting = request({ kind: "approval" });
    const expired = request({ kind: "input", expiresAt: iso(-1000) });
    const done = request({ kind: "approval" });
    store.save(checkpoint([waiting], { sessionId: "a" }));
    store.save(checkpoint([expired], { sessionId: "a" }));
    store.save(checkpoint([done], { sessionId: "b" }));
    store.claim(done.id);
    const ids = (filter: Parameters<SqliteStore["list"]>[0]) =>
      store
        .list(filter)
        .map((s) => s.request.id)
        .sort();

    expect(ids({ state: "pending" })).toEqual([waiting.id]);
    expect(ids({ state: "expired" })).toEqual([expired.id]);
    expect(ids({ state: "resumed" })).toEqual([done.id]);
    expect(ids({ sessionId: "a" })).toEqual([waiting.id, expired.id].sort());
    expect(ids({ kind: "approval" })).toEqual([waiting.id, done.id].sort());
    expect(ids({ kind: "approval", state: "pending", sessionId: "a" })).toEqual([waiting.id]);
    expect(ids({ kind: "approval", sessionId: "b", state: "pending" })).toEqual([]);
    expect(ids({ sessionId: "nobody" })).toEqual([]);
  });

  it("limit keeps the newest", () => {
    const rs = [request(), request(), request()];
    rs.forEach((r, i) => {
      store.save(checkpoint([r], { createdAt: iso(i * 1000) }));
    });
    expect(store.list({ limit: 2 }).map((s) => s.request.id)).toEqual([rs[2]!.id, rs[1]!.id]);
  });

  it("checkpoints with the same created time list in save order, newest first", () => {
    const at = iso(0);
    const rs = [request(), request(), request()];
    for (const r of rs) store.save(checkpoint([r], { createdAt: at }));
    expect(store.list().map((s) => s.request.id)).toEqual(rs.map((r) => r.id).reverse());
  });
});

describe("prune", () => {
  const counts = () => {
    const db = raw();
    const c = db.prepare("SELECT count(*) FROM checkpoints").pluck().get();
    const r = db.prepare("SELECT count(*) FROM requests").pluck().get();
    db.close();
    return [c, r];
  };

  it("deletes only resumed runs finished before the cutoff, and says how many", () => {
    const done = [request(), request()];
    const waiting = request();
    const expired = request({ expiresAt: iso(-1000) });
    store.save(checkpoint(done));
    store.save(checkpoint([request()]));
    store.save(checkpoint([waiting]));
    store.save(checkpoint([expired]));
    store.claim(done[0]!.id);
    expect(counts()).toEqual([4, 5]);

    // Nothing finished before an hour ago.
    expect(store.prune({ olderThan: 3_600_000 })).toBe(0);
    expect(store.prune({ olderThan: new Date(Date.now() - 60_000) })).toBe(0);
    expect(counts()).toEqual([4, 5]);

    // Everything finished before a minute from now: the one resumed run (two request rows).
    expect(store.prune({ olderThan: new Date(Date.now() + 60_000) })).toBe(1);
    expect(counts()).toEqual([3, 3]);
    expect(store.list().every((s) => s.state !== "resumed")).toBe(true);
    expect(store.list({ state: "expired" }).map((s) => s.request.id)).toEqual([expired.id]);
    // A pruned request is simply unknown now.
    expect(() => store.claim(done[0]!.id)).toThrow(SuspensionNotFoundError);
    expect(store.get(waiting.id)).toBeDefined();
  });

  it("olderThan: 0 removes every finished run; a bad value is refused", () => {
    const done = request();
    const waiting = request();
    store.save(checkpoint([done]));
    store.save(checkpoint([waiting]));
    store.claim(done.id);
    for (const olderThan of [new Date("nope"), -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => store.prune({ olderThan })).toThrow(TypeError);
    }
    expect(counts()).toEqual([2, 2]);
    expect(store.prune({ olderThan: 0 })).toBe(1);
    expect(counts()).toEqual([1, 1]);
    expect(store.get(waiting.id)).toBeDefined();
  });
});

describe("backup and close", () => {
  it("backup copies halted runs and conversations to a file that opens as a store", async () => {
    const r = request();
    store.save(checkpoint([r]));
    store.save("s1", [{ role: "user", content: "hello" }]);
    const copyPath = tmp.file("backup.db");
    await store.backup(copyPath);
    const copy = sqliteStore({ path: copyPath });
    opened.push(copy);
    expect(copy.get(r.id)?.pending[0]?.request).toEqual(r);
    expect(copy.load("s1")).toEqual([{ role: "user", content: "hello" }]);
  });

  it("close is idempotent, and the store is unusable afterwards", () => {
    const s = sqliteStore({ path: tmp.file() });
    s.close();
    s.close();
    expect(() => s.list()).toThrow();
  });
});
