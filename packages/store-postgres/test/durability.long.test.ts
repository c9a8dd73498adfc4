// Durability on PostgreSQL under SIGKILL and a database restart: worker processes continue
// 1,000 halted runs while two other processes record the answers; workers are SIGKILLed at
// random moments and restarted, and the database is restarted (pg_ctl restart) in the middle.
// Afterwards every run must be done, no journaled call may have run again, and no recorded
// answer may be lost. This file runs its own cluster: restarting the shared one would cut the
// connections of the other test files.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Crew, countStates, guard, judgeDurability, stopWorkers } from "@toolnexus/chaos-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import {
  type ClusterInfo,
  createDatabase,
  destroyCluster,
  restartClusterAsync,
  startCluster,
} from "./cluster.js";
import { startFixture } from "./processes.js";

const RUNS = 1000;
const WORKERS = 4;
const KILLS = 10;
// Each tool and model turn takes up to this long, so kills land inside every window of a run.
const JITTER_MS = 60;
const AGENT = fileURLToPath(new URL("./fixtures/durable-agent.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "toolnexus-pg-durability-"));
// Removed by the chaos kit's watchdog if this process dies before afterAll.
const releaseDir = guard({ remove: dir });
let cluster: ClusterInfo;
beforeAll(async () => {
  cluster = await startCluster("chaos");
}, 120_000);
// Every process and the cluster this file starts end here, even when the test fails (and the
// chaos kit's watchdog ends them if this process dies first).
afterAll(async () => {
  await stopWorkers();
  if (cluster !== undefined) destroyCluster(cluster);
  rmSync(dir, { recursive: true, force: true });
  releaseDir();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("durable runs on PostgreSQL survive SIGKILLed workers and a database restart", () => {
  it(`${RUNS} runs, ${WORKERS} workers, 2 answerers, ${KILLS} worker SIGKILLs, pg_ctl restart: every run done, nothing run twice after its journal, no answer lost`, {
    timeout: 180_000,
  }, async () => {
    const url = await createDatabase(cluster, "chaos");
    const logDir = join(dir, "logs");
    mkdirSync(logDir);
    const common = { jitterMs: JITTER_MS, leaseMs: 1000, pollMs: 200 };

    // 1. A thousand runs halted for an answer, by one process.
    const starter = startFixture("durable-agent.mjs", [
      "start",
      url,
      logDir,
      JSON.stringify({ count: RUNS, prefix: "run", concurrency: 8 }),
    ]);
    await starter.line((v: { startedAll?: boolean }) => v.startedAll === true);
    await starter.exited;
    const runIds = Array.from({ length: RUNS }, (_, i) => `run-${i}`);

    // 2. Workers and answerers at once; the answerers pace themselves so the work lasts a while.
    const crew = new Crew(AGENT, [url, logDir]);
    const workers = crew.add("work", { ...common, concurrency: 4 }, WORKERS);
    crew.add("answer", { paceMs: 20 }, 2);
    await crew.ready();

    const store = postgresStore({ connectionString: url });
    const getRun = (id: string) => store.getRun(id);
    // While the database is away, the states are unknown.
    const states = () =>
      countStates(runIds, getRun).catch((): Record<string, number> => ({ unknown: RUNS }));

    // 3. Chaos: SIGKILL a random worker at random moments and restart it; restart the database
    // in the middle.
    const started = Date.now();
    const killAt = Array.from({ length: KILLS }, () => 500 + Math.random() * 11_000).sort(
      (a, b) => a - b,
    );
    const restartAt = 5000 + Math.random() * 2000;
    let restarted: Promise<void> | undefined;
    let restartMs = 0;
    let doneAtRestart = 0;
    while (crew.kills < KILLS) {
      const wait = killAt[crew.kills]! - (Date.now() - started);
      if (restarted === undefined && Date.now() - started + Math.max(0, wait) >= restartAt) {
        await pause(Math.max(0, restartAt - (Date.now() - started)));
        const before = Date.now();
        restarted = restartClusterAsync(cluster).then(async () => {
          restartMs = Date.now() - before;
          doneAtRestart = (await states()).done ?? 0;
        });
        continue;
      }
      await pause(Math.max(0, wait));
      await crew.kill(crew.pick((member) => member.role === "work")!);
    }
    await restarted;

    // 4. Let the survivors finish.
    const deadline = Date.now() + 120_000;
    let final = await states();
    while ((final.done ?? 0) < RUNS && Date.now() < deadline) {
      await pause(500);
      final = await states();
    }
    const chaosMs = Date.now() - started;
    await crew.stop();

    // 5. The checks of store-sqlite's durability test.
    const verdict = await judgeDurability({
      runIds,
      logDir,
      getRun,
    });
    const report = {
      runs: RUNS,
      final,
      workerKills: crew.kills,
      killsByWorker: workers.map((member) => member.kills).join(","),
      dbRestartMs: restartMs,
      doneWhenDbBack: doneAtRestart,
      chaosSeconds: Math.round(chaosMs / 100) / 10,
      ...verdict,
    };
    console.log(`postgres durability report: ${JSON.stringify(report)}`);
    await store.close();
    expect(final).toEqual({ done: RUNS });
    expect(verdict.finished).toBe(RUNS);
    expect(verdict.rerunAfterJournal).toBe(0);
    expect(verdict.repeatedAttempt).toBe(0);
    expect(verdict.lostAnswers).toBe(0);
    expect(crew.kills).toBe(KILLS);
    expect(restartMs).toBeGreaterThan(0);
    // The database came back with runs still to do, and the workers did them.
    expect(doneAtRestart).toBeLessThan(RUNS);
    // (An answer recorded while the database went down may have reached it without its reply:
    // it is in the database, not in the log; the lost-answer check reads both.)
    expect(verdict.answersLogged).toBeGreaterThan(RUNS / 2);
  });
});
