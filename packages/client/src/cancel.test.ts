import {
  type ModelRequest,
  pending,
  type RecordedRunEvent,
  type ToolContext,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { agentTool } from "./agent-tool.js";
import { createClient } from "./client.js";
import { CancelRequestedError, RunCancelledError } from "./errors.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

// Short leases, so a running run's worker renews (and sees a cancel) every 50 ms.
const LEASE_MS = 150;

async function collect(events: AsyncIterable<RecordedRunEvent>): Promise<RecordedRunEvent[]> {
  const seen: RecordedRunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** A tool that asks where to deploy, then deploys. */
const deploy = nativeTool({
  name: "deploy",
  description: "Deploys after asking where",
  ctx: true,
  run: (_args, ctx) =>
    ctx.answer === undefined
      ? pending({ kind: "input", prompt: "Where to?" })
      : `deployed to ${String(ctx.answer.data?.env)}`,
});

function deployClient() {
  const store = memoryRunStore();
  const model = scriptedModel([
    { toolCalls: [{ id: "call_1", name: "deploy", arguments: {} }] },
    { content: "deployed" },
  ]);
  return { store, client: createClient({ model, tools: [deploy], runs: store }) };
}

/**
 * A tool that runs until its signal aborts, counting starts: `started` resolves on the first,
 * `reasons` keeps each abort reason, `startsAfter(t)` counts starts after a moment.
 */
function stoppable(name: string) {
  const starts: number[] = [];
  const reasons: unknown[] = [];
  let entered: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const tool = nativeTool({
    name,
    description: "Works until stopped",
    ctx: true,
    run: async (_args, ctx: ToolContext) => {
      starts.push(Date.now());
      entered();
      const signal = ctx.signal!;
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      reasons.push(signal.reason);
      return "stopped";
    },
  });
  return { tool, started, reasons, starts };
}

describe("client.cancel", () => {
  it("cancels a waiting run: who and why kept, a later answer refused, continuing it rejects", async () => {
    const { store, client } = deployClient();
    const halted = await client.run("ship", { runId: "run_c" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const receipt = await client.cancel("run_c", { by: "bob", reason: "changed my mind" });
    expect(receipt).toEqual({ runId: "run_c", outcome: "cancelled", state: "cancelled" });
    expect(await client.getRun("run_c")).toMatchObject({
      state: "cancelled",
      cancel: { by: "bob", reason: "changed my mind" },
    });
    expect((await store.getRequest(halted.pending.id))?.state).toBe("cancelled");
    await expect(
      client.answer({ id: halted.pending.id, ok: true, data: { env: "prod" } }, { by: "alice" }),
    ).rejects.toMatchObject({ name: "AnswerConflictError", reason: "cancelled" });
    const continued = await client.continueRun("run_c").catch((e: unknown) => e);
    expect(continued).toBeInstanceOf(RunCancelledError);
    expect((continued as RunCancelledError).cancel).toMatchObject({
      by: "bob",
      reason: "changed my mind",
    });
    expect((continued as Error).message).toContain("by bob: changed my mind");
    const events = await collect(client.follow("run_c"));
    expect(events.at(-1)).toMatchObject({
      type: "cancelled",
      data: { by: "bob", reason: "changed my mind" },
    });
  });

  it("cancels a ready run (answered, not yet continued): nothing runs again", async () => {
    const { client } = deployClient();
    const halted = await client.run("ship", { runId: "run_r" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const receipt = await client.answer({ id: halted.pending.id, ok: true, data: { env: "dev" } });
    expect(receipt.state).toBe("ready");
    expect((await client.cancel("run_r", { by: "ops" })).outcome).toBe("cancelled");
    await expect(client.continueRun("run_r")).rejects.toBeInstanceOf(RunCancelledError);
    const summary = await client.work({ signal: AbortSignal.timeout(200), pollMs: 20 });
    expect(summary.claimed).toBe(0);
  });

  it("cancels a run while its tool runs: the tool's signal aborts naming who, no tool starts after", async () => {
    const slow = stoppable("slow");
    const other = stoppable("other");
    const store = memoryRunStore();
    // Turn 1 asks for two calls, run one at a time; turn 2 would ask for another.
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "call_1", name: "slow", arguments: {} },
          { id: "call_2", name: "other", arguments: {} },
        ],
      },
      { toolCalls: [{ id: "call_3", name: "other", arguments: {} }] },
      { content: "finished" },
    ]);
    const client = createClient({
      model,
      tools: [slow.tool, other.tool],
      runs: store,
      leaseMs: LEASE_MS,
      maxConcurrentTools: 1,
    });
    const running = client.run("work", { durable: true, runId: "run_t" });
    await slow.started;
    const receipt = await client.cancel("run_t", { by: "ops", reason: "runaway" });
    expect(receipt).toEqual({ runId: "run_t", outcome: "requested", state: "running" });
    const thrown = await running.catch((e: unknown) => e);
    const cancelSeen = Date.now();
    expect(thrown).toBeInstanceOf(RunCancelledError);
    expect((thrown as RunCancelledError).cancel).toMatchObject({ by: "ops", reason: "runaway" });
    // The tool saw its signal abort, with a reason that names who cancelled and why.
    expect(slow.reasons).toHaveLength(1);
    expect(slow.reasons[0]).toBeInstanceOf(CancelRequestedError);
    expect((slow.reasons[0] as Error).message).toContain("by ops: runaway");
    // No tool started after the cancel: not the turn's second call, not a later turn's.
    expect(other.starts).toHaveLength(0);
    expect(model.calls).toBe(1);
    expect(await client.getRun("run_t")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops", reason: "runaway" },
    });
    const types = (await collect(client.follow("run_t"))).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["cancel_requested", "cancelled"]);
    expect(types).toContain("tool_call");
    // Nothing happens afterwards either.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(other.starts.filter((t) => t >= cancelSeen)).toHaveLength(0);
    expect(slow.starts).toHaveLength(1);
  }, 60_000);

  it("cancels a run while its model answers: the model's signal (an own property, kept by a spread) aborts naming who", async () => {
    const store = memoryRunStore();
    let entered!: () => void;
    const inModel = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const seen: { keys: string[]; spreadKept: boolean; reason?: unknown } = {
      keys: [],
      spreadKept: false,
    };
    const model = {
      id: "waits",
      async generate(_request: ModelRequest, options?: { signal?: AbortSignal }) {
        seen.keys = Object.keys(options ?? {});
        const signal = options?.signal;
        if (!(signal instanceof AbortSignal))
          throw new Error("no signal for a durable run's model");
        seen.spreadKept = { ...options }.signal === signal;
        entered();
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener("abort", () => resolve(), { once: true });
        });
        seen.reason = signal.reason;
        throw signal.reason;
      },
    };
    const client = createClient({ model, tools: [], runs: store, leaseMs: LEASE_MS });
    const running = client.run("think", { durable: true, runId: "run_m" });
    await inModel;
    expect(seen.keys).toEqual(["signal"]);
    expect(seen.spreadKept).toBe(true);
    await client.cancel("run_m", { by: "ops", reason: "too slow" });
    const thrown = await running.catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RunCancelledError);
    expect(seen.reason).toBeInstanceOf(CancelRequestedError);
    expect((seen.reason as Error).message).toContain("by ops: too slow");
    expect((await client.getRun("run_m"))?.state).toBe("cancelled");
  }, 60_000);

  it("cancels a run while its sub-agent's tool runs: the child stops too, both end cancelled", async () => {
    const slow = stoppable("slow");
    const store = memoryRunStore();
    const childModel = scriptedModel([
      { toolCalls: [{ id: "call_c1", name: "slow", arguments: {} }] },
      { content: "child done" },
    ]);
    const child = createClient({
      model: childModel,
      tools: [slow.tool],
      runs: store,
      agent: "researcher",
      leaseMs: LEASE_MS,
    });
    const parentModel = scriptedModel([
      (request: ModelRequest) =>
        request.messages.at(-1)?.role === "tool"
          ? { content: "parent done" }
          : { toolCalls: [{ id: "call_p1", name: "research", arguments: { prompt: "go" } }] },
      { content: "parent done" },
    ]);
    const parent = createClient({
      model: parentModel,
      tools: [agentTool(child, { name: "research", description: "researches" })],
      runs: store,
      agent: "lead",
      leaseMs: LEASE_MS,
    });
    const running = parent.run("go", { durable: true, runId: "run_p" });
    await slow.started;
    expect((await store.getRun("run_p/call_p1"))?.state).toBe("running");
    await parent.cancel("run_p", { by: "ops", reason: "stop all" });
    const thrown = await running.catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RunCancelledError);
    expect((thrown as RunCancelledError).cancel).toMatchObject({ by: "ops", reason: "stop all" });
    expect(slow.reasons).toHaveLength(1);
    expect(String((slow.reasons[0] as Error)?.message)).toContain("by ops: stop all");
    // The child run ends cancelled once its worker (this process) stops it.
    for (let i = 0; i < 100 && (await store.getRun("run_p/call_p1"))?.state !== "cancelled"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await store.getRun("run_p/call_p1")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops", reason: "stop all" },
    });
    expect(await store.getRun("run_p")).toMatchObject({ state: "cancelled" });
    expect(childModel.calls).toBe(1);
    expect(parentModel.calls).toBe(1);
  }, 60_000);

  it("cancelling twice, or after done, changes nothing", async () => {
    const { client } = deployClient();
    const halted = await client.run("ship", { runId: "run_x" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect((await client.cancel("run_x", { by: "bob" })).outcome).toBe("cancelled");
    expect(await client.cancel("run_x", { by: "carol", reason: "again" })).toEqual({
      runId: "run_x",
      outcome: "already_cancelled",
      state: "cancelled",
    });
    expect((await client.getRun("run_x"))?.cancel?.by).toBe("bob");
    const cancelledEvents = (await collect(client.follow("run_x"))).filter(
      (e) => e.type === "cancelled",
    );
    expect(cancelledEvents).toHaveLength(1);

    const { client: other } = deployClient();
    const second = await other.run("ship", { runId: "run_d" });
    if (second.status !== "pending") throw new Error("expected a halt");
    await other.resume({ id: second.pending.id, ok: true, data: { env: "dev" } });
    expect(await other.cancel("run_d", { by: "bob" })).toEqual({
      runId: "run_d",
      outcome: "finished",
      state: "done",
    });
    expect((await other.getRun("run_d"))?.state).toBe("done");
  });

  it("a worker's run cancelled while it works ends cancelled and is counted so", async () => {
    const slow = stoppable("slow");
    const store = memoryRunStore();
    const model = scriptedModel([
      { toolCalls: [{ id: "call_1", name: "deploy", arguments: {} }] },
      { toolCalls: [{ id: "call_2", name: "slow", arguments: {} }] },
      { content: "done" },
    ]);
    const client = createClient({
      model,
      tools: [deploy, slow.tool],
      runs: store,
      leaseMs: LEASE_MS,
    });
    const halted = await client.run("ship", { runId: "run_k" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    await client.answer({ id: halted.pending.id, ok: true, data: { env: "dev" } }, { by: "al" });
    const controller = new AbortController();
    const working = client.work({ signal: controller.signal, pollMs: 20 });
    await slow.started;
    expect((await client.cancel("run_k", { by: "ops" })).outcome).toBe("requested");
    for (let i = 0; i < 200 && (await store.getRun("run_k"))?.state !== "cancelled"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    const summary = await working;
    expect(summary).toMatchObject({ claimed: 1, cancelled: 1, errors: 0 });
    expect(await store.getRun("run_k")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops" },
    });
    expect((slow.reasons[0] as Error).message).toContain("by ops");
  }, 60_000);

  // A store of the current contract says in its halt receipt that the cancel ended the run; one
  // of the earlier contract answers "waiting", and the client reads the run to learn it.
  it.each([
    ["says so in its halt receipt", false],
    ["answers only a state (the earlier contract)", true],
  ])(
    "a run cancelled between two lease renewals that then halts ends cancelled, asking nobody: the store %s",
    async (_, earlier) => {
      const store = memoryRunStore();
      const runs = earlier
        ? Object.assign(Object.create(store) as typeof store, {
            halt: (...args: Parameters<typeof store.halt>) => store.halt(...args).state as never,
          })
        : store;
      let client: ReturnType<typeof createClient> | undefined;
      // The tool cancels its own run, then asks a question: the run halts before any renewal.
      const ask = nativeTool({
        name: "ask",
        description: "Cancels its run, then asks",
        ctx: true,
        run: async (_args, ctx) => {
          if (ctx.answer !== undefined) return "answered";
          await client!.cancel(ctx.runId!, { by: "ops", reason: "late" });
          return pending({ kind: "input", prompt: "Still there?" });
        },
      });
      const model = scriptedModel([
        { toolCalls: [{ id: "call_1", name: "ask", arguments: {} }] },
        { content: "done" },
      ]);
      client = createClient({ model, tools: [ask], runs });
      const thrown = await client.run("go", { durable: true, runId: "run_h" }).catch((e) => e);
      expect(thrown).toBeInstanceOf(RunCancelledError);
      expect((thrown as RunCancelledError).cancel).toMatchObject({ by: "ops", reason: "late" });
      expect(await store.getRun("run_h")).toMatchObject({ state: "cancelled" });
      expect(store.list({ state: "waiting" })).toEqual([]);
    },
  );
});
