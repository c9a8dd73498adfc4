// Durability under SIGKILL: many processes start, answer and work durable runs on one SQLite
// file while a killer SIGKILLs them at random and restarts them. Afterwards every run must be
// done, no journaled call may have run again, and no recorded answer may be lost.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Crew, countStates, guard, judgeDurability, stopWorkers } from "@toolnexus/chaos-kit";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";

const RUNS = 200;
const STARTERS = 4;
// Each model call and tool takes up to this long, so a run spends its time inside the windows
// the killer aims at (a tool mid-flight, a model call, a halt, a save).
const JITTER_MS = 120;
const AGENT = fileURLToPath(new URL("./fixtures/durable-agent.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "toolnexus-durability-"));
// Removed by the chaos kit's watchdog if this process dies before afterAll.
const releaseDir = guard({ remove: dir });
// Every process this file starts ends here, even when the test fails.
afterAll(async () => {
  await stopWorkers();
  rmSync(dir, { recursive: true, force: true });
  releaseDir();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("durable runs survive SIGKILL at any point", () => {
  it(`${RUNS} runs, 4 starters, 2 answerers, 3 workers, random SIGKILLs: every run done, nothing run twice after its journal, no answer lost`, {
    timeout: 240_000,
  }, async () => {
    const db = join(dir, "chaos.db");
    const logDir = join(dir, "logs");
    mkdirSync(logDir);
    const perStarter = RUNS / STARTERS;
    const runIds = Array.from(
      { length: RUNS },
      (_, i) => `run-${Math.floor(i / perStarter)}-${i % perStarter}`,
    );

    // Each role is a member the killer may kill and start again. The first process creates the
    // file; the others open it.
    const crew = new Crew(AGENT, [db, logDir]);
    const starter = (s: number) =>
      crew.add("start", { count: perStarter, prefix: `run-${s}`, jitterMs: JITTER_MS })[0]!;
    const starters = [starter(0)];
    await crew.ready(starters);
    for (let s = 1; s < STARTERS; s++) starters.push(starter(s));
    crew.add("answer", {}, 2);
    crew.add("work", { concurrency: 4, jitterMs: JITTER_MS }, 3);
    // A starter that said it started all its runs is done: the killer leaves it alone.
    const watchStarter = (starter: (typeof starters)[number]) =>
      void starter.worker
        .line((v: { startedAll?: boolean }) => v.startedAll === true)
        .then(
          () => {
            starter.finished = true;
          },
          () => {},
        );
    starters.forEach(watchStarter);

    const store = sqliteStore({ path: db, busyTimeoutMs: 30_000 });
    const getRun = (id: string) => store.getRun(id);
    const started = Date.now();
    // Kill for a while, then let the survivors finish.
    while (Date.now() - started < 25_000) {
      await pause(50 + Math.random() * 150);
      const victim = crew.pick()!;
      await crew.kill(victim);
      if (victim.role === "start") watchStarter(victim);
      if (((await countStates(runIds, getRun)).done ?? 0) === RUNS) break;
    }
    const deadline = Date.now() + 150_000;
    while (((await countStates(runIds, getRun)).done ?? 0) < RUNS && Date.now() < deadline) {
      await pause(250);
    }
    const final = await countStates(runIds, getRun);
    await crew.stop();

    const verdict = await judgeDurability({
      runIds,
      logDir,
      getRun,
    });
    const report = {
      runs: RUNS,
      final,
      kills: crew.kills,
      killsByRole: crew.members.map((m) => `${m.role}:${m.kills}`).join(" "),
      ...verdict,
    };
    console.log(`durability report: ${JSON.stringify(report)}`);
    store.close();
    expect(final).toEqual({ done: RUNS });
    expect(verdict.finished).toBe(RUNS);
    expect(verdict.rerunAfterJournal).toBe(0);
    expect(verdict.repeatedAttempt).toBe(0);
    expect(verdict.lostAnswers).toBe(0);
    expect(crew.kills).toBeGreaterThan(40);
  });
});
