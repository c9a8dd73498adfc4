import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunInfo } from "@toolnexus/core";
import { afterAll, describe, expect, it } from "vitest";
import { countStates, judgeDurability } from "./verdict.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-chaos-verdict-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A done run whose journal kept `prepare` attempt `p` and `approve` attempt `a` with `token`. */
function doneRun(runId: string, p: number, a: number, token: string): RunInfo {
  return {
    runId,
    state: "done",
    createdAt: "",
    updatedAt: "",
    failures: 0,
    requests: [
      {
        request: { id: `q-${runId}`, kind: "input", prompt: "Which token?" },
        answer: { id: `q-${runId}`, ok: true, data: { token } },
      },
    ],
    result: {
      messages: [
        { role: "tool", callId: "c_prepare", content: `prepared#${p}` },
        { role: "tool", callId: "c_approve", content: `applied ${token}#${a}` },
      ],
    },
  } as unknown as RunInfo;
}

const exec = (runId: string, callId: string, attempt: number, answered: boolean) =>
  JSON.stringify({ tool: "t", runId, callId, attempt, answered, phase: "start", pid: 1 });

function logs(name: string, lines: string[]): string {
  const logDir = mkdtempSync(join(dir, `${name}-`));
  // A torn last line (a writer killed mid-write) is skipped.
  writeFileSync(join(logDir, "exec-1.log"), `${lines.join("\n")}\n{"tool":"t","ru`);
  return logDir;
}

describe("judgeDurability", () => {
  it("counts nothing against runs whose journaled attempts were the last to run", async () => {
    const logDir = logs("clean", [
      exec("r1", "c_prepare", 1, false),
      exec("r1", "c_prepare", 2, false),
      exec("r1", "c_approve", 1, true),
      JSON.stringify({ answered: "q-r1", runId: "r1", token: "tok" }),
    ]);
    const runs = { r1: doneRun("r1", 2, 1, "tok") };
    const verdict = await judgeDurability({
      runIds: ["r1"],
      logDir,
      getRun: (id) => runs[id as "r1"],
    });
    expect(verdict).toMatchObject({
      finished: 1,
      executions: 3,
      executionsPerJournaledCall: { 1: 1, 2: 1 },
      reExecutions: 1,
      answersLogged: 1,
      answersKept: 1,
      lostAnswers: 0,
      rerunAfterJournal: 0,
      repeatedAttempt: 0,
    });
  });

  it("counts a call run after its journal, an attempt run twice, and an answer the run lost", async () => {
    const logDir = logs("broken", [
      exec("r1", "c_prepare", 1, false),
      // Attempt 1 was journaled, yet attempt 2 ran after it.
      exec("r1", "c_prepare", 2, false),
      exec("r1", "c_approve", 1, true),
      exec("r1", "c_approve", 1, true),
      // An answer recorded that the result does not carry.
      JSON.stringify({ answered: "q-r1", runId: "r1", token: "other" }),
    ]);
    const runs = { r1: doneRun("r1", 1, 1, "tok") };
    const verdict = await judgeDurability({
      runIds: ["r1", "r2"],
      logDir,
      getRun: async (id) => runs[id as "r1"],
    });
    // r2 never ran: both of its calls count as run after the journal, and its answer as lost.
    expect(verdict).toMatchObject({
      finished: 1,
      rerunAfterJournal: 3,
      repeatedAttempt: 1,
      answersKept: 0,
      lostAnswers: 2,
    });
  });
});

describe("countStates", () => {
  it("counts runs by state, absent ones included", async () => {
    const runs = { a: doneRun("a", 1, 1, "t"), b: doneRun("b", 1, 1, "t") };
    expect(await countStates(["a", "b", "c"], (id) => runs[id as "a"])).toEqual({
      done: 2,
      absent: 1,
    });
  });
});
