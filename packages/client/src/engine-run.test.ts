import {
  type Answer,
  type AwaitedRequest,
  type Durability,
  type DurableStep,
  expiredAnswer,
  pending,
  type ToolContext,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "./agent-tool.js";
import { createClient } from "./client.js";
import type { Instrumentation, RunTrace } from "./instrumentation.js";
import { scriptedModel } from "./testing.js";
import type { RunResult } from "./types.js";

/** The engine's handler stopped here: it waits for answers that are not recorded yet. */
class Suspended extends Error {
  constructor(readonly requests: readonly AwaitedRequest[]) {
    super("suspended");
  }
}

/** The process died: an execution of the handler ends without a trace. */
class Crash extends Error {}

/**
 * A replay engine in miniature: step results kept as JSON by key, answers recorded from
 * outside, and a handler that runs again from the top after a suspension or a crash.
 */
function replayEngine() {
  const steps = new Map<string, string>();
  const started = new Map<string, number>();
  const answers = new Map<string, Answer>();
  const log: DurableStep[] = [];
  let crashAfterWork: string | undefined;
  let now = 0;
  const durability: Durability = {
    async step(step, work) {
      log.push(step);
      const recorded = steps.get(step.key);
      if (recorded !== undefined) return JSON.parse(recorded);
      const attempt = (started.get(step.key) ?? 0) + 1;
      started.set(step.key, attempt);
      const result = await work(attempt);
      if (crashAfterWork === step.key) {
        crashAfterWork = undefined;
        throw new Crash(`crashed before ${step.key} was recorded`);
      }
      const json = JSON.stringify(result);
      steps.set(step.key, json);
      return JSON.parse(json);
    },
    async answers(requests) {
      const got: Answer[] = [];
      for (const awaited of requests) {
        const given = answers.get(awaited.request.id);
        if (given !== undefined) got.push(given);
        else if (awaited.deadline !== undefined && Date.parse(awaited.deadline) <= now)
          got.push(expiredAnswer(awaited));
      }
      if (got.length === 0) throw new Suspended(requests);
      return got;
    },
  };
  return {
    steps,
    started,
    answers,
    log,
    durability,
    crashAfter(key: string) {
      crashAfterWork = key;
    },
    /** The engine's clock, for deadlines. */
    advanceTo(ms: number) {
      now = ms;
    },
    /** Runs the handler; a suspension is returned, a crash is run again, as an engine would. */
    async invoke(handler: () => Promise<RunResult>): Promise<RunResult | Suspended> {
      for (;;) {
        try {
          return await handler();
        } catch (thrown) {
          if (thrown instanceof Suspended) return thrown;
          if (thrown instanceof Crash) continue;
          throw thrown;
        }
      }
    },
  };
}

function deployTools(executions: { answered: boolean; ctx: ToolContext }[]) {
  return [
    nativeTool({
      name: "deploy",
      description: "Deploy, asking where",
      input: z.object({ app: z.string() }),
      ctx: true,
      run: ({ app }, ctx: ToolContext) => {
        executions.push({ answered: ctx.answer !== undefined, ctx });
        if (ctx.answer === undefined)
          return pending({ kind: "input", prompt: `Where does ${app} go?` });
        if (!ctx.answer.ok) return { output: `not deployed (${ctx.answer.reason})`, isError: true };
        return `deployed ${app} to ${String(ctx.answer.data?.env)}`;
      },
    }),
  ];
}

describe("a run under durability (a replay engine)", () => {
  it("halts, waits through the engine, and continues on a replay with the answer", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "deploy", arguments: { app: "api" } }] },
      { content: "done" },
    ]);
    const client = createClient({ model, tools: deployTools(executions) });
    const handler = () =>
      client.run("deploy api", { runId: "wf-1", durability: engine.durability });

    const first = await engine.invoke(handler);
    expect(first).toBeInstanceOf(Suspended);
    const [asked] = (first as Suspended).requests;
    expect(asked!.request.prompt).toBe("Where does api go?");

    // Another process answers through the engine; the handler runs again from the top.
    engine.answers.set(asked!.request.id, {
      id: asked!.request.id,
      ok: true,
      data: { env: "prod" },
    });
    const second = await engine.invoke(handler);
    if (second instanceof Suspended) throw new Error("still suspended");
    expect(second.status).toBe("done");
    expect(second.runId).toBe("wf-1");
    const tool = second.messages.find((m) => m.role === "tool");
    expect(tool?.content).toBe("deployed api to prod");
    // The first execution of the call was replayed, not run again; the model was asked twice.
    expect(executions.map((e) => e.answered)).toEqual([false, true]);
    expect(model.calls).toBe(2);
    expect(engine.steps.has("model/1")).toBe(true);
    expect([...engine.steps.keys()].filter((k) => k.startsWith("tool/"))).toHaveLength(2);
    // Like a resume, the result's records are those of the run's last continuation.
    expect(second.toolCalls.map((r) => r.result.output)).toEqual(["deployed api to prod"]);
  });

  it("a replay rebuilds the same transcript: ids come from step results", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    // No ids from the model: the loop makes them, inside the model's step.
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "deploy", arguments: { app: "a" } },
          { name: "deploy", arguments: { app: "b" } },
        ],
      },
      { content: "both" },
    ]);
    const client = createClient({ model, tools: deployTools(executions) });
    const handler = () => client.run("go", { runId: "wf-ids", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    expect(first.requests).toHaveLength(2);
    const ids = first.requests.map((r) => r.request.id);
    // A replay without answers asks the very same requests.
    const again = (await engine.invoke(handler)) as Suspended;
    expect(again.requests.map((r) => r.request.id)).toEqual(ids);
    for (const id of ids) engine.answers.set(id, { id, ok: true, data: { env: "eu" } });
    const done = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    const assistant = done.messages.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.id).toMatch(/^msg_/);
    const callIds = assistant?.role === "assistant" ? assistant.toolCalls!.map((c) => c.id) : [];
    expect(callIds).toHaveLength(2);
    expect(new Set(callIds).size).toBe(2);
    expect(callIds[0]).toMatch(/^call_/);
    // Each call ran once without and once with its answer, whatever was replayed in between.
    expect(executions.filter((e) => !e.answered)).toHaveLength(2);
    expect(executions.filter((e) => e.answered)).toHaveLength(2);
  });

  it("sibling answers: one answer continues its call, the run waits again for the other", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "deploy", arguments: { app: "a" } },
          { id: "c2", name: "deploy", arguments: { app: "b" } },
        ],
      },
      { content: "both deployed" },
    ]);
    const client = createClient({ model, tools: deployTools(executions) });
    const handler = () => client.run("go", { runId: "wf-sib", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    const [a, b] = first.requests.map((r) => r.request.id);
    engine.answers.set(a!, { id: a!, ok: true, data: { env: "us" } });
    const second = await engine.invoke(handler);
    expect(second).toBeInstanceOf(Suspended);
    expect((second as Suspended).requests.map((r) => r.request.id)).toEqual([b]);
    engine.answers.set(b!, { id: b!, ok: true, data: { env: "eu" } });
    const done = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    const outputs = done.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(outputs).toEqual(["deployed a to us", "deployed b to eu"]);
    expect(engine.steps.has(`tool/c1/${a}`)).toBe(true);
    expect(engine.steps.has(`tool/c2/${b}`)).toBe(true);
  });

  it("a call in flight at a crash runs again with attempt 2; a recorded one never does", async () => {
    const engine = replayEngine();
    const attempts: number[] = [];
    const work = nativeTool({
      name: "work",
      description: "Works",
      ctx: true,
      run: (_args, ctx) => {
        attempts.push(ctx.attempt ?? 0);
        return "worked";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ id: "w1", name: "work", arguments: {} }] },
      { toolCalls: [{ id: "w2", name: "work", arguments: {} }] },
      { content: "ok" },
    ]);
    const client = createClient({ model, tools: [work] });
    engine.crashAfter("tool/w2");
    const result = (await engine.invoke(() =>
      client.run("go", { runId: "wf-crash", durability: engine.durability }),
    )) as RunResult;
    expect(result.status).toBe("done");
    // w1 once; w2 twice (its first result was lost with the process), the second as attempt 2.
    expect(attempts).toEqual([1, 1, 2]);
    expect(engine.started.get("tool/w1")).toBe(1);
    expect(model.calls).toBe(3);
    expect(result.toolCalls.map((r) => r.id)).toEqual(["w1", "w2"]);
  });

  it("an expired request gives the tool { ok: false, reason: 'expired' }", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "deploy", arguments: { app: "api" } }] },
      { content: "gave up" },
    ]);
    const client = createClient({ model, tools: deployTools(executions), waitTimeoutMs: 60_000 });
    const handler = () => client.run("go", { runId: "wf-exp", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    expect(first.requests[0]!.deadline).toBeDefined();
    engine.advanceTo(Date.parse(first.requests[0]!.deadline!));
    const done = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    const answered = executions.find((e) => e.answered);
    // The deploy tool does not handle refusals: the loop answers the model for it.
    expect(answered).toBeUndefined();
    expect(done.messages.find((m) => m.role === "tool")?.content).toMatch(/declined\/expired/);
  });

  it("an approval's request id is made inside the call's step, so replays ask the same one", async () => {
    const engine = replayEngine();
    const ran: number[] = [];
    const drop = nativeTool({
      name: "drop",
      description: "Drops a table",
      needsApproval: true,
      run: () => {
        ran.push(1);
        return "dropped";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "drop", arguments: {} }] },
      { content: "done" },
    ]);
    const client = createClient({ model, tools: [drop] });
    const handler = () => client.run("drop", { runId: "wf-appr", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    const second = (await engine.invoke(handler)) as Suspended;
    const id = first.requests[0]!.request.id;
    expect(second.requests[0]!.request.id).toBe(id);
    engine.answers.set(id, { id, ok: true });
    const done = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    expect(ran).toEqual([1]);
  });

  it("a sub-agent's escalated question goes through the engine and continues the child", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    const childModel = scriptedModel([
      { toolCalls: [{ name: "deploy", arguments: { app: "web" } }] },
      { content: "child deployed web" },
    ]);
    const child = createClient({ model: childModel, tools: deployTools(executions), agent: "ops" });
    const model = scriptedModel([
      { toolCalls: [{ name: "ops", arguments: { prompt: "deploy web" } }] },
      { content: "lead done" },
    ]);
    const lead = createClient({
      model,
      tools: [agentTool(child, { name: "ops", description: "Operations" })],
    });
    const handler = () => lead.run("ship", { runId: "wf-sub", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    const request = first.requests[0]!.request;
    expect(request.route).toEqual({ agent: "ops", path: ["ops"] });
    engine.answers.set(request.id, { id: request.id, ok: true, data: { env: "prod" } });
    const done = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    expect(done.messages.find((m) => m.role === "tool")?.content).toBe("child deployed web");
    expect(executions.map((e) => e.answered)).toEqual([false, true]);
  });

  it("traces model and tool calls that ran, not the replayed ones", async () => {
    const engine = replayEngine();
    const spans: string[] = [];
    const trace: RunTrace = {
      model: (_info, call) => {
        spans.push("model");
        return call();
      },
      tool: (info, call) => {
        spans.push(`tool:${info.tool}`);
        return call();
      },
      suspended: () => {},
      waited: () => {},
      carrier: () => undefined,
      end: () => {},
    };
    const instrumentation: Instrumentation = { startRun: () => trace };
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "deploy", arguments: { app: "api" } }] },
      { content: "done" },
    ]);
    const client = createClient({ model, tools: deployTools(executions), instrumentation });
    const handler = () => client.run("go", { runId: "wf-otel", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    const id = first.requests[0]!.request.id;
    engine.answers.set(id, { id, ok: true, data: { env: "prod" } });
    await engine.invoke(handler);
    expect(spans).toEqual(["model", "tool:deploy", "tool:deploy", "model"]);
  });

  it("a compaction's summary is a step: a replay reads the same summary, the summarizer runs once", async () => {
    const engine = replayEngine();
    const executions: { answered: boolean; ctx: ToolContext }[] = [];
    let summaries = 0;
    const note = nativeTool({
      name: "note",
      description: "Writes a note",
      input: z.object({ n: z.number() }),
      run: ({ n }) => `noted ${n}: ${"all checks green. ".repeat(8)}`,
    });
    const model = scriptedModel([
      ...Array.from({ length: 6 }, (_, k) => ({
        toolCalls: [{ id: `n${k}`, name: "note", arguments: { n: k } }],
      })),
      { toolCalls: [{ id: "d1", name: "deploy", arguments: { app: "one" } }] },
      { content: "done" },
    ]);
    const client = createClient({
      model,
      tools: [note, ...deployTools(executions)],
      compaction: { maxTokens: 150, keepTail: 60, summarize: () => `summary ${++summaries}` },
    });
    const handler = () =>
      client.run("note, then deploy one", { runId: "wf-cmp", durability: engine.durability });
    const first = (await engine.invoke(handler)) as Suspended;
    const made = summaries;
    expect(made).toBeGreaterThan(0);
    expect(engine.steps.has("compact/1")).toBe(true);
    const id = first.requests[0]!.request.id;
    engine.answers.set(id, { id, ok: true, data: { env: "prod" } });
    const done = (await engine.invoke(handler)) as RunResult;
    const again = (await engine.invoke(handler)) as RunResult;
    expect(done.status).toBe("done");
    // Replays read the summaries from their steps: the summarizer ran once per compaction.
    expect([...engine.steps.keys()].filter((k) => k.startsWith("compact/"))).toHaveLength(
      summaries,
    );
    expect(again.messages).toEqual(done.messages);
    expect(JSON.stringify(done.messages)).toContain("summary ");
  });

  it("more calls than maxConcurrentTools run in chunks: the next chunk waits for the whole one", async () => {
    const engine = replayEngine();
    const events: string[] = [];
    const step = engine.durability.step.bind(engine.durability);
    engine.durability.step = (s, work) => {
      if (s.kind === "tool") events.push(`ask ${s.key}`);
      return step(s, work);
    };
    // c1 ends only after c2 ended: with lanes, c3 would start in c2's place before c1 ends.
    let c2Ended = () => {};
    const c2 = new Promise<void>((resolve) => {
      c2Ended = resolve;
    });
    const echo = nativeTool({
      name: "echo",
      description: "Echoes",
      input: z.object({ n: z.number() }),
      run: async ({ n }) => {
        if (n === 1) {
          await c2;
          // Past every microtask c2's end sets off (with lanes, c3's start).
          await new Promise((resolve) => setImmediate(resolve));
        }
        events.push(`end c${n}`);
        if (n === 2) c2Ended();
        return `n${n}`;
      },
    });
    const model = scriptedModel([
      { toolCalls: [1, 2, 3, 4, 5].map((n) => ({ id: `c${n}`, name: "echo", arguments: { n } })) },
      { content: "done" },
    ]);
    const client = createClient({ model, tools: [echo], maxConcurrentTools: 2 });
    const done = (await engine.invoke(() =>
      client.run("go", { runId: "wf-chunks", durability: engine.durability }),
    )) as RunResult;
    expect(done.status).toBe("done");
    const at = (event: string) => events.indexOf(event);
    expect(at("ask tool/c2")).toBeLessThan(at("end c2"));
    expect(at("ask tool/c3")).toBeGreaterThan(at("end c1"));
    expect(at("ask tool/c5")).toBeGreaterThan(Math.max(at("end c3"), at("end c4")));
  });

  it("refuses what cannot run under an engine, with a clear error", async () => {
    const engine = replayEngine();
    const client = createClient({ model: scriptedModel([{ content: "hi" }]) });
    await expect(client.run("x", { durability: engine.durability })).rejects.toThrow(/runId/);
    await expect(
      client.run("x", { runId: "r", durability: {} as unknown as Durability }),
    ).rejects.toThrow(/step\(step, work\)/);
    await expect(
      client.run("x", { runId: "r", durable: true, durability: engine.durability }),
    ).rejects.toThrow(/exclude/);
    await expect(client.ask("x", { runId: "r", durability: engine.durability })).rejects.toThrow(
      /run\(\) only/,
    );
  });
});
