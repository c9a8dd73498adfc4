// Sub-agents (agentTool) across real processes, each level's runs in SQLite: lead -> research
// (agent "researcher") -> search (agent "searcher"), whose `lookup` needs approval. A process
// halts the root on the grandchild's approval; fresh processes resume it, or take it over after
// a SIGKILL in the middle of the approved tool. See test/fixtures/subagent-agent.mjs.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message, Request, Usage } from "@toolnexus/core";
import { afterAll, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "../src/index.js";
import { startFixture } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-subagents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = "root-1";
const CHILD = `${ROOT}/r_research`;
const GRANDCHILD = `${CHILD}/c_search`;
const TEXT = "lead: planned + researcher: noted + searcher: found otters";
/** Seven model turns (lead 2, researcher 3, searcher 2) of 15 tokens each. */
const ALL_TOKENS = 7 * 15;

interface Exec {
  tool: string;
  agent: string;
  runId: string;
  callId: string;
  attempt: number;
  answered: boolean;
  sessionId: string;
  pid: number;
  phase: "start" | "end";
}

interface Summary {
  status: string;
  text: string;
  runId: string;
  usage: Usage;
  pending?: Request;
}

/** An event of a sub-agent as the root's stream saw it (printed by the fixture). */
interface Nested {
  event: string;
  agents: string[];
  call?: string;
}

type Layout = "separate files" | "one shared file";

function setup(name: string, layout: Layout) {
  const path = mkdtempSync(join(dir, `${name}-`));
  const shared = layout === "one shared file";
  const common = shared ? { shared: true } : {};
  /** Starts one process of the fixture over this test's files. */
  const run = (role: string, options: Record<string, unknown> = {}) =>
    startFixture("subagent-agent.mjs", [role, path, JSON.stringify({ ...common, ...options })]);
  const open = (file: string) => sqliteStore({ path: join(path, `${file}.db`) });
  const stores: Record<"lead" | "researcher" | "searcher", SqliteStore> = shared
    ? (() => {
        const all = open("all");
        return { lead: all, researcher: all, searcher: all };
      })()
    : { lead: open("lead"), researcher: open("researcher"), searcher: open("searcher") };
  const levels = [
    { store: stores.lead, runId: ROOT, agent: "lead" },
    { store: stores.researcher, runId: CHILD, agent: "researcher" },
    { store: stores.searcher, runId: GRANDCHILD, agent: "searcher" },
  ];
  function execs(phase: Exec["phase"] = "start"): Exec[] {
    let text = "";
    try {
      text = readFileSync(join(path, "exec.log"), "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Exec)
      .filter((e) => e.phase === phase);
  }
  function close() {
    for (const store of new Set(Object.values(stores))) store.close();
  }
  return { path, run, stores, levels, execs, close };
}

async function result(fixture: ReturnType<typeof startFixture>): Promise<Summary> {
  const line = await fixture.line<{ result?: Summary; error?: string; message?: string }>(
    (v) => v.result !== undefined || v.error !== undefined,
  );
  if (line.result === undefined) throw new Error(`${line.error}: ${line.message}`);
  return line.result;
}

/** One tool message per tool call, in call order, and nothing else. */
function balanced(messages: readonly Message[]): boolean {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "tool" ? [m.callId] : []));
  return calls.length > 0 && JSON.stringify(calls) === JSON.stringify(results);
}

/** Process A: starts the root durably; it halts on the grandchild's approval and exits. */
async function halt(env: ReturnType<typeof setup>) {
  const a = env.run("start", { runId: ROOT });
  const halted = await result(a);
  expect(await a.exited).toBe(0);
  // The nested events it printed before its result (already read; the first miss ends the list).
  const nested: Nested[] = [];
  for (;;) {
    try {
      nested.push(await a.line<Nested>((v) => v.event !== undefined));
    } catch {
      break;
    }
  }
  return { halted, nested };
}

function checkHalt(env: ReturnType<typeof setup>, halted: Summary) {
  expect(halted.status).toBe("pending");
  const request = halted.pending!;
  expect(request).toMatchObject({
    kind: "approval",
    prompt: 'Allow lookup to run with {"q":"otters"}?',
    route: { agent: "searcher", path: ["research", "search"] },
  });
  // One request per level, each with an id of its own, all waiting.
  const leaf = request.id.replace(/:search:research$/, "");
  expect(`${leaf}:search:research`).toBe(request.id);
  const ids = [request.id, `${leaf}:search`, leaf];
  env.levels.forEach(({ store, runId }, i) => {
    expect(store.getRun(runId)?.state, runId).toBe("waiting");
    expect(store.getRequest(ids[i]!)).toMatchObject({ runId, state: "waiting" });
  });
  // Only the tools before the approval ran.
  expect(env.execs().map((e) => e.tool)).toEqual(["plan", "notes"]);
  return ids;
}

/** Every level done, transcripts balanced, no request left waiting. */
function checkDone(env: ReturnType<typeof setup>, ids: string[]) {
  const texts = env.levels.map(({ store, runId, agent }, i) => {
    const info = store.getRun(runId)!;
    expect(info.state, runId).toBe("done");
    expect(info.agent).toBe(agent);
    expect(info.sessionId).toBe("s-otters");
    expect(balanced(info.result!.messages), runId).toBe(true);
    expect(store.getRequest(ids[i]!)?.state).toBe("applied");
    expect(store.list({ state: "waiting" })).toEqual([]);
    return info.result!.text;
  });
  expect(texts).toEqual([
    TEXT,
    "researcher: noted + searcher: found otters",
    "searcher: found otters",
  ]);
  // The root's transcript: one turn with both calls, their two results, the answer.
  const root = env.stores.lead.getRun(ROOT)!.result!.messages;
  expect(root.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
}

describe.each<Layout>(["separate files", "one shared file"])(
  "sub-agents across processes (%s)",
  (layout) => {
    it("A halts at the grandchild's approval; a fresh B resumes the root: every level completes, each tool once", {
      timeout: 30_000,
    }, async () => {
      const env = setup(layout === "separate files" ? "resume" : "resume-shared", layout);
      const { halted, nested } = await halt(env);
      const ids = checkHalt(env, halted);
      // The children's events reached the root's stream, marked with the agents they came through.
      expect(nested).toContainEqual({
        event: "tool_call",
        agents: ["researcher"],
        call: "c_notes",
      });
      expect(nested).toContainEqual({
        event: "pending",
        agents: ["researcher", "searcher"],
        call: "g_lookup",
      });

      const b = env.run("resume", { answer: { id: halted.pending!.id, ok: true } });
      const done = await result(b);
      expect(await b.exited).toBe(0);
      expect(done).toMatchObject({ status: "done", text: TEXT, runId: ROOT });
      // Every level's model turns count toward the root's usage.
      expect(done.usage.totalTokens).toBe(ALL_TOKENS);
      checkDone(env, ids);

      const ran = env.execs();
      expect(ran.map((e) => [e.tool, e.agent, e.runId, e.callId, e.attempt, e.answered])).toEqual([
        ["plan", "lead", ROOT, "r_plan", 1, false],
        ["notes", "researcher", CHILD, "c_notes", 1, false],
        ["lookup", "searcher", GRANDCHILD, "g_lookup", 1, true],
      ]);
      expect(new Set(ran.map((e) => e.sessionId))).toEqual(new Set(["s-otters"]));
      // A ran the first two, B only the approved one.
      expect(ran[2]!.pid).not.toBe(ran[0]!.pid);

      // The same answer again, from yet another process: the stored result, nothing runs.
      const again = env.run("resume", { answer: { id: halted.pending!.id, ok: true } });
      expect(await result(again)).toMatchObject({ status: "done", text: TEXT });
      expect(await again.exited).toBe(0);
      expect(env.execs()).toHaveLength(3);
      env.close();
    });
  },
);

/** Carries a value from the test that measured it to the known-defect test below it. */
let usageAfterLateTakeover: number | undefined;

describe("a process killed in the middle of a sub-agent's work", () => {
  it.each<[Layout, "continue" | "work"]>([
    ["separate files", "continue"],
    ["separate files", "work"],
    ["one shared file", "continue"],
  ])(
    "%s, SIGKILL during the grandchild's approved tool; C takes over with %s on the root",
    {
      timeout: 30_000,
    },
    async (layout, how) => {
      const env = setup(`kill-${how}-${layout === "separate files" ? "files" : "shared"}`, layout);
      const { halted } = await halt(env);
      const ids = checkHalt(env, halted);

      // B resumes the root; the approved lookup takes 1.5 s, and B dies as soon as it starts.
      const b = env.run("resume", { answer: { id: halted.pending!.id, ok: true }, slowMs: 1500 });
      await b.line(
        (v: { tool?: string; phase?: string }) => v.tool === "lookup" && v.phase === "start",
      );
      b.child.kill("SIGKILL");
      expect(await b.exited).toBe("SIGKILL");
      // Every level is held by the dead process until its lease runs out.
      for (const { store, runId } of env.levels) {
        expect(store.getRun(runId)?.state, runId).toBe("running");
      }
      expect(env.execs("end").map((e) => e.tool)).toEqual(["plan", "notes"]);

      // C: one call on the root (continueRun by id, or a worker of the root's client alone) takes
      // every level over; the sub-agents need no worker of their own.
      const c = env.run(how, { runId: ROOT });
      const done = await result(c);
      expect(await c.exited).toBe(0);
      expect(done).toMatchObject({ status: "done", text: TEXT, runId: ROOT });
      expect(done.usage.totalTokens).toBe(ALL_TOKENS);
      checkDone(env, ids);

      const ran = env.execs();
      const lookups = ran.filter((e) => e.tool === "lookup");
      // The killed call ran again, once, with the same identity and the next attempt.
      expect(lookups.map((e) => [e.runId, e.callId, e.attempt, e.answered])).toEqual([
        [GRANDCHILD, "g_lookup", 1, true],
        [GRANDCHILD, "g_lookup", 2, true],
      ]);
      expect(lookups[0]!.pid).not.toBe(lookups[1]!.pid);
      // Nothing else ran twice.
      expect(ran.filter((e) => e.tool !== "lookup").map((e) => [e.tool, e.attempt])).toEqual([
        ["plan", 1],
        ["notes", 1],
      ]);
      expect(env.execs("end").map((e) => e.tool)).toEqual(["plan", "notes", "lookup"]);
      env.close();
    },
  );

  it("SIGKILL during the root's last model turn, after the sub-agent's result was journaled: C runs no tool again", {
    timeout: 30_000,
  }, async () => {
    const env = setup("kill-late", "separate files");
    const { halted } = await halt(env);
    const ids = checkHalt(env, halted);
    const b = env.run("resume", {
      answer: { id: halted.pending!.id, ok: true },
      slowReportMs: { lead: 1500 },
    });
    await b.line((v: { model?: string }) => v.model === "lead");
    b.child.kill("SIGKILL");
    expect(await b.exited).toBe("SIGKILL");
    // The sub-agents finished in B; only the root was still running.
    expect(env.levels.map(({ store, runId }) => store.getRun(runId)?.state)).toEqual([
      "running",
      "done",
      "done",
    ]);

    const c = env.run("continue", { runId: ROOT });
    const done = await result(c);
    expect(await c.exited).toBe(0);
    expect(done).toMatchObject({ status: "done", text: TEXT });
    checkDone(env, ids);
    expect(env.execs().map((e) => [e.tool, e.attempt])).toEqual([
      ["plan", 1],
      ["notes", 1],
      ["lookup", 1],
    ]);
    usageAfterLateTakeover = done.usage.totalTokens;
    env.close();
  });

  // A takeover after the sub-agent's call was journaled replays its result with its usage.
  it("that takeover keeps the sub-agents' usage in the root's total", () => {
    expect(usageAfterLateTakeover).toBe(ALL_TOKENS);
  });
});
