import {
  AlreadyResumedError,
  type Checkpoint,
  CheckpointError,
  type Message,
  pending,
  SuspensionNotFoundError,
  type SuspensionStore,
  type ToolContext,
  WireFormatError,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { memorySuspensionStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

/** Counts executions per tool, and which ones carried an answer. */
function counter() {
  const runs: { tool: string; answered: boolean }[] = [];
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
      c.runs.push({ tool: "deploy", answered: ctx.answer !== undefined });
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
      c.runs.push({ tool: "login", answered: ctx.answer !== undefined });
      return ctx.answer
        ? "logged in"
        : pending({ kind: "authorization", prompt: "Log in", url: "https://auth.test" });
    },
  });
  const status = nativeTool({
    name: "status",
    description: "Reports status",
    run: () => {
      c.runs.push({ tool: "status", answered: false });
      return "all green";
    },
  });
  return [deploy, login, status];
}

const script = () =>
  scriptedModel([
    {
      id: "msg_1",
      toolCalls: [
        { id: "c_status", name: "status" },
        { id: "c_deploy", name: "deploy", arguments: { app: "web" } },
        { id: "c_login", name: "login" },
      ],
    },
    { content: "web is live" },
  ]);

/** Moves every checkpoint of one store into another through JSON, like a real database would. */
async function carryOver(from: ReturnType<typeof memorySuspensionStore>, to: SuspensionStore) {
  const moved = new Set<string>();
  for (const summary of from.list({ state: "pending" })) {
    const checkpoint = from.get(summary.request.id);
    if (checkpoint === undefined || moved.has(checkpoint.id)) continue;
    moved.add(checkpoint.id);
    await to.save(JSON.parse(JSON.stringify(checkpoint)) as Checkpoint);
  }
}

describe("durable halt and resume", () => {
  it("halts with pending, pendings and a balanced transcript, then a fresh client resumes from JSON", async () => {
    const c = counter();
    const storeA = memorySuspensionStore();
    const clientA = createClient({
      model: script(),
      tools: tools(c),
      suspensions: storeA,
      agent: "ops",
    });
    const halted = await clientA.run("ship web", { sessionId: "s-1" });
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") throw new Error("unreachable");
    expect(halted.pending.kind).toBe("input");
    expect(halted.text).toBe("Where should web go?");
    expect(halted.pendings.map((r) => r.kind)).toEqual(["input", "authorization"]);
    // One tool message per call; placeholders carry the prompt.
    const toolMessages = halted.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => [m.callId, m.content])).toEqual([
      ["c_status", "all green"],
      ["c_deploy", "Where should web go?"],
      ["c_login", "Log in\nhttps://auth.test"],
    ]);
    expect(halted.toolCalls.map((r) => r.status)).toEqual(["ok", "pending", "pending"]);
    expect(storeA.list().map((s) => [s.request.kind, s.state, s.sessionId, s.agent])).toEqual([
      ["input", "pending", "s-1", "ops"],
      ["authorization", "pending", "s-1", "ops"],
    ]);

    // A new process: a fresh client, a fresh store holding only the checkpoint's JSON.
    const storeB = memorySuspensionStore();
    await carryOver(storeA, storeB);
    const model = script();
    model.generate({ messages: [], tools: [] }); // the first turn was played by the old process
    const clientB = createClient({ model, tools: tools(c), suspensions: storeB, agent: "ops" });

    const first = await clientB.resume({
      id: halted.pending.id,
      ok: true,
      data: { env: "staging" },
    });
    // The other call of the turn still waits: the run halts again on the same Request.
    expect(first.status).toBe("pending");
    if (first.status !== "pending") throw new Error("unreachable");
    expect(first.pending).toEqual(halted.pendings[1]);
    expect(first.pendings).toEqual([halted.pendings[1]]);
    expect(first.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "all green",
      "deployed web to staging",
      "Log in\nhttps://auth.test",
    ]);
    expect(c.count("login")).toBe(1);

    const done = await clientB.resume({ id: first.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(done.text).toBe("web is live");
    expect(done.turns).toBe(2);

    // Each tool ran exactly as often as it should: status once, never again after the halt.
    expect(c.count("status")).toBe(1);
    expect(c.count("deploy", false)).toBe(1);
    expect(c.count("deploy", true)).toBe(1);
    expect(c.count("login", true)).toBe(1);
    // The model saw a balanced transcript with the real results, and no extra user turn.
    const seen = model.requests[1]!.messages;
    expect(seen.filter((m) => m.role === "user")).toHaveLength(1);
    expect(
      seen
        .filter((m: Message) => m.role === "tool")
        .map((m) => (m.role === "tool" ? m.content : "")),
    ).toEqual(["all green", "deployed web to staging", "logged in"]);
    const callIds = seen.flatMap((m) =>
      m.role === "assistant" ? (m.toolCalls ?? []).map((t) => t.id) : [],
    );
    const resultIds = seen.flatMap((m) => (m.role === "tool" ? [m.callId] : []));
    expect(resultIds).toEqual(callIds);
  });

  it("resume([a1, a2]) answers several at once", async () => {
    const c = counter();
    const client = createClient({ model: script(), tools: tools(c) });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const done = await client.resume([
      { id: halted.pendings[0]!.id, ok: true, data: { env: "prod" } },
      { id: halted.pendings[1]!.id, ok: false, reason: "declined" },
    ]);
    expect(done.status).toBe("done");
    expect(done.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "all green",
      "deployed web to prod",
      "declined/expired: Log in",
    ]);
    expect(c.count("login")).toBe(1);
  });

  it("a bad, unknown or repeated answer is a typed error that changes nothing", async () => {
    const c = counter();
    const client = createClient({ model: script(), tools: tools(c) });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const id = halted.pending.id;

    await expect(client.resume({ id, ok: "yes" } as never)).rejects.toBeInstanceOf(WireFormatError);
    const unknown = await client.resume({ id: "pnd_nope", ok: true }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(SuspensionNotFoundError);
    expect((unknown as Error).message).toContain('"pnd_nope"');
    expect(c.runs).toHaveLength(3);

    // A correct resume still works after the bad ones.
    const next = await client.resume({ id, ok: true, data: { env: "qa" } });
    expect(next.status).toBe("pending");
    const again = await client
      .resume({ id, ok: true, data: { env: "qa" } })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(AlreadyResumedError);
    expect((again as Error).message).toBe(
      `request "${id}" was already resumed; a request can be answered only once`,
    );
    expect(c.count("deploy", true)).toBe(1);
  });

  it("refuses a checkpoint whose tool is gone or whose arguments were altered, and keeps it resumable", async () => {
    const c = counter();
    const store = memorySuspensionStore();
    const client = createClient({ model: script(), tools: tools(c), suspensions: store });
    const halted = await client.run("ship");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const id = halted.pending.id;

    const withoutDeploy = createClient({
      model: script(),
      tools: tools(c).slice(1),
      suspensions: store,
    });
    const gone = await withoutDeploy.resume({ id, ok: true }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(CheckpointError);
    expect((gone as Error).message).toBe(
      `checkpoint for request "${id}" cannot be resumed: tool "deploy" is not registered with this client; register it to resume this run`,
    );

    // A tampered copy of the checkpoint: same request, different arguments.
    const tampered = memorySuspensionStore();
    const original = store.get(id)!;
    original.pending[0]!.args = { app: "database" };
    tampered.save(original);
    const altered = await createClient({ model: script(), tools: tools(c), suspensions: tampered })
      .resume({ id, ok: true })
      .catch((e: unknown) => e);
    expect(altered).toBeInstanceOf(CheckpointError);
    expect((altered as Error).message).toContain("do not match its fingerprint");

    // Nothing ran, and the real checkpoint is still waiting.
    expect(c.count("deploy", true)).toBe(0);
    expect((await client.resume({ id, ok: true, data: { env: "x" } })).status).toBe("pending");
  });

  it("resolves an expired request as not ok with reason expired", async () => {
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
    expect((client.suspensions as ReturnType<typeof memorySuspensionStore>).list()[0]!.state).toBe(
      "expired",
    );
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

  it("writes the checkpoint before run returns pending", async () => {
    const saved: Checkpoint[] = [];
    const inner = memorySuspensionStore();
    const spy: SuspensionStore = {
      save: (checkpoint) => {
        saved.push(checkpoint);
        return inner.save(checkpoint);
      },
      get: (id) => inner.get(id),
      claim: (id) => inner.claim(id),
      list: (filter) => inner.list(filter),
    };
    const c = counter();
    const halted = await createClient({ model: script(), tools: tools(c), suspensions: spy }).run(
      "ship",
    );
    expect(saved).toHaveLength(1);
    if (halted.status === "pending") expect(saved[0]!.id).toBe(halted.checkpointId);
  });
});
