import { pending, type Tool, type ToolContext, type ToolResult } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { agentTool } from "./agent-tool.js";
import { createClient } from "./client.js";
import { DEFAULT_MAX_CONCURRENT_TOOLS, DEFAULT_MAX_TOOL_CALLS_PER_TURN } from "./config.js";
import { inProcessModel } from "./in-process-model.js";
import { scriptedModel } from "./testing.js";

/** A tool that counts how many of its executions are in flight at once. */
function gauge() {
  const state = { inFlight: 0, max: 0, ran: 0 };
  const tool: Tool = {
    name: "fetch",
    description: "pretends to fetch a URL",
    inputSchema: { type: "object" },
    source: "custom",
    async execute(args): Promise<ToolResult> {
      state.inFlight++;
      state.max = Math.max(state.max, state.inFlight);
      // Stay in flight across a few turns of the event loop, so overlapping calls overlap.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      state.inFlight--;
      state.ran++;
      return { output: `fetched ${String((args as { n: number }).n)}`, isError: false };
    },
  };
  return { state, tool };
}

function fanOut(count: number) {
  return scriptedModel([
    {
      toolCalls: Array.from({ length: count }, (_, n) => ({
        id: `c${n}`,
        name: "fetch",
        arguments: { n },
      })),
    },
    { content: "done" },
  ]);
}

describe("caps on a turn's tool calls", () => {
  it("runs at most 16 at once and 128 per turn by default; the rest get a result naming the cap", async () => {
    const { state, tool } = gauge();
    const client = createClient({ model: fanOut(10_000), tools: [tool] });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(state.max).toBe(DEFAULT_MAX_CONCURRENT_TOOLS);
    expect(state.ran).toBe(DEFAULT_MAX_TOOL_CALLS_PER_TURN);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results).toHaveLength(10_000);
    // Every call gets exactly one result, in call order, paired by the provider's id.
    expect(results.map((m) => m.callId)).toEqual(Array.from({ length: 10_000 }, (_, n) => `c${n}`));
    expect(results[127]).toMatchObject({ content: "fetched 127", isError: false });
    expect(results[128]).toMatchObject({
      isError: true,
      content:
        "not run: this turn asked for 10000 tool calls and at most 128 are run per turn (maxToolCallsPerTurn); ask for the rest in a later turn",
    });
    expect(results.filter((m) => m.isError)).toHaveLength(10_000 - 128);
  }, 120_000);

  it("never has more than maxConcurrentTools in flight when all 10,000 calls may run", async () => {
    const { state, tool } = gauge();
    const client = createClient({
      model: fanOut(10_000),
      tools: [tool],
      maxConcurrentTools: 8,
      maxToolCallsPerTurn: 10_000,
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(state.ran).toBe(10_000);
    expect(state.max).toBe(8);
    expect(state.inFlight).toBe(0);
  }, 120_000);

  it("holds for durable runs too, and journals the refused calls like any other", async () => {
    const { state, tool } = gauge();
    const client = createClient({
      model: fanOut(300),
      tools: [tool],
      maxConcurrentTools: 4,
      maxToolCallsPerTurn: 200,
    });
    const result = await client.run("go", { durable: true });
    expect(result.status).toBe("done");
    expect(state.max).toBe(4);
    expect(state.ran).toBe(200);
    expect(result.toolCalls.filter((record) => record.status === "error")).toHaveLength(100);
    expect((await client.getRun(result.runId))?.state).toBe("done");
  }, 120_000);

  it("refuses caps that are not whole numbers of at least 1", () => {
    const model = fanOut(1);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createClient({ model, maxConcurrentTools: bad })).toThrow(
        /maxConcurrentTools must be a whole number of at least 1/,
      );
      expect(() => createClient({ model, maxToolCallsPerTurn: bad })).toThrow(
        /maxToolCallsPerTurn must be a whole number of at least 1/,
      );
    }
  });

  it("is per run: each sub-agent run has its own client's limits, and holds one parent slot", async () => {
    const { state, tool } = gauge();
    // Every child run asks for 10 fetches, then answers.
    const childModel = inProcessModel({
      id: "child",
      generate: (request) =>
        request.messages[request.messages.length - 1]?.role === "tool"
          ? { content: "fetched all" }
          : {
              toolCalls: Array.from({ length: 10 }, (_, n) => ({
                id: `f${n}`,
                name: "fetch",
                arguments: { n },
              })),
            },
    });
    const child = createClient({ model: childModel, tools: [tool], maxConcurrentTools: 2 });
    const research = agentTool(child, { name: "research", description: "researches" });
    const parent = createClient({
      model: scriptedModel([
        {
          toolCalls: Array.from({ length: 10 }, (_, n) => ({
            id: `r${n}`,
            name: "research",
            arguments: { prompt: `topic ${n}` },
          })),
        },
        { content: "done" },
      ]),
      tools: [research],
      maxConcurrentTools: 3,
    });
    const result = await parent.run("go");
    expect(result.status).toBe("done");
    expect(state.ran).toBe(100);
    // 3 child runs at once, each with 2 fetches in flight: 3 × 2, never more.
    expect(state.max).toBe(6);
  }, 120_000);

  it("re-runs a halted turn's answered calls under the same limit", async () => {
    const { state, tool } = gauge();
    const asking: Tool = {
      ...tool,
      execute: async (args, ctx?: ToolContext) =>
        ctx?.answer === undefined
          ? pending({ kind: "approval", prompt: "fetch?" })
          : tool.execute(args, ctx),
    };
    const client = createClient({ model: fanOut(40), tools: [asking], maxConcurrentTools: 4 });
    const halted = await client.run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pendings).toHaveLength(40);
    for (const request of halted.pendings) await client.answer({ id: request.id, ok: true });
    const done = await client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(state.ran).toBe(40);
    expect(state.max).toBe(4);
  }, 120_000);
});
