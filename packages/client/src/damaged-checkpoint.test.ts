import { CheckpointError, pending, type RunStore, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

function deployTool(executions: ToolContext[]) {
  return nativeTool({
    name: "deploy",
    description: "Deploy, asking which environment",
    input: z.object({ app: z.string() }),
    ctx: true,
    run: ({ app }, ctx: ToolContext) => {
      executions.push(ctx);
      if (ctx.answer === undefined)
        return pending({ kind: "input", prompt: `Where should ${app} go?` });
      return `deployed ${app} to ${String(ctx.answer.data?.env)}`;
    },
  });
}

const turns = () => [
  { toolCalls: [{ id: "c1", name: "deploy", arguments: { app: "web" } }] },
  { content: "shipped" },
];

/**
 * Halts a run and records its answer, then edits the stored checkpoint through the store's own
 * writes (as a bad migration or a hand edit would) so it no longer lists the request.
 */
async function damagedRun(store: RunStore, executions: ToolContext[]) {
  const client = createClient({
    model: scriptedModel(turns()),
    tools: [deployTool(executions)],
    runs: store,
  });
  const halted = await client.run("ship");
  if (halted.status !== "pending") throw new Error("expected a halt");
  const answer = { id: halted.pending.id, ok: true, data: { env: "prod" } };
  await client.answer(answer);
  const claimed = await store.claim({ owner: "editor", leaseMs: 60_000, runId: halted.runId });
  if (claimed === undefined) throw new Error("expected to claim the run");
  await store.step(claimed.lease, { ...claimed.checkpoint, pending: [] });
  await store.release(claimed.lease);
  return { client, halted, answer };
}

describe("a stored checkpoint that no longer lists the answered request", () => {
  it("resume throws a CheckpointError and changes nothing; the answer stays recorded", async () => {
    const store = memoryRunStore();
    const executions: ToolContext[] = [];
    const { halted, answer } = await damagedRun(store, executions);
    const before = await store.getRun(halted.runId);
    const resumer = createClient({
      model: scriptedModel(turns().slice(1)),
      tools: [deployTool(executions)],
      runs: store,
    });
    const thrown = await resumer.resume(answer).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(CheckpointError);
    expect((thrown as CheckpointError).requestId).toBe(halted.pending.id);
    expect((thrown as Error).message).toContain("no longer lists the request");
    const after = await store.getRun(halted.runId);
    expect(after?.checkpoint).toEqual(before?.checkpoint);
    expect(after?.state).toBe("ready");
    expect(after?.lastError).toBeUndefined();
    expect(after?.result).toBeUndefined();
    const request = after?.requests.find((r) => r.request.id === halted.pending.id);
    expect(request).toMatchObject({ state: "answered", answer });
    // Only the first execution (the one that asked) ever ran.
    expect(executions).toHaveLength(1);
  });

  // resume reads the run before its claim and reuses that read after it only when the claimed
  // checkpoint is of the same halt: here the damage lands between the read and the claim.
  it("resume refuses it when the damage lands between its read and its claim", async () => {
    const store = memoryRunStore();
    const executions: ToolContext[] = [];
    const client = createClient({
      model: scriptedModel(turns()),
      tools: [deployTool(executions)],
      runs: store,
    });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const answer = { id: halted.pending.id, ok: true, data: { env: "prod" } };
    let damaged = false;
    const racing: RunStore = Object.assign(Object.create(store) as RunStore, {
      claim: async (options: Parameters<RunStore["claim"]>[0]) => {
        if (!damaged && options.owner !== "editor") {
          damaged = true;
          const claimed = store.claim({ owner: "editor", leaseMs: 60_000, runId: halted.runId })!;
          store.step(claimed.lease, { ...claimed.checkpoint, pending: [] });
          store.release(claimed.lease);
        }
        return store.claim(options);
      },
    });
    const resumer = createClient({
      model: scriptedModel(turns().slice(1)),
      tools: [deployTool(executions)],
      runs: racing,
    });
    const thrown = await resumer.resume(answer).catch((e: unknown) => e);
    expect(damaged).toBe(true);
    expect(thrown).toBeInstanceOf(CheckpointError);
    expect((thrown as Error).message).toContain("no longer lists the request");
    const after = await store.getRun(halted.runId);
    expect(after?.requests.find((r) => r.request.id === halted.pending.id)?.state).toBe("answered");
    expect(executions).toHaveLength(1);
  });

  it("a worker refuses it too, recording why, and never marks the answer applied", async () => {
    const store = memoryRunStore();
    const executions: ToolContext[] = [];
    const { halted } = await damagedRun(store, executions);
    const worker = createClient({
      model: scriptedModel(turns().slice(1)),
      tools: [deployTool(executions)],
      runs: store,
    });
    const controller = new AbortController();
    const errors: unknown[] = [];
    const summary = await worker.work({
      signal: controller.signal,
      pollMs: 10,
      onError: (error) => {
        errors.push(error);
        controller.abort();
      },
    });
    expect(summary).toMatchObject({ claimed: 1, errors: 1, finished: 0 });
    expect(errors[0]).toBeInstanceOf(CheckpointError);
    const after = await store.getRun(halted.runId);
    expect(after?.state).toBe("ready");
    expect(after?.lastError?.code).toBe("continue_refused");
    expect(after?.lastError?.message).toContain("no longer lists the request");
    expect(after?.requests.find((r) => r.request.id === halted.pending.id)?.state).toBe("answered");
    expect(executions).toHaveLength(1);
  });
});

describe("ctx.attempt after a refused continuation", () => {
  it("is 1 on the call's first execution with its answer, after a worker without the tool refused the run", async () => {
    const store = memoryRunStore();
    const executions: ToolContext[] = [];
    const client = createClient({
      model: scriptedModel(turns()),
      tools: [deployTool(executions)],
      runs: store,
    });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    await client.answer({ id: halted.pending.id, ok: true, data: { env: "prod" } });
    // A worker of the same agent, deployed without the tool, claims the run and refuses it.
    const toolless = createClient({ model: scriptedModel([]), tools: [], runs: store });
    const controller = new AbortController();
    const errors: unknown[] = [];
    await toolless.work({
      signal: controller.signal,
      pollMs: 10,
      onError: (error) => {
        errors.push(error);
        controller.abort();
      },
    });
    expect(errors[0]).toBeInstanceOf(CheckpointError);
    // A refusal, recorded with why: the tool the call was made against is not here.
    expect((await store.getRun(halted.runId))?.lastError?.code).toBe("tool_changed");
    const done = await createClient({
      model: scriptedModel(turns().slice(1)),
      tools: [deployTool(executions)],
      runs: store,
    }).continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(executions.map((ctx) => [ctx.answer?.ok ?? null, ctx.attempt])).toEqual([
      [null, 1],
      [true, 1],
    ]);
  });
});
