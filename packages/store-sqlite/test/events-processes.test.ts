// Reaching the human from any process, on one SQLite file and real child processes: one process
// starts a run that halts, another answers it, a worker continues it, a follower in yet another
// process sees every event in order; a worker SIGKILLed inside a tool is taken over with nothing
// lost or repeated; a cancel from another process stops a tool that is running.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedRunEvent } from "@toolnexus/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";
import { type Fixture, startFixture } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-events-processes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: Fixture[] = [];
afterEach(async () => {
  for (const fixture of running.splice(0)) {
    if (fixture.child.exitCode === null && fixture.child.signalCode === null) {
      fixture.child.kill("SIGKILL");
      await fixture.exited;
    }
  }
});

function agent(role: string, db: string, runId: string, options: object = {}): Fixture {
  const fixture = startFixture("events-agent.mjs", [role, db, runId, JSON.stringify(options)]);
  running.push(fixture);
  return fixture;
}

/** Runs a process that does one thing, and returns its line. */
async function once<T>(role: string, db: string, runId: string, options: object = {}) {
  const fixture = agent(role, db, runId, options);
  const line = await fixture.line<T>();
  expect(await fixture.exited, fixture.stderr()).toBe(0);
  return line;
}

/** Collects a follower process's events until it ends after the run's last one. */
function follower(db: string, runId: string) {
  const fixture = agent("follow", db, runId);
  const events: RecordedRunEvent[] = [];
  const waits: { type: string; resolve: () => void }[] = [];
  /** Resolves once the follower has seen an event of `type` (the lines stay in `events`). */
  const until = (type: string) =>
    new Promise<void>((resolve) => {
      if (events.some((e) => e.type === type)) resolve();
      else waits.push({ type, resolve });
    });
  const ended = (async () => {
    await fixture.line((v: { following?: string }) => v.following === runId);
    for (;;) {
      const line = await fixture.line<{ event?: RecordedRunEvent; followEnd?: boolean }>(
        (v) => v.event !== undefined || v.followEnd === true,
      );
      if (line.followEnd) break;
      events.push(line.event!);
      for (const wait of waits) if (wait.type === line.event!.type) wait.resolve();
    }
    expect(await fixture.exited, fixture.stderr()).toBe(0);
    return events;
  })();
  return { events, ended, until };
}

/** What a follower must have seen: every recorded event once, in order, offsets 1..n. */
function expectWhole(seen: RecordedRunEvent[], db: string, runId: string) {
  expect(seen.map((e) => e.offset)).toEqual(seen.map((_, i) => i + 1));
  const store = sqliteStore({ path: db });
  try {
    expect(seen).toEqual(store.readEvents(runId, 0));
  } finally {
    store.close();
  }
}

const types = (events: RecordedRunEvent[]): string[] => events.map((e) => e.type);

describe("one run, many processes", () => {
  it("A starts a run that halts, B answers as alice, worker C continues it, follower D sees it all", {
    timeout: 120_000,
  }, async () => {
    const db = join(dir, "abcd.db");
    const runId = "run_abcd";
    expect(await once("start", db, runId)).toEqual({ started: runId, status: "pending" });
    const d = follower(db, runId);
    await d.until("suspended");
    expect(await once("answer", db, runId, { by: "alice@example.com" })).toMatchObject({
      state: "ready",
    });
    const c = agent("work", db, runId);
    const done = await c.line((v: { result?: string }) => v.result === runId);
    expect(done).toMatchObject({ status: "done" });
    const seen = await d.ended;
    expectWhole(seen, db, runId);
    // The store's own events and the loop's, in the order they happened, in four processes.
    expect(seen[0]).toMatchObject({ type: "started" });
    expect(seen.find((e) => e.type === "suspended")?.data).toMatchObject({
      requests: [{ kind: "input", prompt: "Which environment?" }],
    });
    expect(seen.find((e) => e.type === "answered")?.data).toMatchObject({
      ok: true,
      by: "alice@example.com",
    });
    expect(seen.find((e) => e.type === "continued")?.data).toMatchObject({ reason: "ready" });
    expect(seen.at(-1)).toMatchObject({ type: "done", data: { text: "Deployed." } });
    const order = types(seen);
    for (const [before, after] of [
      ["started", "suspended"],
      ["suspended", "answered"],
      ["answered", "continued"],
      ["continued", "done"],
    ]) {
      expect(order.indexOf(before!), `${before} before ${after}`).toBeLessThan(
        order.indexOf(after!),
      );
    }
    expect(order).toContain("tool_call");
    expect(order).toContain("tool_result");
    const store = sqliteStore({ path: db });
    expect(store.getRun(runId)?.requests[0]).toMatchObject({ answeredBy: "alice@example.com" });
    store.close();
  });

  it("a worker SIGKILLed inside a tool: the follower sees the takeover and the rest, nothing lost or repeated", {
    timeout: 120_000,
  }, async () => {
    const db = join(dir, "kill.db");
    const runId = "run_kill";
    await once("start", db, runId, { withBlock: true });
    await once("answer", db, runId, { by: "alice" });
    const d = follower(db, runId);
    const first = agent("work", db, runId, { block: true, leaseMs: 900 });
    await first.line((v: { blocking?: string }) => v.blocking === runId);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    // The next worker finds the lease lapsed and takes the run over.
    const second = agent("work", db, runId);
    const done = await second.line((v: { result?: string }) => v.result === runId);
    expect(done).toMatchObject({ status: "done" });
    const seen = await d.ended;
    expectWhole(seen, db, runId);
    const continued = seen.filter((e) => e.type === "continued").map((e) => e.data);
    expect(continued).toEqual([
      { owner: expect.any(String), reason: "ready" },
      { owner: expect.any(String), reason: "takeover" },
    ]);
    expect(continued[0]!.owner).not.toBe(continued[1]!.owner);
    const order = types(seen);
    expect(order.filter((t) => t === "started")).toHaveLength(1);
    expect(order.filter((t) => t === "answered")).toHaveLength(1);
    expect(order.filter((t) => t === "done")).toHaveLength(1);
    expect(order.at(-1)).toBe("done");
    // After the takeover, the second worker's block call and its result.
    const takeover = seen.findIndex((e) => e.data.reason === "takeover");
    const after = seen.slice(takeover + 1);
    expect(
      after.find((e) => e.type === "tool_result" && e.data.name === "block")?.data.output,
    ).toBe(`finished by ${second.child.pid}`);
  });

  it("a cancel from another process stops a running tool; the run ends cancelled with who and why", {
    timeout: 120_000,
  }, async () => {
    const db = join(dir, "cancel.db");
    const runId = "run_cancel";
    await once("start", db, runId, { withBlock: true });
    await once("answer", db, runId, { by: "alice" });
    const d = follower(db, runId);
    const worker = agent("work", db, runId, { block: true, leaseMs: 900 });
    await worker.line((v: { blocking?: string }) => v.blocking === runId);
    expect(await once("cancel", db, runId, { by: "ops@example.com", reason: "runaway" })).toEqual({
      cancel: { runId, outcome: "requested", state: "running" },
    });
    // The worker's tool sees its signal abort at the next lease renewal.
    const aborted = await worker.line(
      (v: { aborted?: string; message?: string }) => v.aborted === runId,
    );
    expect(aborted).toMatchObject({ error: "CancelRequestedError" });
    expect(aborted.message).toContain("ops@example.com");
    const seen = await d.ended;
    expectWhole(seen, db, runId);
    const order = types(seen);
    expect(order.indexOf("cancel_requested")).toBeGreaterThan(order.indexOf("continued"));
    expect(seen.find((e) => e.type === "cancel_requested")?.data).toEqual({
      by: "ops@example.com",
      reason: "runaway",
    });
    expect(seen.at(-1)).toMatchObject({
      type: "cancelled",
      data: { by: "ops@example.com", reason: "runaway" },
    });
    const store = sqliteStore({ path: db });
    expect(store.getRun(runId)).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops@example.com", reason: "runaway" },
    });
    store.close();
  });
});
