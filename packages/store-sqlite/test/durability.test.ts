// Durability under SIGKILL: many processes start, answer and work durable runs on one SQLite
// file while a killer SIGKILLs them at random and restarts them. Afterwards every run must be
// done, no journaled call may have run again, and no recorded answer may be lost.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";
import { type Exec, readLogs } from "./exec-log.js";
import { type Fixture, startFixture } from "./processes.js";

const RUNS = 200;
const STARTERS = 4;
// Each model call and tool takes up to this long, so a run spends its time inside the windows
// the killer aims at (a tool mid-flight, a model call, a halt, a save).
const JITTER_MS = 120;
const dir = mkdtempSync(join(tmpdir(), "toolnexus-durability-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

    // Each role is a slot the killer may empty and refill.
    interface Slot {
      role: "start" | "answer" | "work";
      options: Record<string, unknown>;
      fixture?: Fixture;
      finished?: boolean;
      kills: number;
    }
    const slots: Slot[] = [
      ...Array.from(
        { length: STARTERS },
        (_, s): Slot => ({
          role: "start",
          options: { count: perStarter, prefix: `run-${s}`, jitterMs: JITTER_MS },
          kills: 0,
        }),
      ),
      { role: "answer", options: {}, kills: 0 },
      { role: "answer", options: {}, kills: 0 },
      { role: "work", options: { concurrency: 4, jitterMs: JITTER_MS }, kills: 0 },
      { role: "work", options: { concurrency: 4, jitterMs: JITTER_MS }, kills: 0 },
      { role: "work", options: { concurrency: 4, jitterMs: JITTER_MS }, kills: 0 },
    ];
    const launch = (slot: Slot) => {
      const fixture = startFixture("durable-agent.mjs", [
        slot.role,
        db,
        logDir,
        JSON.stringify(slot.options),
      ]);
      slot.fixture = fixture;
      if (slot.role === "start") {
        void fixture
          .line((v: { startedAll?: boolean }) => v.startedAll === true)
          .then(
            () => {
              slot.finished = true;
            },
            () => {},
          );
      }
    };
    // The first process creates the file; the others open it.
    const first = slots[0]!;
    launch(first);
    await first.fixture!.line((v: { ready?: boolean }) => v.ready === true);
    for (const slot of slots.slice(1)) launch(slot);

    const store = sqliteStore({ path: db, busyTimeoutMs: 30_000 });
    const states = () => {
      const counts: Record<string, number> = {};
      for (const id of runIds) {
        const state = store.getRun(id)?.state ?? "absent";
        counts[state] = (counts[state] ?? 0) + 1;
      }
      return counts;
    };

    let kills = 0;
    const started = Date.now();
    // Kill for a while, then let the survivors finish.
    while (Date.now() - started < 25_000) {
      await pause(50 + Math.random() * 150);
      const alive = slots.filter((slot) => !slot.finished);
      const victim = alive[Math.floor(Math.random() * alive.length)]!;
      victim.fixture!.child.kill("SIGKILL");
      await victim.fixture!.exited;
      victim.kills++;
      kills++;
      launch(victim);
      if ((states().done ?? 0) === RUNS) break;
    }
    const deadline = Date.now() + 150_000;
    while ((states().done ?? 0) < RUNS && Date.now() < deadline) await pause(250);
    const final = states();
    for (const slot of slots) slot.fixture!.child.kill("SIGKILL");
    await Promise.all(slots.map((slot) => slot.fixture!.exited));

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
    for (const runId of runIds) {
      const info = store.getRun(runId);
      const tools = (info?.result?.messages ?? []).flatMap((m) =>
        m.role === "tool" ? [m.content] : [],
      );
      // prepared#<attempt> and applied <token>#<attempt>: the attempt that was journaled.
      const journaled = [
        { key: `${runId}|c_prepare|false`, attempt: Number(tools[0]?.split("#")[1]) },
        { key: `${runId}|c_approve|true`, attempt: Number(tools[1]?.split("#")[1]) },
      ];
      for (const { key, attempt } of journaled) {
        const runsOfCall = byCall.get(key) ?? [];
        const attempts = runsOfCall.map((exec) => exec.attempt);
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
      const tools =
        store.getRun(logged.runId)?.result?.messages.filter((m) => m.role === "tool") ?? [];
      if (!tools.some((m) => m.content.startsWith(`applied ${logged.token}#`))) lostAnswers++;
    }
    const report = {
      runs: RUNS,
      final,
      kills,
      killsByRole: slots.map((slot) => `${slot.role}:${slot.kills}`).join(" "),
      executions: execs.filter((e) => e.phase === "start").length,
      executionsPerJournaledCall: histogram,
      reExecutions: execs.filter((e) => e.phase === "start" && e.attempt > 1).length,
      answersLogged: answers.length,
      lostAnswers,
      rerunAfterJournal,
      repeatedAttempt,
    };
    console.log(`durability report: ${JSON.stringify(report)}`);
    store.close();
    expect(final).toEqual({ done: RUNS });
    expect(rerunAfterJournal).toBe(0);
    expect(repeatedAttempt).toBe(0);
    expect(lostAnswers).toBe(0);
    expect(kills).toBeGreaterThan(40);
  });
});
