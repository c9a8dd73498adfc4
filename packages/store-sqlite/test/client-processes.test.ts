import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/store.js";
import { tempDir } from "../src/test-fixtures.js";
import { startFixture } from "./processes.js";

// Every test here runs the real client (@toolnexus/client, built) in child Node processes that
// share nothing but the database file, and counts tool executions in a log file on disk.

interface Summary {
  status?: string;
  text?: string;
  requestId?: string;
  messages?: number;
  error?: { name: string; code: string; message: string };
}

let tmp: ReturnType<typeof tempDir>;
let db: string;
let log: string;
beforeEach(() => {
  tmp = tempDir();
  db = tmp.file("agent.db");
  log = tmp.file("executions.log");
});
afterEach(() => tmp.cleanup());

/** Runs `agent.mjs` in a child process to the end and returns its one result line. */
async function agent(...args: string[]): Promise<Summary> {
  const fixture = startFixture("agent.mjs", [db, log, ...args]);
  const [line, exit] = await Promise.all([fixture.line<Summary>(), fixture.exited]);
  expect(exit, fixture.stderr()).toBe(0);
  return line;
}

/** The tool's executions so far, from the log file: `before` (suspended) and `after` (answered). */
function executions(): { before: string[]; after: string[] } {
  const lines = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  const pick = (phase: string) =>
    lines.filter((l) => l.startsWith(`${phase} `)).map((l) => l.slice(phase.length + 1));
  return { before: pick("before"), after: pick("after") };
}

describe("halt in one process, resume in another", () => {
  it("a fresh process resumes with only the path and the Answer; the tool runs once after it", async () => {
    const halted = await agent("halt", "session-1");
    expect(halted.status).toBe("pending");
    expect(halted.requestId).toMatch(/^pnd_/);
    expect(executions()).toEqual({ before: [expect.any(String)], after: [] });

    // The halting process is gone; the checkpoint waits in the file.
    const store = sqliteStore({ path: db });
    expect(store.list()).toMatchObject([
      {
        request: { id: halted.requestId, kind: "input", prompt: "Which environment?" },
        sessionId: "session-1",
        state: "waiting",
      },
    ]);
    store.close();

    const resumed = await agent("resume", halted.requestId!, "staging");
    expect(resumed.error).toBeUndefined();
    expect(resumed.status).toBe("done");
    expect(resumed.text).toBe("finished: deployed to staging");
    expect(executions().after).toEqual([halted.requestId]);

    // A different answer, from yet another process, is the typed conflict and runs nothing.
    const again = await agent("resume", halted.requestId!, "production");
    expect(again.error).toMatchObject({ name: "AnswerConflictError", code: "answer_conflict" });
    expect(executions().after).toEqual([halted.requestId]);
    // The same answer again is no error: the finished run's result comes back, nothing runs.
    const same = await agent("resume", halted.requestId!, "staging");
    expect(same).toMatchObject({ status: "done", text: "finished: deployed to staging" });
    expect(executions().after).toEqual([halted.requestId]);

    const after = sqliteStore({ path: db });
    expect(after.list().map((s) => s.state)).toEqual(["applied"]);
    after.close();
  }, 60_000);

  it("an unknown request id is SuspensionNotFoundError and runs nothing", async () => {
    await agent("halt", "session-2");
    const result = await agent("resume", "pnd_does_not_exist", "staging");
    expect(result.error).toMatchObject({
      name: "SuspensionNotFoundError",
      code: "suspension_not_found",
    });
    expect(executions().after).toEqual([]);
  }, 60_000);
});

describe("crash safety", () => {
  it("a process killed with SIGKILL right after run returned pending leaves a resumable checkpoint", async () => {
    const fixture = startFixture("agent.mjs", [db, log, "halt-and-hang", "crash"]);
    const halted = await fixture.line<Summary>();
    fixture.child.kill("SIGKILL");
    expect(await fixture.exited).toBe("SIGKILL");
    expect(halted.status).toBe("pending");

    const resumed = await agent("resume", halted.requestId!, "eu-west");
    expect(resumed.error).toBeUndefined();
    expect(resumed.status).toBe("done");
    expect(resumed.text).toBe("finished: deployed to eu-west");
    expect(executions()).toEqual({ before: [expect.any(String)], after: [halted.requestId] });
  }, 60_000);
});

describe("exactly once", () => {
  it("two processes racing to answer the same request differently, 50 times: one answer is kept, the other is a conflict", async () => {
    const rounds = 50;
    const { ids } = (await agent("halt-many", String(rounds))) as unknown as { ids: string[] };
    expect(new Set(ids).size).toBe(rounds);

    // Two long-lived racer processes (starting Node with the client costs about a second on a
    // busy two-core machine, too slow for 100 spawns). Each race uses a fresh connection and
    // client in each process, and both are told to resume the same request at the same moment.
    const racers = ["a", "b"].map(() => startFixture("agent.mjs", [db, log, "racer"]));
    await Promise.all(racers.map((r) => r.line((v) => v.ready === true)));
    const wins = [0, 0];
    for (const [round, id] of ids.entries()) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) racers[i]!.send(`${id} env-${i}-${round}`);
      const outcomes = await Promise.all(
        racers.map((r) => r.line<Summary & { race: string }>((v) => v.race === id)),
      );
      const winners = outcomes.filter((o) => o.status === "done");
      const losers = outcomes.filter((o) => o.error !== undefined);
      expect(winners, `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]!.error).toMatchObject({
        name: "AnswerConflictError",
        code: "answer_conflict",
      });
      expect(executions().after.filter((a) => a === id)).toHaveLength(1);
      wins[outcomes.indexOf(winners[0]!)]!++;
    }
    for (const r of racers) r.send("exit");
    expect(await Promise.all(racers.map((r) => r.exited))).toEqual([0, 0]);
    expect(wins[0]! + wins[1]!).toBe(rounds);

    // Over all rounds: exactly one post-answer execution per request, and every run resumed.
    const { after } = executions();
    expect(after).toHaveLength(rounds);
    expect(new Set(after)).toEqual(new Set(ids));
    const store = sqliteStore({ path: db });
    expect(store.list({ state: "applied" })).toHaveLength(rounds);
    expect(store.list({ state: "waiting" })).toHaveLength(0);
    store.close();
  }, 120_000);
});

describe("ask with a sessionId", () => {
  it("keeps a conversation across processes through the same file", async () => {
    const first = await agent("ask", "chat-1", "my name is Ada");
    expect(first.text).toBe("you said: my name is Ada");

    const second = await agent("ask", "chat-1", "what is my name?");
    expect(second.text).toBe("you said: my name is Ada | what is my name?");

    const other = await agent("ask", "chat-2", "hello");
    expect(other.text).toBe("you said: hello");

    const store = sqliteStore({ path: db });
    expect(store.load("chat-1")?.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    store.close();
  }, 60_000);

  it("an ask that halts is resumed in another process, and the next ask sees the whole exchange", async () => {
    const halted = await agent("ask", "chat-3", "please deploy");
    expect(halted.status).toBe("pending");
    const resumed = await agent("resume", halted.requestId!, "staging");
    expect(resumed.text).toBe("finished: deployed to staging");

    const next = await agent("ask", "chat-3", "thanks");
    expect(next.text).toBe("you said: please deploy | thanks");
    const store = sqliteStore({ path: db });
    expect(store.load("chat-3")?.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    store.close();
    expect(executions().after).toEqual([halted.requestId]);
  }, 60_000);
});
