// Redeploys in one process (two clients on one store stand for two releases); the same across
// two processes on a SQLite file is in packages/store-sqlite/test/redeploy-processes.test.ts.
import {
  CHECKPOINT_VERSION,
  type Checkpoint,
  CheckpointError,
  emptyUsage,
  type Message,
  pending,
  type RunStore,
  type Tool,
  ToolChangedError,
  type ToolMigration,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { schemaFingerprint } from "./fingerprint.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";
import type { RunResult } from "./types.js";

/** What each build's tool received when it ran with an answer. */
type Ran = { name: string; args: Record<string, unknown> }[];

const ask = () => pending({ kind: "input", prompt: "Who signs off?" });

/** Release 1: `deploy({ env })`. */
function build1(ran: Ran): Tool {
  return nativeTool({
    name: "deploy",
    description: "Deploy to an environment",
    input: z.object({ env: z.string() }),
    ctx: true,
    run: (args, ctx) => {
      if (ctx.answer === undefined) return ask();
      ran.push({ name: "deploy", args });
      return `deployed to ${args.env}, signed by ${String(ctx.answer.data?.by)}`;
    },
  });
}

/** Release 2: the same tool with `{ target, dryRun }`, maybe renamed, maybe migrating. */
function build2(
  ran: Ran,
  options: { name?: string; previousNames?: string[]; migrate?: ToolMigration } = {},
): Tool {
  const name = options.name ?? "deploy";
  return nativeTool({
    name,
    description: "Deploy to a target",
    input: z.object({ target: z.string(), dryRun: z.boolean() }),
    ...(options.previousNames === undefined ? {} : { previousNames: options.previousNames }),
    ...(options.migrate === undefined ? {} : { migrate: options.migrate }),
    ctx: true,
    run: (args, ctx) => {
      if (ctx.answer === undefined) return ask();
      ran.push({ name, args });
      return `${args.dryRun ? "rehearsed" : "deployed"} ${args.target}, signed by ${String(ctx.answer.data?.by)}`;
    },
  });
}

const turns = () => [
  { toolCalls: [{ id: "c1", name: "deploy", arguments: { env: "prod" } }] },
  { content: "shipped" },
];

/** Release 1 halts a run on `deploy({ env: "prod" })` and its answer is recorded. */
async function haltedUnderBuild1(store: RunStore, ran: Ran) {
  const client = createClient({ model: scriptedModel(turns()), tools: [build1(ran)], runs: store });
  const halted = await client.run("ship it");
  if (halted.status !== "pending") throw new Error("expected a halt");
  await client.answer({ id: halted.pending.id, ok: true, data: { by: "ops" } });
  return halted;
}

const release2 = (store: RunStore, tool: Tool) =>
  createClient({ model: scriptedModel(turns().slice(1)), tools: [tool], runs: store });

const oldSchema = () => schemaFingerprint(build1([]).inputSchema);
const migrateEnv: () => ToolMigration = () => ({
  from: [oldSchema()],
  run: (args) => ({ target: args.env, dryRun: false }),
});

function toolCallsOf(messages: readonly Message[]) {
  return messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
}

describe("what a halt records", () => {
  it("each pending call keeps its tool's name and a 16-digit fingerprint of its input schema", async () => {
    const store = memoryRunStore();
    const halted = await haltedUnderBuild1(store, []);
    const [call] = (await store.getRun(halted.runId))!.checkpoint!.pending;
    expect(call).toMatchObject({ tool: "deploy", schema: oldSchema() });
    expect(call!.schema).toMatch(/^[0-9a-f]{16}$/);
    // Key order does not change a schema's fingerprint; a changed schema does.
    expect(schemaFingerprint({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(
      schemaFingerprint({ a: [1, { c: 3, d: 2 }], b: 1 }),
    );
    expect(schemaFingerprint(build2([]).inputSchema)).not.toBe(oldSchema());
  });
});

describe("continuing under a release whose tool changed", () => {
  it("a changed schema without a migration: ToolChangedError before anything changes", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    const now = build2(ran);
    const thrown = await release2(store, now)
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ToolChangedError);
    expect(thrown).toBeInstanceOf(CheckpointError);
    expect(thrown).toMatchObject({
      code: "tool_changed",
      change: "schema_changed",
      tool: "deploy",
      runId: halted.runId,
      requestId: halted.pending.id,
      before: oldSchema(),
      after: schemaFingerprint(now.inputSchema),
    });
    expect((thrown as Error).message).toContain(
      `give the tool a migrate whose from lists "${oldSchema()}"`,
    );
    expect(ran).toEqual([]);
    const info = await store.getRun(halted.runId);
    expect(info).toMatchObject({ state: "ready", failures: 0 });
    expect(info?.requests[0]?.state).toBe("answered");
  });

  it("a migration carries the old arguments over; the transcript shows the call that ran", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    const done = await release2(store, build2(ran, { migrate: migrateEnv() })).continueRun(
      halted.runId,
    );
    expect(done.status).toBe("done");
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
    expect(toolCallsOf(done.messages)).toMatchObject([
      { id: "c1", name: "deploy", args: { target: "prod", dryRun: false } },
    ]);
    expect(done.messages.at(-2)).toMatchObject({
      role: "tool",
      callId: "c1",
      content: "deployed prod, signed by ops",
    });
  });

  it("a continuation migrates a call once: the claim of the halt its read checked reuses that check", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    let migrated = 0;
    const counted: ToolMigration = {
      from: [oldSchema()],
      run: (args) => {
        migrated++;
        return { target: args.env, dryRun: false };
      },
    };
    const done = await release2(store, build2(ran, { migrate: counted })).continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(migrated).toBe(1);
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
  });

  it("a claim of another halt than the read saw checks its calls again before any runs", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    // The read before the claim sees an earlier halt (one turn less, as if the run moved on
    // between the read and the claim): the claimed checkpoint is checked on its own.
    const stale: RunStore = Object.create(store);
    stale.getRun = async (runId) => {
      const info = await store.getRun(runId);
      if (info?.checkpoint === undefined) return info;
      return { ...info, checkpoint: { ...info.checkpoint, turns: info.checkpoint.turns - 1 } };
    };
    let migrated = 0;
    const counted: ToolMigration = {
      from: [oldSchema()],
      run: (args) => {
        migrated++;
        return { target: args.env, dryRun: false };
      },
    };
    const done = await release2(stale, build2(ran, { migrate: counted })).continueRun(halted.runId);
    expect(done.status).toBe("done");
    // Once on the read before the claim, once on the claimed copy; never after a call started.
    expect(migrated).toBe(2);
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
  });

  it("a rename listed in previousNames continues with the new tool, under its new name", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    const renamed = build2(ran, {
      name: "release",
      previousNames: ["deploy"],
      migrate: migrateEnv(),
    });
    const done = await release2(store, renamed).continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(ran).toEqual([{ name: "release", args: { target: "prod", dryRun: false } }]);
    expect(toolCallsOf(done.messages).map((call) => call.name)).toEqual(["release"]);
    expect(done.toolCalls.map((record) => record.name)).toContain("release");
  });

  it("a rename without the schema's migration still says the schema changed, naming the new tool", async () => {
    const store = memoryRunStore();
    const halted = await haltedUnderBuild1(store, []);
    const renamed = build2([], { name: "release", previousNames: ["deploy"] });
    const thrown = await release2(store, renamed)
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ change: "schema_changed", tool: "deploy", current: "release" });
  });

  it("a tool gone (or renamed without previousNames): change removed", async () => {
    const store = memoryRunStore();
    const halted = await haltedUnderBuild1(store, []);
    const other = build2([], { name: "release" });
    const thrown = await release2(store, other)
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "tool_changed", change: "removed", tool: "deploy" });
    expect((thrown as Error).message).toContain('list "deploy" in the new tool\'s previousNames');
  });

  it("a migration that throws, or returns no arguments object: change migration_failed", async () => {
    const store = memoryRunStore();
    const halted = await haltedUnderBuild1(store, []);
    const throwing = build2([], {
      migrate: {
        from: [oldSchema()],
        run: () => {
          throw new Error("no target for env");
        },
      },
    });
    const first = await release2(store, throwing)
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(first).toMatchObject({ change: "migration_failed" });
    expect((first as Error).message).toContain("no target for env");
    const returnsList = build2([], {
      migrate: { from: [oldSchema()], run: () => [] as unknown as Record<string, unknown> },
    });
    const second = await release2(store, returnsList)
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(second).toMatchObject({ change: "migration_failed" });
    expect((second as Error).message).toContain("must return an arguments object");
  });

  it("a checkpoint written before schema fingerprints continues by name, unchecked, as before", async () => {
    const first = memoryRunStore();
    const halted = await haltedUnderBuild1(first, []);
    const checkpoint = (await first.getRun(halted.runId))!.checkpoint!;
    delete checkpoint.pending[0]!.schema;
    const store = memoryRunStore();
    await store.halt(checkpoint);
    await store.answer({ id: halted.pending.id, ok: true, data: { by: "ops" } });
    const ran: Ran = [];
    // The old arguments reach the new tool unchanged (its validation decides what they mean).
    const done = await release2(store, build2(ran)).continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(done.messages.at(-2)).toMatchObject({ role: "tool", isError: true });
    expect(String(done.messages.at(-2)?.content)).toContain("invalid arguments for deploy");
  });
});

describe("a worker of the new release", () => {
  it("gives the run back as a refusal with the error; once failed, a fixed release continues it with the recorded answer", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    const broken = release2(store, build2(ran));
    const errors: unknown[] = [];
    const controller = new AbortController();
    await broken.work({
      signal: controller.signal,
      pollMs: 10,
      onError: (error) => {
        errors.push(error);
        controller.abort();
      },
    });
    expect(errors[0]).toBeInstanceOf(ToolChangedError);
    const refused = await store.getRun(halted.runId);
    expect(refused).toMatchObject({
      state: "ready",
      failures: 1,
      lastError: { code: "tool_changed" },
    });
    expect(refused?.lastError?.message).toContain("input schema of tool");

    // After maxFailures refusals a worker ends it failed with the last error, as work() does.
    const again = await store.claim({ owner: "ops", leaseMs: 60_000, runId: halted.runId });
    await store.finish(again!.lease, { state: "failed", error: refused!.lastError! });
    const failed = await store.getRun(halted.runId);
    expect(failed).toMatchObject({ state: "failed", lastError: { code: "tool_changed" } });
    expect(ran).toEqual([]);

    // A deploy that migrates the old calls: continuing the failed run by id applies the answer.
    const fixed = release2(store, build2(ran, { migrate: migrateEnv() }));
    const done = await fixed.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
    expect(done.messages.at(-2)?.content).toBe("deployed prod, signed by ops");
  });
});

describe("a call in flight when its worker stopped", () => {
  it("runs again under the tool's new name when the tool lists the old one in previousNames", async () => {
    const store = memoryRunStore();
    // Release 1's worker had started `status_v1` when it gave the run back.
    const checkpoint: Checkpoint = {
      version: CHECKPOINT_VERSION,
      runId: "run_in_flight",
      createdAt: new Date().toISOString(),
      messages: [
        { role: "user", content: "how is prod?" },
        {
          role: "assistant",
          id: "m1",
          content: "",
          toolCalls: [{ id: "c1", name: "status_v1", args: {}, rawArgs: "{}" }],
        },
      ],
      pending: [],
      turns: 1,
      usage: emptyUsage(),
    };
    await store.release(await store.start(checkpoint, "release-1-worker", 60_000));
    const status = nativeTool({
      name: "status",
      description: "Reports status",
      previousNames: ["status_v1"],
      run: () => "all green",
    });
    const done = await createClient({
      model: scriptedModel([{ content: "prod is fine" }]),
      tools: [status],
      runs: store,
    }).continueRun("run_in_flight");
    expect(done.status).toBe("done");
    expect(toolCallsOf(done.messages).map((call) => call.name)).toEqual(["status"]);
    expect(done.messages[2]).toMatchObject({ role: "tool", callId: "c1", content: "all green" });
  });
});

describe("continuing a failed run by id", () => {
  it("applies the answers recorded before it failed; a request left unanswered resolves as expired", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const twoCalls = [
      {
        toolCalls: [
          { id: "c1", name: "deploy", arguments: { env: "prod" } },
          { id: "c2", name: "deploy", arguments: { env: "staging" } },
        ],
      },
      { content: "shipped" },
    ];
    const first = createClient({
      model: scriptedModel(twoCalls),
      tools: [build1(ran)],
      runs: store,
    });
    const halted = await first.run("ship both");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pendings).toHaveLength(2);
    await first.answer({ id: halted.pendings[0]!.id, ok: true, data: { by: "ops" } });
    // A worker of a release without the old schema's migration gave up on it.
    const claimed = await store.claim({ owner: "w", leaseMs: 60_000, runId: halted.runId });
    const error = { code: "tool_changed", message: "schema changed", at: new Date().toISOString() };
    await store.finish(claimed!.lease, { state: "failed", error });
    expect((await store.getRun(halted.runId))?.requests.map((r) => r.state)).toEqual([
      "applied",
      "applied",
    ]);

    const fixed = createClient({
      model: scriptedModel(twoCalls.slice(1)),
      tools: [build2(ran, { migrate: migrateEnv() })],
      runs: store,
    });
    const done = await fixed.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
    const results = done.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual(["deployed prod, signed by ops", "declined/expired: Who signs off?"]);
  });

  it("by a release still without the migration: refused before the claim, the run stays failed", async () => {
    const store = memoryRunStore();
    const halted = await haltedUnderBuild1(store, []);
    const claimed = await store.claim({ owner: "w", leaseMs: 60_000, runId: halted.runId });
    const error = { code: "tool_changed", message: "schema changed", at: new Date().toISOString() };
    await store.finish(claimed!.lease, { state: "failed", error });
    const thrown = await release2(store, build2([]))
      .continueRun(halted.runId)
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "tool_changed", change: "schema_changed" });
    expect(await store.getRun(halted.runId)).toMatchObject({ state: "failed", lastError: error });
  });

  it("after RunStore.retry, a worker of the fixed release continues it with the recorded answer", async () => {
    const store = memoryRunStore();
    const ran: Ran = [];
    const halted = await haltedUnderBuild1(store, ran);
    const claimed = await store.claim({ owner: "w", leaseMs: 60_000, runId: halted.runId });
    const error = { code: "tool_changed", message: "schema changed", at: new Date().toISOString() };
    await store.finish(claimed!.lease, { state: "failed", error });
    expect(await store.retry(halted.runId)).toMatchObject({ state: "ready" });

    const fixed = release2(store, build2(ran, { migrate: migrateEnv() }));
    const controller = new AbortController();
    let finished: RunResult | undefined;
    await fixed.work({
      signal: controller.signal,
      pollMs: 10,
      onResult: (result) => {
        finished = result;
        controller.abort();
      },
      onError: () => controller.abort(),
    });
    expect(finished?.status).toBe("done");
    expect(ran).toEqual([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
    expect(finished?.messages.at(-2)?.content).toBe("deployed prod, signed by ops");
  });
});
