// Reminders and an escalation across real worker processes on one SQLite file: a worker fires
// the ones due by its clock and is SIGKILLed; two fresh workers at once fire the rest. Each
// fires exactly once, counted in a file every worker's hook appends to.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stopWorkers } from "@toolnexus/chaos-kit";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type Tool } from "@toolnexus/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";
import { tempDir } from "../src/test-fixtures.js";
import { type Fixture, startFixture } from "./processes.js";

const HOUR = 3_600_000;
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());
afterAll(() => stopWorkers());

const approve: Tool = {
  name: "approve",
  description: "Asks a person to approve",
  inputSchema: { type: "object" },
  source: "custom",
  waitRules: {
    remindAfterMs: [HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR],
    escalate: { afterMs: 5 * HOUR, to: "leads" },
  },
  async execute(_args, ctx) {
    if (ctx?.answer === undefined) return pending({ kind: "approval", prompt: "May I?" });
    return { output: "approved", isError: false };
  },
};

/** Resolves once the worker looked for due timers, took none, and the log had `lines` lines. */
function settled(worker: Fixture, lines: number) {
  return worker.line(
    (v: { claimDue?: number; seen?: number }) => v.claimDue === 0 && v.seen === lines,
  );
}

describe("reminders across worker processes", () => {
  it("a worker SIGKILLed after firing, then two at once: each reminder and the escalation fire exactly once", {
    timeout: 120_000,
  }, async () => {
    const db = tmp.file();
    const log = join(tmp.dir, "fired.log");
    const store = sqliteStore({ path: db });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "approve", arguments: {} }] },
        { content: "done" },
      ]),
      tools: [approve],
      runs: store,
    });
    const asked = Date.now();
    const halted = await client.run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");

    // The first worker's clock is past two reminders: it fires them, then is killed.
    const first = startFixture("due-worker.mjs", [db, log, String(asked + 2 * HOUR + HOUR / 2)]);
    await settled(first, 2);
    expect(await first.kill("SIGKILL")).toBe("SIGKILL");

    // Two fresh workers at once, past every timer: the rest fires once between them.
    const pair = [0, 1].map(() =>
      startFixture("due-worker.mjs", [db, log, String(asked + 10 * HOUR)]),
    );
    await Promise.all(pair.map((worker) => settled(worker, 5)));
    for (const worker of pair) worker.child.stdin?.end();
    expect(await Promise.all(pair.map((worker) => worker.exited))).toEqual([0, 0]);

    const fired = readFileSync(log, "utf8").split("\n").filter(Boolean);
    const keys = fired.map((line) => line.split(":").slice(0, 3).join(":"));
    const id = halted.pending.id;
    expect(keys.sort()).toEqual([
      `${id}#0:reminder:`,
      `${id}#1:reminder:`,
      `${id}#2:reminder:`,
      `${id}#3:reminder:`,
      `${id}#4:escalation:leads`,
    ]);
    // The first two by the killed worker, the rest by the pair.
    const firstPid = String(first.child.pid);
    expect(fired.filter((line) => line.endsWith(`:${firstPid}`))).toHaveLength(2);
    expect(store.getRequest(id)?.request.data?.to).toBe("leads");
    store.close();
  });
});
