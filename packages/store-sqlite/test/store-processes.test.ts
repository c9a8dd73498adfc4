// The store alone across real processes sharing one file: claims and answers that hit the file
// at the same moment, and processes opening (or migrating) a file at once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../src/schema.js";
import { sqliteStore } from "../src/store.js";
import { checkpoint, openRaw, request, tempDir } from "../src/test-fixtures.js";
import { createV1File, insertV1Checkpoint, v1Checkpoint } from "../src/v1-fixture.js";
import { type Fixture, startFixture } from "./processes.js";

const ROUNDS = 30;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

interface Outcome {
  round: number;
  op: string;
  runId?: string | null;
  token?: number | null;
  receipt?: { runId: string; requestId: string; duplicate: boolean; state: string };
  error?: string;
}

/** Arms each racer with its operation, waits until all are armed, then lets them all go. */
async function race(racers: Fixture[], arms: Record<string, unknown>[]): Promise<Outcome[]> {
  const round = arms[0]!.round as number;
  const armed = racers.map((f) => f.line((v: { armed?: number }) => v.armed === round));
  racers.forEach((f, i) => {
    f.send(JSON.stringify({ arm: arms[i] }));
  });
  await Promise.all(armed);
  const outcomes = racers.map((f) => f.line<Outcome>((v) => v.round === round && "op" in v));
  for (const f of racers) f.send("go");
  return Promise.all(outcomes);
}

async function startRacers(path: string, count: number): Promise<Fixture[]> {
  const racers = Array.from({ length: count }, () => startFixture("store-racer.mjs", [path]));
  await Promise.all(racers.map((f) => f.line((v) => v.ready === true)));
  return racers;
}

async function stop(racers: Fixture[]): Promise<void> {
  for (const f of racers) f.child.stdin?.end();
  await Promise.all(racers.map((f) => f.exited));
}

describe("the store across processes", () => {
  it(`8 processes race to claim one ready run, ${ROUNDS} rounds: exactly one wins each round`, async () => {
    const path = tmp.file();
    const store = sqliteStore({ path });
    const racers = await startRacers(path, 8);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // One new ready run per round; the runs of earlier rounds are leased (10 minutes).
        const r = request();
        const ckp = checkpoint([r], { runId: `run_${round}` });
        store.halt(ckp);
        store.answer({ id: r.id, ok: true });
        const outcomes = await race(
          racers,
          racers.map(() => ({ op: "claim", round })),
        );
        expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
        const winners = outcomes.filter((o) => o.runId !== null);
        expect(winners, `round ${round}`).toHaveLength(1);
        expect(winners[0]).toMatchObject({ runId: ckp.runId, token: 1 });
        expect(store.getRun(ckp.runId)?.state).toBe("running");
      }
    } finally {
      await stop(racers);
      store.close();
    }
  }, 240_000);

  it(`two processes answer the two requests of one run at once, ${ROUNDS} rounds: both recorded`, async () => {
    const path = tmp.file();
    const store = sqliteStore({ path });
    const racers = await startRacers(path, 2);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const [r1, r2] = [request(), request()];
        const ckp = checkpoint([r1!, r2!], { runId: `run_${round}` });
        store.halt(ckp);
        const answers = [
          { id: r1!.id, ok: true, data: { from: "a", round } },
          { id: r2!.id, ok: false, reason: "declined" },
        ];
        const outcomes = await race(racers, [
          { op: "answer", round, answer: answers[0] },
          { op: "answer", round, answer: answers[1] },
        ]);
        expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined]);
        expect(outcomes.map((o) => [o.receipt?.requestId, o.receipt?.duplicate])).toEqual([
          [r1!.id, false],
          [r2!.id, false],
        ]);
        expect(outcomes.every((o) => o.receipt?.state === "ready")).toBe(true);
        const claimed = store.claim({ owner: "parent", leaseMs: 60_000, runId: ckp.runId })!;
        expect(claimed.answers, `round ${round}`).toEqual(answers);
      }
    } finally {
      await stop(racers);
      store.close();
    }
  }, 120_000);

  it("several processes creating a new file at once: one schema, every halt kept", async () => {
    // Six at once, three times: putting a new file in WAL mode is where they collide (SQLite may
    // answer SQLITE_BUSY there without waiting; node:sqlite once failed 12 opens in 120).
    const ids = ["pnd_1", "pnd_2", "pnd_3", "pnd_4", "pnd_5", "pnd_6"];
    for (let round = 0; round < 3; round++) {
      const path = tmp.file(`fresh-${round}.db`);
      const fixtures = ids.map((id) => startFixture("open-and-halt.mjs", [path, id]));
      await Promise.all(fixtures.map((f) => f.line((v) => v.ready === true)));
      // All at the same instant, a moment after the last one is told.
      const at = Date.now() + 200;
      for (const f of fixtures) f.send(`go ${at}`);
      const outcomes = await Promise.all(
        fixtures.map((f) => f.line<{ saved: string | null; error?: string }>((v) => "saved" in v)),
      );
      expect(outcomes.map((o) => o.error)).toEqual(ids.map(() => undefined));
      const store = sqliteStore({ path });
      expect(
        store
          .list()
          .map((s) => s.request.id)
          .sort(),
      ).toEqual(ids);
      store.close();
    }
  }, 90_000);

  it("several processes opening a v1 file at once: migrated once, nothing lost", async () => {
    const path = tmp.file("v1.db");
    createV1File(path);
    for (let i = 0; i < 50; i++) {
      insertV1Checkpoint(
        path,
        v1Checkpoint({
          id: `ckp_${i}`,
          runId: `run_v1_${i}`,
          requests: [{ id: `pnd_v1_${i}`, kind: "approval", prompt: "ok?" }],
        }),
        i % 2 === 0 ? {} : { resumedMs: Date.now() },
      );
    }
    const ids = ["pnd_1", "pnd_2", "pnd_3", "pnd_4"];
    const fixtures = ids.map((id) => startFixture("open-and-halt.mjs", [path, id]));
    await Promise.all(fixtures.map((f) => f.line((v) => v.ready === true)));
    for (const f of fixtures) f.send("go");
    const outcomes = await Promise.all(
      fixtures.map((f) => f.line<{ saved: string | null; error?: string }>((v) => "saved" in v)),
    );
    expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined, undefined, undefined]);

    const db = openRaw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const states = db
      .prepare("SELECT state, count(*) AS n FROM runs GROUP BY state ORDER BY state")
      .all();
    expect(states).toEqual([
      { state: "failed", n: 25 },
      { state: "waiting", n: 25 + ids.length },
    ]);
    expect(db.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(50 + ids.length);
    db.close();
  }, 60_000);
});
