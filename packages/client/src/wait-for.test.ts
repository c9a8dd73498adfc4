import { type Answer, pending, type Request, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { scriptedModel } from "./testing.js";
import type { RunEvent } from "./types.js";

function deployTool(log: ToolContext[]) {
  return nativeTool({
    name: "deploy",
    description: "Deploy, asking which environment first",
    ctx: true,
    run: (_args, ctx) => {
      log.push(ctx);
      if (ctx.answer === undefined) return pending({ kind: "input", prompt: "Which environment?" });
      return `deployed to ${String(ctx.answer.data?.env)}`;
    },
  });
}

const deployOnce = () =>
  scriptedModel([
    { toolCalls: [{ id: "c1", name: "deploy", arguments: { app: "web" } }] },
    { content: "Done." },
  ]);

describe("waitFor: in-process suspension", () => {
  it("ok: re-runs the same tool once with the same args and ctx.answer", async () => {
    const log: ToolContext[] = [];
    const asked: Request[] = [];
    const client = createClient({
      model: deployOnce(),
      tools: [deployTool(log)],
      waitFor: (request) => {
        asked.push(request);
        return { id: request.id, ok: true, data: { env: "staging" } };
      },
    });
    const result = await client.run("ship it");
    expect(result.status).toBe("done");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: "input", prompt: "Which environment?" });
    expect(log).toHaveLength(2);
    expect(log[0]!.answer).toBeUndefined();
    expect(log[1]!.answer).toEqual({ id: asked[0]!.id, ok: true, data: { env: "staging" } });
    expect(log[1]!.callId).toBe("c1");
    expect(result.messages.filter((m) => m.role === "tool")).toEqual([
      {
        role: "tool",
        callId: "c1",
        name: "deploy",
        content: "deployed to staging",
        isError: false,
      },
    ]);
  });

  it("not ok: feeds back declined/expired: <prompt> and does not re-run", async () => {
    const log: ToolContext[] = [];
    const client = createClient({
      model: deployOnce(),
      tools: [deployTool(log)],
      waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }),
    });
    const result = await client.run("ship it");
    expect(result.status).toBe("done");
    expect(log).toHaveLength(1);
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({
      content: "declined/expired: Which environment?",
      isError: true,
    });
  });

  it("a second suspension on the re-execution is the error unresolved: <prompt>; waitFor runs once", async () => {
    let calls = 0;
    let runs = 0;
    const stubborn = nativeTool({
      name: "stubborn",
      description: "always asks",
      run: () => {
        runs++;
        return pending({ kind: "question", prompt: `Question ${runs}?` });
      },
    });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "stubborn" }] },
        { content: "gave up" },
      ]),
      tools: [stubborn],
      waitFor: (request) => {
        calls++;
        return { id: request.id, ok: true };
      },
    });
    const result = await client.run("go");
    expect(calls).toBe(1);
    expect(runs).toBe(2);
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe("unresolved: Question 2?");
  });

  it("resolves several suspensions of one turn independently and concurrently", async () => {
    const waiting: ((answer: Answer) => void)[] = [];
    const requests: Request[] = [];
    const ask = nativeTool({
      name: "ask",
      description: "asks a question",
      input: z.object({ q: z.string() }),
      ctx: true,
      run: ({ q }, ctx) =>
        ctx.answer
          ? `${q}=${String(ctx.answer.data?.v)}`
          : pending({ kind: "question", prompt: q }),
    });
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "a", name: "ask", arguments: { q: "first" } },
            { id: "b", name: "ask", arguments: { q: "second" } },
          ],
        },
        { content: "ok" },
      ]),
      tools: [ask],
      waitFor: (request) =>
        new Promise<Answer>((resolve) => {
          requests.push(request);
          waiting.push(resolve);
          // Both waits are open at once: answer them in reverse order.
          if (waiting.length === 2) {
            waiting[1]!({ id: requests[1]!.id, ok: true, data: { v: 2 } });
            waiting[0]!({ id: requests[0]!.id, ok: false, reason: "declined" });
          }
        }),
    });
    const result = await client.run("go");
    expect(requests.map((r) => r.prompt)).toEqual(["first", "second"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "declined/expired: first",
      "second=2",
    ]);
  });

  it("emits tool_call, then pending before waitFor runs, then tool_result; a suspension is not an error", async () => {
    const order: string[] = [];
    const client = createClient({
      model: deployOnce(),
      tools: [deployTool([])],
      onEvent: (event: RunEvent) => {
        if (event.type === "tool_call") order.push("tool_call");
        if (event.type === "pending") order.push(`pending:${event.request.kind}`);
        if (event.type === "tool_result")
          order.push(`tool_result:${event.record.status}:${event.isError}`);
      },
      waitFor: (request) => {
        order.push("waitFor");
        return { id: request.id, ok: true, data: { env: "prod" } };
      },
    });
    await client.run("go");
    expect(order).toEqual(["tool_call", "pending:input", "waitFor", "tool_result:ok:false"]);
  });

  it("the human's wait never counts against the call's budget, and the retry gets a fresh one", async () => {
    const budgets: (number | undefined)[] = [];
    const tool = nativeTool({
      name: "deploy",
      description: "d",
      ctx: true,
      timeoutMs: 80,
      run: (_a, ctx) => {
        budgets.push(ctx.timeout);
        return ctx.answer ? "deployed" : pending({ kind: "approval", prompt: "Go?" });
      },
    });
    const client = createClient({
      model: deployOnce(),
      tools: [tool],
      timeoutMs: 1000,
      waitFor: async (request) => {
        // Longer than both the call's and the run's budgets.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        return { id: request.id, ok: true };
      },
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe("deployed");
    expect(budgets[0]).toBe(80);
    expect(budgets[1]).toBe(80);
  });

  it("waitTimeoutMs expires the human's wait as reason expired", async () => {
    let seenSignal: AbortSignal | undefined;
    const log: ToolContext[] = [];
    const client = createClient({
      model: deployOnce(),
      tools: [deployTool(log)],
      waitTimeoutMs: 30,
      waitFor: (_request, { signal }) => {
        seenSignal = signal;
        return new Promise<Answer>(() => {});
      },
    });
    const result = await client.run("go");
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe(
      "declined/expired: Which environment?",
    );
    expect(seenSignal?.aborted).toBe(true);
    expect(log).toHaveLength(1);
  });

  it("a Request whose expiresAt has passed resolves as expired without asking", async () => {
    let asked = 0;
    const stale = nativeTool({
      name: "stale",
      description: "d",
      run: () => pending({ kind: "approval", prompt: "Too late?", expiresAt: Date.now() - 1000 }),
    });
    const result = await createClient({
      model: scriptedModel([{ toolCalls: [{ id: "c1", name: "stale" }] }, { content: "ok" }]),
      tools: [stale],
      waitFor: (request) => {
        asked++;
        return { id: request.id, ok: true };
      },
    }).run("go");
    expect(asked).toBe(0);
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe(
      "declined/expired: Too late?",
    );
  });

  it("a waitFor that throws or answers the wrong id becomes an error result, not a crash", async () => {
    const broken = createClient({
      model: deployOnce(),
      tools: [deployTool([])],
      waitFor: () => {
        throw new Error("terminal closed");
      },
    });
    const one = await broken.run("go");
    expect(one.messages.find((m) => m.role === "tool")?.content).toBe(
      'waitFor failed for "Which environment?": terminal closed',
    );
    const wrong = createClient({
      model: deployOnce(),
      tools: [deployTool([])],
      waitFor: () => ({ id: "someone-else", ok: true }),
    });
    const two = await wrong.run("go");
    expect(two.messages.find((m) => m.role === "tool")?.content).toMatch(
      /^waitFor answered request "someone-else" but was asked "pnd_\w+"$/,
    );
  });
});

describe("needsApproval", () => {
  function wipeTool(runs: ToolContext[]) {
    return nativeTool({
      name: "wipe",
      description: "Wipes a disk",
      input: z.object({ disk: z.string() }),
      needsApproval: true,
      ctx: true,
      run: ({ disk }, ctx) => {
        runs.push(ctx);
        return `wiped ${disk}`;
      },
    });
  }
  const wipeOnce = () =>
    scriptedModel([
      { toolCalls: [{ id: "c1", name: "wipe", arguments: { disk: "sdb" } }] },
      { content: "ok" },
    ]);

  it("asks a kind approval Request naming the tool and args before the tool runs", async () => {
    const runs: ToolContext[] = [];
    const asked: Request[] = [];
    const result = await createClient({
      model: wipeOnce(),
      tools: [wipeTool(runs)],
      waitFor: (request) => {
        asked.push(request);
        expect(runs).toHaveLength(0);
        return { id: request.id, ok: true };
      },
    }).run("go");
    expect(asked[0]).toMatchObject({
      kind: "approval",
      prompt: 'Allow wipe to run with {"disk":"sdb"}?',
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.answer).toEqual({ id: asked[0]!.id, ok: true });
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe("wiped sdb");
  });

  it("never runs the tool without an ok answer", async () => {
    const runs: ToolContext[] = [];
    const result = await createClient({
      model: wipeOnce(),
      tools: [wipeTool(runs)],
      waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }),
    }).run("go");
    expect(runs).toHaveLength(0);
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe(
      'declined/expired: Allow wipe to run with {"disk":"sdb"}?',
    );
  });
});
