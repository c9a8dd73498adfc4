// Durable runs across real processes on one SQLite file: racing continuations, sibling answers
// from two processes at once, and a retry after a model error.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startedExecs } from "@toolnexus/chaos-kit";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";
import { type Fixture, startFixture } from "./processes.js";

const ROUNDS = 30;
// These tests race processes on one file; none waits for a lease to run out. A lease long enough
// that a process starved by a busy machine (the default 400 ms) keeps it, so a takeover is never
// what they see.
const LONG_LEASE = JSON.stringify({ leaseMs: 10_000 });
const dir = mkdtempSync(join(tmpdir(), "toolnexus-durable-processes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setup(name: string, options: Record<string, unknown>) {
  const db = join(dir, `${name}.db`);
  const logDir = join(dir, `${name}-logs`);
  mkdirSync(logDir);
  const starter = startFixture("durable-agent.mjs", [
    "start",
    db,
    logDir,
    JSON.stringify({ count: ROUNDS, prefix: name, ...options }),
  ]);
  await starter.line((v: { startedAll?: boolean }) => v.startedAll === true);
  await starter.exited;
  const store = sqliteStore({ path: db });
  return { db, logDir, store, runIds: Array.from({ length: ROUNDS }, (_, i) => `${name}-${i}`) };
}

async function ready(fixtures: Fixture[]) {
  await Promise.all(fixtures.map((f) => f.line((v: { ready?: boolean }) => v.ready === true)));
}

describe("durable runs across processes", () => {
  it(`8 processes race to continue one ready run, ${ROUNDS} rounds: exactly one runs it, all see it done`, {
    timeout: 240_000,
  }, async () => {
    const { db, logDir, store, runIds } = await setup("race", {});
    const racers = Array.from({ length: 8 }, () =>
      startFixture("durable-agent.mjs", ["continue", db, logDir, LONG_LEASE]),
    );
    await ready(racers);
    for (const runId of runIds) {
      const request = store.getRun(runId)!.requests[0]!.request;
      store.answer({ id: request.id, ok: true, data: { token: runId } });
      for (const racer of racers) racer.send(runId);
      const results = await Promise.all(
        racers.map((racer) => racer.line((v: { runId?: string }) => v.runId === runId)),
      );
      expect(results.map((r) => (r as { status: string }).status)).toEqual(Array(8).fill("done"));
    }
    for (const racer of racers) racer.child.stdin?.end();
    await Promise.all(racers.map((r) => r.exited));
    const answered = startedExecs(logDir).filter((e) => e.tool === "approve" && e.answered);
    expect(answered).toHaveLength(ROUNDS);
    expect(new Set(answered.map((e) => e.runId)).size).toBe(ROUNDS);
    store.close();
  });

  it(`two processes answer the two requests of one halted turn at the same moment, ${ROUNDS} rounds: both applied`, {
    timeout: 240_000,
  }, async () => {
    const { db, logDir, store, runIds } = await setup("siblings", { twoQuestions: true });
    const pair = [0, 1].map(() =>
      startFixture("durable-agent.mjs", [
        "resume",
        db,
        logDir,
        JSON.stringify({ twoQuestions: true, leaseMs: 10_000 }),
      ]),
    );
    await ready(pair);
    for (const runId of runIds) {
      const requests = store.getRun(runId)!.requests.map((r) => r.request);
      expect(requests).toHaveLength(2);
      pair.forEach((fixture, i) => {
        fixture.send(
          JSON.stringify({ id: requests[i]!.id, ok: true, data: { token: `${runId}-${i}` } }),
        );
      });
      const results = await Promise.all(
        pair.map((f) =>
          f.line(
            (v: { runId?: string; error?: string }) => v.runId === runId || v.error !== undefined,
          ),
        ),
      );
      // A process whose answer was applied before the other was recorded sees the run wait
      // for it (pending); the other answer's process then finishes the run.
      const statuses = results.map((r) => (r as { status?: string }).status).sort();
      expect(
        [
          ["done", "done"],
          ["done", "pending"],
        ],
        `${runId}: ${JSON.stringify(results)}`,
      ).toContainEqual(statuses);
      expect(store.getRun(runId)!.state).toBe("done");
      const tools = store
        .getRun(runId)!
        .result!.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
      expect(tools).toEqual([`applied ${runId}-0#1`, `applied ${runId}-1#1`]);
    }
    for (const fixture of pair) fixture.child.stdin?.end();
    await Promise.all(pair.map((f) => f.exited));
    const answered = startedExecs(logDir).filter((e) => e.tool === "approve" && e.answered);
    expect(answered).toHaveLength(2 * ROUNDS);
    store.close();
  });

  it("a model error after a resume leaves the run ready; a retry in another process completes it, the tool ran once", {
    timeout: 60_000,
  }, async () => {
    const { db, logDir, store, runIds } = await setup("retry", {});
    const runId = runIds[0]!;
    const request = store.getRun(runId)!.requests[0]!.request;
    const failing = startFixture("durable-agent.mjs", [
      "resume",
      db,
      logDir,
      JSON.stringify({ failModel: 1, leaseMs: 10_000 }),
    ]);
    await ready([failing]);
    failing.send(JSON.stringify({ id: request.id, ok: true, data: { token: "t" } }));
    const failed = await failing.line((v: { error?: string }) => v.error !== undefined);
    expect(failed).toMatchObject({ error: "model_failed" });
    failing.child.stdin?.end();
    await failing.exited;
    const info = store.getRun(runId)!;
    expect(info.state).toBe("ready");
    expect(info.lastError?.message).toContain("503 the model is overloaded");

    const retry = startFixture("durable-agent.mjs", ["continue", db, logDir, LONG_LEASE]);
    await ready([retry]);
    retry.send(runId);
    expect(await retry.line((v: { runId?: string }) => v.runId === runId)).toMatchObject({
      status: "done",
    });
    retry.child.stdin?.end();
    await retry.exited;
    const ran = startedExecs(logDir).filter(
      (e) => e.runId === runId && e.tool === "approve" && e.answered,
    );
    expect(ran).toHaveLength(1);
    store.close();
  });
});
