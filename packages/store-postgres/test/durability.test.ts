// Durability on PostgreSQL under SIGKILL and a database restart: worker processes continue
// 1,000 halted runs while two other processes record the answers; workers are SIGKILLed at
// random moments and restarted, and the database is restarted (pg_ctl restart) in the middle.
// Afterwards every run must be done, no journaled call may have run again, and no recorded
// answer may be lost. This file runs its own cluster: restarting the shared one would cut the
// connections of the other test files.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import {
  type ClusterInfo,
  createDatabase,
  destroyCluster,
  restartClusterAsync,
  startCluster,
} from "./cluster.js";
import { type Fixture, startFixture } from "./processes.js";

const RUNS = 1000;
const WORKERS = 4;
const KILLS = 10;
// Each tool and model turn takes up to this long, so kills land inside every window of a run.
const JITTER_MS = 60;
const dir = mkdtempSync(join(tmpdir(), "toolnexus-pg-durability-"));
let cluster: ClusterInfo;
// Every process this file starts, so a failing test still ends them all.
const children = new Set<Fixture>();
beforeAll(async () => {
  cluster = await startCluster("chaos");
}, 120_000);
afterAll(async () => {
  for (const fixture of children) fixture.child.kill("SIGKILL");
  await Promise.all([...children].map((fixture) => fixture.exited));
  if (cluster !== undefined) destroyCluster(cluster);
  rmSync(dir, { recursive: true, force: true });
});

interface Exec {
  tool: string;
  runId: string;
  callId: string;
  attempt: number;
  answered: boolean;
  phase: "start" | "end";
}
interface AnswerLog {
  answered: string;
  runId: string;
  token: string;
}

function readLogs(logDir: string): { execs: Exec[]; answers: AnswerLog[] } {
  const execs: Exec[] = [];
  const answers: AnswerLog[] = [];
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(join(logDir, file), "utf8").split("\n")) {
      if (line === "") continue;
      // A process killed mid-write may leave a torn last line: it logged nothing usable.
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof value.answered === "string") answers.push(value as unknown as AnswerLog);
      else if (typeof value.tool === "string") execs.push(value as unknown as Exec);
    }
  }
  return { execs, answers };
}

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
    children.add(starter);
    await starter.line((v: { startedAll?: boolean }) => v.startedAll === true);
    await starter.exited;
    const runIds = Array.from({ length: RUNS }, (_, i) => `run-${i}`);

    // 2. Workers and answerers at once; the answerers pace themselves so the work lasts a while.
    interface Slot {
      role: "work" | "answer";
      options: Record<string, unknown>;
      fixture?: Fixture;
      kills: number;
    }
    const slots: Slot[] = [
      ...Array.from(
        { length: WORKERS },
        (): Slot => ({
          role: "work",
          options: { ...common, concurrency: 4 },
          kills: 0,
        }),
      ),
      { role: "answer", options: { paceMs: 20 }, kills: 0 },
      { role: "answer", options: { paceMs: 20 }, kills: 0 },
    ];
    const launch = (slot: Slot) => {
      slot.fixture = startFixture("durable-agent.mjs", [
        slot.role,
        url,
        logDir,
        JSON.stringify(slot.options),
      ]);
      children.add(slot.fixture);
    };
    for (const slot of slots) launch(slot);
    await Promise.all(
      slots.map((slot) => slot.fixture!.line((v: { ready?: boolean }) => v.ready === true)),
    );

    const store = postgresStore({ connectionString: url });
    const states = async () => {
      const counts: Record<string, number> = {};
      try {
        for (const id of runIds) {
          const state = (await store.getRun(id))?.state ?? "absent";
          counts[state] = (counts[state] ?? 0) + 1;
        }
      } catch {
        return { unknown: RUNS };
      }
      return counts;
    };

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
    let kills = 0;
    const workers = slots.filter((slot) => slot.role === "work");
    while (kills < KILLS) {
      const wait = killAt[kills]! - (Date.now() - started);
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
      const victim = workers[Math.floor(Math.random() * workers.length)]!;
      victim.fixture!.child.kill("SIGKILL");
      await victim.fixture!.exited;
      victim.kills++;
      kills++;
      launch(victim);
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
    for (const slot of slots) slot.fixture!.child.kill("SIGKILL");
    await Promise.all(slots.map((slot) => slot.fixture!.exited));

    // 5. The checks of store-sqlite's durability test.
    const { execs, answers } = readLogs(logDir);
    const byCall = new Map<string, Exec[]>();
    for (const exec of execs) {
      if (exec.phase !== "start") continue;
      const key = `${exec.runId}|${exec.callId}|${exec.answered}`;
      const list = byCall.get(key) ?? [];
      list.push(exec);
      byCall.set(key, list);
    }
    const histogram: Record<number, number> = {};
    let lostAnswers = 0;
    let rerunAfterJournal = 0;
    let repeatedAttempt = 0;
    const results = new Map<string, string[]>();
    for (const runId of runIds) {
      const info = await store.getRun(runId);
      const tools = (info?.result?.messages ?? []).flatMap((m) =>
        m.role === "tool" ? [m.content] : [],
      );
      results.set(runId, tools);
      // prepared#<attempt> and applied <token>#<attempt>: the attempt that was journaled.
      const journaled = [
        { key: `${runId}|c_prepare|false`, attempt: Number(tools[0]?.split("#")[1]) },
        { key: `${runId}|c_approve|true`, attempt: Number(tools[1]?.split("#")[1]) },
      ];
      for (const { key, attempt } of journaled) {
        const attempts = (byCall.get(key) ?? []).map((exec) => exec.attempt);
        histogram[attempts.length] = (histogram[attempts.length] ?? 0) + 1;
        if (new Set(attempts).size !== attempts.length) repeatedAttempt++;
        // Nothing ran after the execution whose result was journaled.
        if (attempts.length === 0 || Math.max(...attempts) !== attempt) rerunAfterJournal++;
      }
      const answer = info?.requests.find((r) => r.answer !== undefined)?.answer;
      const token = answer?.ok ? String(answer.data?.token) : undefined;
      if (token === undefined || !tools[1]?.startsWith(`applied ${token}#`)) lostAnswers++;
    }
    for (const logged of answers) {
      const tools = results.get(logged.runId) ?? [];
      if (!tools.some((content) => content.startsWith(`applied ${logged.token}#`))) lostAnswers++;
    }
    const report = {
      runs: RUNS,
      final,
      workerKills: kills,
      killsByWorker: workers.map((slot) => slot.kills).join(","),
      dbRestartMs: restartMs,
      doneWhenDbBack: doneAtRestart,
      chaosSeconds: Math.round(chaosMs / 100) / 10,
      executions: execs.filter((e) => e.phase === "start").length,
      executionsPerJournaledCall: histogram,
      reExecutions: execs.filter((e) => e.phase === "start" && e.attempt > 1).length,
      answersLogged: answers.length,
      lostAnswers,
      rerunAfterJournal,
      repeatedAttempt,
    };
    console.log(`postgres durability report: ${JSON.stringify(report)}`);
    await store.close();
    expect(final).toEqual({ done: RUNS });
    expect(rerunAfterJournal).toBe(0);
    expect(repeatedAttempt).toBe(0);
    expect(lostAnswers).toBe(0);
    expect(kills).toBe(KILLS);
    expect(restartMs).toBeGreaterThan(0);
    // The database came back with runs still to do, and the workers did them.
    expect(doneAtRestart).toBeLessThan(RUNS);
    // (An answer recorded while the database went down may have reached it without its reply:
    // it is in the database, not in the log; the lost-answer check reads both.)
    expect(answers.length).toBeGreaterThan(RUNS / 2);
  });
});
