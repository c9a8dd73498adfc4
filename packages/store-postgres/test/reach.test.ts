// Reaching the human from any process, on a real PostgreSQL with real processes: a run halted
// by one process, answered (with who) by a second, continued by a worker that is SIGKILLed
// mid-tool and taken over by another, and followed from offset 0 by a fourth that must see every
// event once, in order, to `done`, while the server is restarted (pg_ctl restart -m fast) under
// it. Then a cancel from another process stops a tool that is running. Its own cluster: the
// restart would cut the connections of the other test files.

import { stopWorkers } from "@toolnexus/chaos-kit";
import type { RecordedRunEvent } from "@toolnexus/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgresStore, postgresStore } from "../src/index.js";
import {
  type ClusterInfo,
  createDatabase,
  destroyCluster,
  restartClusterAsync,
  startCluster,
} from "./cluster.js";
import { type Fixture, startFixture } from "./processes.js";

let cluster: ClusterInfo;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  cluster = await startCluster("reach");
}, 120_000);
afterAll(async () => {
  await stopWorkers();
  await Promise.all(stores.map((store) => store.close()));
  if (cluster !== undefined) destroyCluster(cluster);
});

/** Starts `reach-agent.mjs <role>` and waits until it is connected. */
async function start(role: string, url: string, runId: string, options: object = {}) {
  const fixture = startFixture("reach-agent.mjs", [role, url, runId, JSON.stringify(options)]);
  await fixture.line((v: { ready?: boolean }) => v.ready === true);
  return fixture;
}

/** The events a follow process prints, gathered until it prints that it followed to the end. */
function gather(follower: Fixture) {
  const events: RecordedRunEvent[] = [];
  const waiters: { type: string; resolve: () => void }[] = [];
  const done = (async () => {
    for (;;) {
      const line = await follower.line<{ event?: RecordedRunEvent; followed?: boolean }>(
        (v) => v.event !== undefined || v.followed === true,
      );
      if (line.followed) return events;
      events.push(line.event!);
      for (const w of waiters.filter((w) => w.type === line.event!.type)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  })();
  return {
    events,
    done,
    /** Resolves once an event of this type was printed. */
    seen(type: string): Promise<void> {
      if (events.some((e) => e.type === type)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ type, resolve }));
    },
  };
}

/** Waits until `n` backends of the database listen on the store's channels (at most 60 s). */
async function listeners(url: string, n: number): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  let found = -1;
  for (let i = 0; i < 600; i++) {
    const admin = new pg.Client(cluster.url);
    admin.on("error", () => {});
    try {
      await admin.connect();
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = $1 AND query LIKE 'LISTEN "toolnexus:toolnexus"; LISTEN %'`,
        [database],
      );
      found = rows[0]!.n;
      if (found === n) return;
    } catch {
      // The server is still coming back.
    } finally {
      await admin.end().catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${found} processes listen, not ${n}`);
}

const types = (events: readonly RecordedRunEvent[]) => events.map((e) => e.type);

describe("a durable run reached from any process, on PostgreSQL", () => {
  it("halted by A, answered by B, worked by C (SIGKILLed mid-tool, taken over), followed by D through a server restart", {
    timeout: 240_000,
  }, async () => {
    const url = await createDatabase(cluster, "reach");
    const store = postgresStore({ connectionString: url });
    stores.push(store);

    const a = await start("start", url, "run-a");
    const halted = await a.line<{ halted: string; requests: string[] }>((v) => "halted" in v);
    expect(halted.halted).toBe("pending");
    expect(await a.exited).toBe(0);

    // D follows from offset 0. Its own polls are an hour apart: only a NOTIFY wakes it, so it
    // keeps receiving after the restart only if its store listens again.
    const d = await start("follow", url, "run-a", {
      followPollMs: 3_600_000,
      eventsPollMs: 3_600_000,
    });
    const followed = gather(d);
    await followed.seen("suspended");

    const b = await start("answer", url, "run-a", {
      requestId: halted.requests[0],
      by: "alice@example.com",
    });
    const answered = await b.line<{ receipt: { duplicate: boolean } }>((v) => "receipt" in v);
    expect(answered.receipt.duplicate).toBe(false);
    await followed.seen("answered");

    // C takes the run and hangs in its tool.
    const c = await start("work", url, "", { hang: true, leaseMs: 1000 });
    await c.line((v: { crunching?: string }) => v.crunching === "run-a");

    // The server restarts under every process: every connection is cut (57P01).
    await restartClusterAsync(cluster);
    // C and D listen again (new backends). From here on D hears of events only by NOTIFY.
    await listeners(url, 2);

    // C is killed mid-tool; C2 takes the run over once C's lease lapses.
    c.child.kill("SIGKILL");
    expect(await c.exited).toBe("SIGKILL");
    const c2 = await start("work", url, "", { leaseMs: 1000 });
    await c2.line((v: { crunching?: string }) => v.crunching === "run-a");

    const seen = await followed.done;
    expect(await d.exited).toBe(0);
    // Every event once, in order, to done: exactly what the store recorded.
    const recorded = await store.readEvents("run-a", 0);
    expect(seen).toEqual(recorded);
    expect(seen.map((e) => e.offset)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.at(-1)).toMatchObject({ type: "done", data: { text: "all crunched" } });
    const kinds = types(seen);
    expect(kinds[0]).toBe("started");
    expect(kinds.filter((t) => t === "done")).toHaveLength(1);
    const answeredEvent = seen.find((e) => e.type === "answered")!;
    expect(answeredEvent.data).toEqual({
      requestId: halted.requests[0],
      ok: true,
      by: "alice@example.com",
    });
    // Continued when answered, then taken over (C may even have taken its own run over, had the
    // restart outlasted its lease; C2 takes it over last).
    const continued = seen.filter((e) => e.type === "continued");
    expect(continued.map((e) => e.data.reason)).toEqual([
      "ready",
      ...continued.slice(1).map(() => "takeover"),
    ]);
    expect(continued.length).toBeGreaterThanOrEqual(2);
    expect(continued.at(-1)!.data.owner).not.toBe(continued[0]!.data.owner);
    // The order of a run's life: halted, answered, continued, taken over, done.
    const at = (type: RecordedRunEvent["type"], from = 0) => kinds.indexOf(type, from);
    expect(at("suspended")).toBeLessThan(at("answered"));
    expect(at("answered")).toBeLessThan(at("continued"));
    expect(at("continued", at("continued") + 1)).toBeLessThan(at("done"));
    // The crunch call ended once (C was killed inside it; C2 ran it again).
    const crunchResults = seen.filter((e) => e.type === "tool_result" && e.data.name === "crunch");
    expect(crunchResults).toHaveLength(1);
    expect((await store.getRequest(halted.requests[0]!))?.answeredBy).toBe("alice@example.com");
    c2.child.kill("SIGKILL");
    await c2.exited;
  });

  it("a cancel from another process stops a tool that is running: cancelled, with who and why", {
    timeout: 120_000,
  }, async () => {
    const url = await createDatabase(cluster, "cancel");
    const store = postgresStore({ connectionString: url });
    stores.push(store);
    const a = await start("start", url, "run-b");
    const halted = await a.line<{ requests: string[] }>((v) => "halted" in v);
    const b = await start("answer", url, "run-b", { requestId: halted.requests[0], by: "bob" });
    await b.line((v) => "receipt" in v);
    const worker = await start("work", url, "", { hang: true, leaseMs: 600 });
    await worker.line((v: { crunching?: string }) => v.crunching === "run-b");
    const d = await start("follow", url, "run-b");
    const followed = gather(d);

    const e = await start("cancel", url, "run-b", { by: "ops@example.com", reason: "runaway" });
    const cancelled = await e.line<{ receipt: object }>((v) => "receipt" in v);
    expect(cancelled.receipt).toEqual({ runId: "run-b", outcome: "requested", state: "running" });

    const seen = await followed.done;
    expect(seen.at(-1)).toMatchObject({
      type: "cancelled",
      data: { by: "ops@example.com", reason: "runaway" },
    });
    expect(types(seen)).toContain("cancel_requested");
    expect(seen.map((e) => e.offset)).toEqual(seen.map((_, i) => i + 1));
    expect(await store.getRun("run-b")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops@example.com", reason: "runaway" },
    });
    // The worker process lives on, and takes nothing of the cancelled run again.
    expect(await store.claim({ owner: "test", leaseMs: 60_000 })).toBeUndefined();
    expect(worker.child.exitCode).toBeNull();
  });
});
