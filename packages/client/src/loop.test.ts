import type { ok, ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { inProcessModel } from "./in-process-model.js";
import { scriptedModel } from "./testing.js";

const add = nativeTool({
  name: "add",
  description: "Add two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("a tool round trip", () => {
  it("calls the model, runs the tool, feeds the result back and returns the answer", async () => {
    const model = scriptedModel([
      {
        id: "resp_1",
        toolCalls: [{ id: "call_1", name: "add", arguments: { a: 2, b: 3 } }],
        usage: { promptTokens: 10, completionTokens: 5 },
      },
      { id: "resp_2", content: "2 + 3 = 5", usage: { promptTokens: 20, completionTokens: 4 } },
    ]);
    const client = createClient({ model, tools: [add], systemPrompt: "Be brief." });
    const result = await client.run("What is 2 + 3?");
    expect(result.status).toBe("done");
    expect(result.text).toBe("2 + 3 = 5");
    expect(result.turns).toBe(2);
    expect(result.model).toBe("scripted");
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 9, totalTokens: 39 });
    expect(result.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "What is 2 + 3?" },
      {
        role: "assistant",
        id: "resp_1",
        content: "",
        toolCalls: [{ id: "call_1", name: "add", args: { a: 2, b: 3 }, rawArgs: '{"a":2,"b":3}' }],
      },
      { role: "tool", callId: "call_1", name: "add", content: "5", isError: false },
      { role: "assistant", id: "resp_2", content: "2 + 3 = 5" },
    ]);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      id: "call_1",
      name: "add",
      status: "ok",
      timedOut: false,
    });
    // What the model saw on its second turn: the tool result, and the tool list both times.
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: "tool",
      callId: "call_1",
      name: "add",
      content: "5",
      isError: false,
    });
    expect(model.requests[0]!.messages).toHaveLength(2);
    expect(model.requests[0]!.tools.map((tool) => tool.name)).toEqual(["add"]);
  });

  it("answers directly when the model calls no tool", async () => {
    const client = createClient({ model: scriptedModel([{ content: "Hello!" }]) });
    const result = await client.run("Hi");
    expect(result).toMatchObject({ status: "done", text: "Hello!", turns: 1, toolCalls: [] });
  });
});

describe("the context the loop fills in", () => {
  it("gives every call sessionId, agent, messageId, callId, merged extra, timeout and signal", async () => {
    const seen: ToolContext[] = [];
    const probe = nativeTool({
      name: "probe",
      description: "Records its context",
      ctx: true,
      timeoutMs: 700,
      run: (_args, ctx) => {
        seen.push(ctx);
        return "ok";
      },
    });
    const model = scriptedModel([
      {
        id: "msg_A",
        toolCalls: [
          { id: "c1", name: "probe", arguments: {} },
          { id: "c2", name: "probe", arguments: {} },
        ],
      },
      {
        toolCalls: [
          { name: "probe", arguments: {} },
          { name: "probe", arguments: {} },
        ],
      },
      { content: "done" },
    ]);
    const client = createClient({
      model,
      tools: [probe],
      agent: "researcher",
      toolTimeoutMs: 5000,
      extra: { tenant: "acme", region: "eu" },
    });
    await client.run("go", { sessionId: "s-42", extra: { region: "us", user: "u1" } });
    expect(seen).toHaveLength(4);
    const [a, b, c, d] = seen as [ToolContext, ToolContext, ToolContext, ToolContext];
    expect(a).toMatchObject({
      sessionId: "s-42",
      agent: "researcher",
      messageId: "msg_A",
      callId: "c1",
      extra: { tenant: "acme", region: "us", user: "u1" },
      timeout: 700,
    });
    expect(a.signal).toBeInstanceOf(AbortSignal);
    expect(a.signal?.aborted).toBe(false);
    expect(a.answer).toBeUndefined();
    // Two calls of one turn share messageId and differ in callId.
    expect(b.messageId).toBe("msg_A");
    expect(b.callId).toBe("c2");
    // The loop makes ids when the model gives none: a message id, and call ids unique in the run.
    expect(c.messageId).toMatch(/^msg_/);
    expect(c.messageId).toBe(d.messageId);
    expect(c.callId).toMatch(/^call_/);
    expect(new Set(seen.map((ctx) => ctx.callId)).size).toBe(4);
  });

  it("leaves timeout undefined when no budget is set, never 0", async () => {
    let timeout: number | undefined = -1;
    const probe = nativeTool({
      name: "probe",
      description: "d",
      ctx: true,
      run: (_a, ctx) => {
        timeout = ctx.timeout;
        return "";
      },
    });
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ name: "probe" }] }, { content: "ok" }]),
      tools: [probe],
    });
    await client.run("go");
    expect(timeout).toBeUndefined();
  });

  it("takes the smallest of the tool's, the client's and the run's budgets", async () => {
    const budgets: (number | undefined)[] = [];
    const probe = (name: string, timeoutMs?: number) =>
      nativeTool({
        name,
        description: "d",
        ctx: true,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        run: (_a, ctx) => {
          budgets.push(ctx.timeout);
          return "";
        },
      });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ name: "own", arguments: {} }] },
        { toolCalls: [{ name: "plain", arguments: {} }] },
        { content: "ok" },
      ]),
      tools: [probe("own", 300), probe("plain")],
      toolTimeoutMs: 2000,
      timeoutMs: 60_000,
    });
    await client.run("go");
    expect(budgets[0]).toBe(300);
    expect(budgets[1]).toBe(2000);
  });
});

describe("bad calls become error results the model reads, and the run goes on", () => {
  it("handles invalid JSON, unknown tools, throws, garbage returns and failed validation", async () => {
    const throws = nativeTool({
      name: "throws",
      description: "d",
      run: () => {
        throw new Error("database is down");
      },
    });
    const garbage = {
      name: "garbage",
      description: "returns a number instead of a ToolResult",
      inputSchema: { type: "object" },
      source: "custom",
      execute: async () => 42 as unknown as ReturnType<typeof ok>,
    };
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "add", arguments: '{"a": 2, "b":' },
          { id: "c2", name: "nope", arguments: {} },
          { id: "c3", name: "throws", arguments: {} },
          { id: "c4", name: "garbage", arguments: {} },
          { id: "c5", name: "add", arguments: { a: "two", b: 3 } },
          { id: "c6", name: "add", arguments: { a: 1, b: 1 } },
        ],
      },
      { content: "recovered" },
    ]);
    const client = createClient({ model, tools: [add, throws, garbage] });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    const tools = result.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => [m.callId, m.isError])).toEqual([
      ["c1", true],
      ["c2", true],
      ["c3", true],
      ["c4", true],
      ["c5", true],
      ["c6", false],
    ]);
    expect(tools[0]!.content).toMatch(/^invalid arguments for add: arguments are not valid JSON/);
    expect(tools[1]!.content).toBe("unknown tool: nope");
    expect(tools[2]!.content).toBe("database is down");
    expect(tools[3]!.content).toBe("tool garbage returned a number instead of a ToolResult");
    expect(tools[4]!.content).toMatch(/^invalid arguments for add: a: /);
    expect(tools[5]!.content).toBe("2");
  });
});

describe("concurrency and order", () => {
  it("runs one turn's calls concurrently and records results in tool-call order", async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = nativeTool({
      name: "slow",
      description: "waits for the gate",
      run: async () => {
        started.push("slow");
        await gate;
        return "slow done";
      },
    });
    const fast = nativeTool({
      name: "fast",
      description: "opens the gate",
      run: () => {
        started.push("fast");
        release();
        return "fast done";
      },
    });
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "a", name: "slow" },
            { id: "b", name: "fast" },
          ],
        },
        { content: "both" },
      ]),
      tools: [slow, fast],
    });
    // If calls ran one after another, slow would wait forever for fast.
    const result = await client.run("go");
    expect(started).toEqual(["slow", "fast"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "slow done",
      "fast done",
    ]);
    // The record lists calls as they finished.
    expect(result.toolCalls.map((r) => r.id)).toEqual(["b", "a"]);
  });
});

describe("limits", () => {
  it("stops at maxTurns with status incomplete, never silently", async () => {
    const loopForever = inProcessModel({
      id: "looper",
      generate: () => ({ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }),
    });
    const client = createClient({ model: loopForever, tools: [add], maxTurns: 3 });
    const result = await client.run("go");
    expect(result.status).toBe("incomplete");
    if (result.status !== "incomplete") throw new Error("unreachable");
    expect(result.limit).toBe("maxTurns");
    expect(result.turns).toBe(3);
    // The transcript stays balanced: every call has its result.
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(3);
  });

  it("defaults maxTurns to 10", async () => {
    let calls = 0;
    const model = inProcessModel({
      id: "looper",
      generate: () => {
        calls++;
        return { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] };
      },
    });
    const result = await createClient({ model, tools: [add] }).run("go");
    expect(result.status).toBe("incomplete");
    expect(calls).toBe(10);
  });

  it("rejects bad options with messages that say what to fix", () => {
    const model = scriptedModel([]);
    expect(() => createClient({ model, maxTurns: 0 })).toThrow(
      "createClient: maxTurns must be a whole number of at least 1, got 0",
    );
    expect(() => createClient({ model, toolTimeoutMs: -5 })).toThrow(
      "createClient: toolTimeoutMs must be a positive number of milliseconds, got -5",
    );
    expect(() => createClient({ model, tools: [add, add] })).toThrow(
      'createClient: two tools are named "add"; tool names must be unique',
    );
    expect(() => createClient({} as never)).toThrow(/`model` must be a Model/);
  });

  it("wraps a failing model in a RunError that keeps the transcript", async () => {
    const model = inProcessModel({
      id: "flaky",
      generate: () => {
        throw new Error("503 from upstream");
      },
    });
    const failure = await createClient({ model })
      .run("hi")
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: "model_failed",
      message: "model flaky failed on turn 1: 503 from upstream",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("reports a script that ran out of turns clearly", async () => {
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] }]),
      tools: [add],
    });
    await expect(client.run("go")).rejects.toThrow(
      "scriptedModel: the script has 1 turn(s) but the loop asked for turn 2; add a turn or lower maxTurns",
    );
  });
});
