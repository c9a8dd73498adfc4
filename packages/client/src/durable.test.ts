import {
  AnswerConflictError,
  CheckpointError,
  InvalidIdError,
  type Lease,
  type Message,
  pending,
  type RunStore,
  SuspensionNotFoundError,
  type ToolContext,
  WireFormatError,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

/** Counts executions per tool, and which ones carried an answer. */
function counter() {
  const runs: { tool: string; answered: boolean; ctx: ToolContext }[] = [];
  return {
    runs,
    count: (tool: string, answered?: boolean) =>
      runs.filter((r) => r.tool === tool && (answered === undefined || r.answered === answered))
        .length,
  };
}

function tools(c: ReturnType<typeof counter>) {
  const deploy = nativeTool({
    name: "deploy",
    description: "Deploy, asking which environment",
    input: z.object({ app: z.string() }),
    ctx: true,
    run: ({ app }, ctx: ToolContext) => {
      c.runs.push({ tool: "deploy", answered: ctx.answer !== undefined, ctx });
      if (ctx.answer === undefined)
        return pending({ kind: "input", prompt: `Where should ${app} go?` });
      if (!ctx.answer.ok) return { output: "not deployed", isError: true };
      return `deployed ${app} to ${String(ctx.answer.data?.env)}`;
    },
  });
  const login = nativeTool({
    name: "login",
    description: "Needs authorization",
    ctx: true,
    run: (_args, ctx) => {
      c.runs.push({ tool: "login", answered: ctx.answer !== undefined, ctx });
      return ctx.answer
        ? "logged in"
        : pending({ kind: "authorization", prompt: "Log in", url: "https://auth.test" });
    },
  });
  const status = nativeTool({
    name: "status",
    description: "Reports status",
    ctx: true,
    run: (_args, ctx) => {
      c.runs.push({ tool: "status", answered: false, ctx });
      return "all green";
    },
  });
  return [deploy, login, status];
}

const turns = () => [
  {
    id: "msg_1",
    toolCalls: [
      { id: "c_status", name: "status" },
      { id: "c_deploy", name: "deploy", arguments: { app: "web" } },
      { id: "c_login", name: "login" },
    ],
  },
  { content: "web is live" },
];
const script = () => scriptedModel(turns());
/** The model as a second process sees it: the first turn was played by the first one. */
const laterScript = () => scriptedModel(turns().slice(1));

function toolTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
}

describe("durable halt, answers and resume", () => {
  it("halts with a balanced transcript whose placeholders are the prompts, then another client resumes", async () => {
    const c = counter();
    const store = memoryRunStore();
    const clientA = createClient({ model: script(), tools: tools(c), runs: store, agent: "ops" });
    const halted = await clientA.run("ship web", { sessionId: "s-1" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.text).toBe("Where should web go?");
    expect(halted.pendings.map((r) => r.kind)).toEqual(["input", "authorization"]);
    // The placeholder is the prompt, never the url.
    expect(toolTexts(halted.messages)).toEqual(["all green", "Where should web go?", "Log in"]);
    expect(store.list().map((s) => [s.request.kind, s.state, s.sessionId, s.agent])).toEqual([
      ["input", "waiting", "s-1", "ops"],
      ["authorization", "waiting", "s-1", "ops"],
    ]);
    expect(store.getRun(halted.runId)?.state).toBe("waiting");

    // Another "process": a fresh client over the same store.
    const model = laterScript();
    const clientB = createClient({ model, tools: tools(c), runs: store, agent: "ops" });
    const first = await clientB.resume({
      id: halted.pending.id,
      ok: true,
      data: { env: "staging" },
    });
    if (first.status !== "pending") throw new Error("expected the run to wait for login");
    expect(first.pendings).toEqual([halted.pendings[1]]);
    expect(toolTexts(first.messages)).toEqual(["all green", "deployed web to staging", "Log in"]);

    const done = await clientB.resume({ id: first.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(done.text).toBe("web is live");
    expect(c.count("status")).toBe(1);
    expect(c.count("deploy", true)).toBe(1);
    expect(c.count("login", true)).toBe(1);
    // The re-executions know their run and that they are first attempts.
    const resumed = c.runs.filter((r) => r.answered).map((r) => [r.ctx.runId, r.ctx.attempt]);
    expect(resumed).toEqual([
      [halted.runId, 1],
      [halted.runId, 1],
    ]);
    const seen = model.requests[0]!.messages;
    expect(toolTexts(seen)).toEqual(["all green", "deployed web to staging", "logged in"]);
    // The finished run's result is kept and readable by id.
    const info = await clientB.getRun(halted.runId);
    expect(info?.state).toBe("done");
    expect(info?.result?.text).toBe("web is live");
    expect(store.list().map((s) => s.state)).toEqual(["applied", "applied"]);
  });

  it("records answers apart from continuing: sibling answers from two hosts are both applied", async () => {
    const c = counter();
    const store = memoryRunStore();
    const worker = createClient({ model: script(), tools: tools(c), runs: store });
    const halted = await worker.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const [r1, r2] = halted.pendings;
    // A web handler records both answers (no loop runs), in either order.
    const web = createClient({ model: laterScript(), tools: [], runs: store });
    const receipt = await web.answer({ id: r2!.id, ok: true });
    expect(receipt).toMatchObject({ runId: halted.runId, duplicate: false, state: "ready" });
    expect(await web.answer({ id: r2!.id, ok: true })).toMatchObject({ duplicate: true });
    await web.answer({ id: r1!.id, ok: true, data: { env: "prod" } });
    expect(c.count("login", true)).toBe(0);

    const model = laterScript();
    const runner = createClient({ model, tools: tools(c), runs: store });
    const done = await runner.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(toolTexts(done.messages)).toEqual(["all green", "deployed web to prod", "logged in"]);
    expect(model.calls).toBe(1);
  });

  it("applies a sibling answer recorded while the run is busy with the other one", async () => {
    const c = counter();
    const store = memoryRunStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const running = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slow = tools(c).map((tool) =>
      tool.name !== "deploy"
        ? tool
        : {
            ...tool,
            execute: async (args: Record<string, unknown>, ctx?: ToolContext) => {
              if (ctx?.answer !== undefined) {
                entered();
                await gate;
              }
              return tool.execute(args, ctx);
            },
          },
    );
    const client = createClient({ model: script(), tools: slow, runs: store });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const [r1, r2] = halted.pendings;
    const other = createClient({ model: laterScript(), tools: slow, runs: store });
    const resuming = other.resume({ id: r1!.id, ok: true, data: { env: "eu" } });
    // The resumed tool is running (the run is leased) when the sibling answer arrives.
    await running;
    // Answered while the run is running: recorded, never refused.
    const receipt = await client.answer({ id: r2!.id, ok: true });
    expect(receipt.state).toBe("running");
    release();
    const done = await resuming;
    expect(done.status).toBe("done");
    expect(toolTexts(done.messages)).toEqual(["all green", "deployed web to eu", "logged in"]);
  });

  it("a different answer to an answered request is a conflict; unknown ids and bad input are typed", async () => {
    const c = counter();
    const client = createClient({ model: script(), tools: tools(c) });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const id = halted.pending.id;
    await expect(client.resume({ id, ok: "yes" } as never)).rejects.toBeInstanceOf(WireFormatError);
    await expect(client.resume(new Array(3) as never)).rejects.toBeInstanceOf(WireFormatError);
    await expect(client.resume([])).rejects.toBeInstanceOf(WireFormatError);
    await expect(client.answer(null as never)).rejects.toBeInstanceOf(WireFormatError);
    const unknown = await client.resume({ id: "pnd_nope", ok: true }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(SuspensionNotFoundError);
    const huge = await client
      .answer({ id: "x".repeat(2_000_000), ok: true })
      .catch((e: unknown) => e);
    // Longer than any store keeps (MAX_STORE_ID_CHARS): refused before anything is looked up.
    expect(huge).toBeInstanceOf(InvalidIdError);
    // Bounded, whatever the id: the raw id is never echoed.
    expect((huge as Error).message.length).toBeLessThan(500);
    expect(c.runs).toHaveLength(3);

    const next = await client.resume({ id, ok: true, data: { env: "qa" } });
    expect(next.status).toBe("pending");
    // The same answer again is accepted once: the run is where it was.
    const same = await client.resume({ id, ok: true, data: { env: "qa" } });
    expect(same.status).toBe("pending");
    const conflict = await client
      .answer({ id, ok: true, data: { env: "prod" } })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(AnswerConflictError);
    expect((conflict as AnswerConflictError).reason).toBe("answered");
    expect(c.count("deploy", true)).toBe(1);
  });

  it("answers that belong to different runs are refused before anything is recorded", async () => {
    const c = counter();
    const client = createClient({ model: script(), tools: tools(c) });
    const a = await client.run("a");
    const client2 = createClient({ model: script(), tools: tools(c), runs: client.runs });
    const b = await client2.run("b");
    if (a.status !== "pending" || b.status !== "pending") throw new Error("expected halts");
    await expect(
      client.resume([
        { id: a.pending.id, ok: true },
        { id: b.pending.id, ok: true },
      ]),
    ).rejects.toMatchObject({ code: "answers_mismatch" });
    expect((await client.getRun(a.runId))?.state).toBe("waiting");
  });

  it("a worker without the tool changes nothing; the run stays answerable and continues elsewhere", async () => {
    const c = counter();
    const store = memoryRunStore();
    const client = createClient({ model: script(), tools: tools(c), runs: store });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const withoutDeploy = createClient({
      model: laterScript(),
      tools: tools(c).slice(1),
      runs: store,
    });
    const gone = await withoutDeploy
      .resume({ id: halted.pending.id, ok: true, data: { env: "x" } })
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(CheckpointError);
    expect((gone as Error).message).toContain('tool "deploy" is not registered with this client');
    expect(c.count("deploy", true)).toBe(0);
    const info = await client.getRun(halted.runId);
    // Refused before its lease was taken: only the answer changed the run (ready).
    expect(info?.state).toBe("ready");
    expect(info?.lastError).toBeUndefined();
    expect(info?.requests.find((r) => r.request.id === halted.pending.id)?.state).toBe("answered");
    // The answer was kept: a correctly configured client continues the run.
    const next = await createClient({
      model: laterScript(),
      tools: tools(c),
      runs: store,
    }).continueRun(halted.runId);
    expect(next.status).toBe("pending");
    expect(toolTexts(next.messages)[1]).toBe("deployed web to x");
    // The refused continuation ran nothing: this is the call's first execution with an answer.
    expect(
      c.runs.filter((r) => r.tool === "deploy").map((r) => [r.answered, r.ctx.attempt]),
    ).toEqual([
      [false, 1],
      [true, 1],
    ]);
  });

  it("an expired request continues as declined; a late answer is refused as expired", async () => {
    const runs: ToolContext[] = [];
    const asks = nativeTool({
      name: "asks",
      description: "d",
      ctx: true,
      run: (_a, ctx) => {
        runs.push(ctx);
        return ctx.answer
          ? "answered"
          : pending({ kind: "question", prompt: "Soon?", expiresAt: Date.now() + 20 });
      },
    });
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "c1", name: "asks" }] }, { content: "ok" }]),
      tools: [asks],
    });
    const halted = await client.run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect((await client.runs.list())[0]!.state).toBe("expired");
    expect((await client.getRun(halted.runId))?.state).toBe("expired");
    const late = await client.answer({ id: halted.pending.id, ok: true }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(AnswerConflictError);
    expect((late as AnswerConflictError).reason).toBe("expired");
    // resume continues the run anyway: the expiry is its answer.
    const done = await client.resume({ id: halted.pending.id, ok: true });
    expect(runs).toHaveLength(1);
    expect(done.messages.find((m) => m.role === "tool")?.content).toBe("declined/expired: Soon?");
  });

  it("needsApproval halts before the tool runs and runs it on resume with ctx.answer", async () => {
    const runs: ToolContext[] = [];
    const rollback = nativeTool({
      name: "rollback",
      description: "Roll back a release",
      input: z.object({ release: z.string() }),
      needsApproval: true,
      ctx: true,
      run: ({ release }, ctx) => {
        runs.push(ctx);
        return `rolled back ${release}`;
      },
    });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "rollback", arguments: { release: "v2" } }] },
        { content: "rolled back" },
      ]),
      tools: [rollback],
    });
    const halted = await client.run("undo v2");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pending).toMatchObject({
      kind: "approval",
      prompt: 'Allow rollback to run with {"release":"v2"}?',
    });
    expect(runs).toHaveLength(0);
    const done = await client.resume({ id: halted.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.answer).toEqual({ id: halted.pending.id, ok: true });
  });

  it("re-executes exactly the checkpointed arguments: a beforeTool rewrite is applied once", async () => {
    const seen: unknown[] = [];
    const deploy = nativeTool({
      name: "deploy",
      description: "d",
      input: z.object({ app: z.string() }),
      ctx: true,
      run: ({ app }, ctx) => {
        seen.push(app);
        return ctx.answer ? `deployed ${app}` : pending({ kind: "approval", prompt: "ok?" });
      },
    });
    const hooks = {
      beforeTool: ({ args }: { args: Record<string, unknown> }) => ({
        args: { ...args, app: `${String(args.app)}-canary` },
      }),
    };
    const model = () =>
      scriptedModel([
        { toolCalls: [{ id: "c1", name: "deploy", arguments: { app: "web" } }] },
        { content: "done" },
      ]);
    const durable = createClient({ model: model(), tools: [deploy], hooks });
    const halted = await durable.run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");
    await durable.resume({ id: halted.pending.id, ok: true });
    const waiting = createClient({
      model: model(),
      tools: [deploy],
      hooks,
      waitFor: (r) => ({ id: r.id, ok: true }),
    });
    await waiting.run("go");
    expect(seen).toEqual(["web-canary", "web-canary", "web-canary", "web-canary"]);
  });
});

describe("durable from the first turn", () => {
  it("journals every step and stores the result; tools see runId and attempt 1", async () => {
    const c = counter();
    const store = memoryRunStore();
    const writes: string[] = [];
    const spy: RunStore = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (
          typeof value !== "function" ||
          !["start", "step", "journal", "finish", "halt"].includes(String(key))
        )
          return value;
        return (...args: unknown[]) => {
          writes.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const status = tools(c)[2]!;
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "a", name: "status" },
            { id: "b", name: "status" },
          ],
        },
        { content: "all good" },
      ]),
      tools: [status],
      runs: spy,
    });
    const done = await client.run("check", { durable: true });
    expect(done.status).toBe("done");
    expect(writes).toEqual(["start", "step", "journal", "journal", "finish"]);
    expect(c.runs.map((r) => [r.ctx.runId, r.ctx.attempt])).toEqual([
      [done.runId, 1],
      [done.runId, 1],
    ]);
    expect((await client.getRun(done.runId))?.result?.text).toBe("all good");
  });

  it("a model error gives the run back ready; a retry finishes it without running journaled tools again", async () => {
    const c = counter();
    const store = memoryRunStore();
    let fail = true;
    const base = script();
    const flaky = {
      id: "flaky",
      generate: (
        request: Parameters<typeof base.generate>[0],
        options?: Parameters<typeof base.generate>[1],
      ) => {
        if (base.calls === 1 && fail) {
          fail = false;
          return Promise.reject(new Error("503 overloaded"));
        }
        return base.generate(request, options);
      },
    };
    const client = createClient({ model: flaky, tools: tools(c), runs: store });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const answers = [
      { id: halted.pendings[0]!.id, ok: true, data: { env: "prod" } },
      { id: halted.pendings[1]!.id, ok: true },
    ];
    const failed = await client.resume(answers).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "model_failed" });
    const info = await client.getRun(halted.runId);
    expect(info?.state).toBe("ready");
    expect(info?.lastError?.message).toContain("503 overloaded");
    // The queue consumer's retry: the same answers again are duplicates, the run continues.
    const done = await client.resume(answers);
    expect(done.status).toBe("done");
    expect(c.count("deploy", true)).toBe(1);
    expect(c.count("login", true)).toBe(1);
  });

  it("a worker whose lease was taken over cannot write; the new owner runs the in-flight call with attempt 2", async () => {
    const store = memoryRunStore();
    // The first worker "dies": its renewals never reach the store, so its lease runs out.
    const deaf: RunStore = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "renew") return (lease: Lease) => lease;
        return Reflect.get(target, key, receiver);
      },
    });
    const calls: ToolContext[] = [];
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const charge = nativeTool({
      name: "charge",
      description: "charges a card once per runId+callId",
      ctx: true,
      run: async (_a, ctx) => {
        calls.push(ctx);
        if (ctx.attempt === 1) await blocked;
        return `charged (attempt ${ctx.attempt})`;
      },
    });
    const turnsOf = () => [{ toolCalls: [{ id: "c1", name: "charge" }] }, { content: "paid" }];
    const first = createClient({
      model: scriptedModel(turnsOf()),
      tools: [charge],
      runs: deaf,
      leaseMs: 60,
    });
    const running = first.run("pay", { durable: true }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = createClient({
      model: scriptedModel(turnsOf().slice(1)),
      tools: [charge],
      runs: store,
      leaseMs: 5000,
    });
    const summary = { results: [] as string[] };
    const controller = new AbortController();
    const working = second.work({
      signal: controller.signal,
      pollMs: 20,
      onResult: (result) => {
        summary.results.push(result.status);
        controller.abort();
      },
    });
    const stats = await working;
    expect(summary.results).toEqual(["done"]);
    expect(stats).toMatchObject({ claimed: 1, finished: 1 });
    unblock();
    const lost = await running;
    expect(lost).toMatchObject({ code: "lease_lost" });
    expect(calls.map((ctx) => [ctx.callId, ctx.attempt])).toEqual([
      ["c1", 1],
      ["c1", 2],
    ]);
    expect(calls[0]!.runId).toBe(calls[1]!.runId);
    const info = await second.getRun(calls[0]!.runId!);
    expect(info?.state).toBe("done");
    expect(info?.result?.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "charged (attempt 2)",
    ]);
  });

  it("a cancelled durable run is given back ready, and a worker finishes it", async () => {
    const store = memoryRunStore();
    const controller = new AbortController();
    let toolStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const slowTool = nativeTool({
      name: "slow",
      description: "waits for its signal",
      ctx: true,
      run: (_a, ctx) =>
        new Promise<string>((resolve) => {
          if (ctx.attempt! > 1) resolve("quick the second time");
          ctx.signal?.addEventListener("abort", () => resolve("stopped"));
          toolStarted();
        }),
    });
    const turnsOf = () => [{ toolCalls: [{ id: "c1", name: "slow" }] }, { content: "finished" }];
    const client = createClient({
      model: scriptedModel(turnsOf()),
      tools: [slowTool],
      runs: store,
    });
    const running = client
      .run("go", { durable: true, signal: controller.signal })
      .catch((e: unknown) => e);
    // Cancel while the tool runs (not before the model call, which would leave no call in flight).
    await started;
    controller.abort();
    expect(await running).toMatchObject({ code: "cancelled" });
    const runId = store.list().length === 0 ? ((await running) as { runId: string }).runId : "";
    const info = await client.getRun(runId);
    expect(info?.state).toBe("ready");
    const worker = createClient({
      model: scriptedModel(turnsOf().slice(1)),
      tools: [slowTool],
      runs: store,
    });
    const done = await worker.continueRun(runId);
    expect(done.status).toBe("done");
    expect(toolTexts(done.messages)).toEqual(["quick the second time"]);
  });
});
