import { metrics } from "@opentelemetry/api";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { nativeTool } from "@toolnexus/native";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelInstrumentation } from "./index.js";
import { exporter, installTracing, type Series, testMeter } from "./test-sdk.js";

beforeAll(installTracing);
beforeEach(() => exporter.reset());
afterEach(() => metrics.disable());

const lookup = nativeTool({ name: "lookup", description: "looks up", run: () => "found" });
const broken = nativeTool({
  name: "broken",
  description: "fails",
  run: () => {
    throw new Error("nope");
  },
});
const slow = nativeTool({
  name: "slow",
  description: "too slow",
  timeoutMs: 10,
  ctx: true,
  run: (_args, ctx) =>
    new Promise((resolve) => ctx.signal?.addEventListener("abort", () => resolve("late"))),
});

function model() {
  return scriptedModel(
    [
      {
        toolCalls: [
          { id: "l", name: "lookup" },
          { id: "b", name: "broken" },
          { id: "s", name: "slow" },
        ],
        usage: { promptTokens: 100, completionTokens: 20 },
      },
      { content: "done", usage: { promptTokens: 150, completionTokens: 8 } },
    ],
    { id: "openai:gpt-test" },
  );
}

function byAttributes(series: Series[] | undefined) {
  return [...(series ?? [])].sort((a, b) =>
    JSON.stringify(a.attributes).localeCompare(JSON.stringify(b.attributes)),
  );
}

describe("metrics", () => {
  it("records operation duration, token usage, tool and agent durations with the conventions' attributes", async () => {
    const { meter, collect } = testMeter();
    const client = createClient({
      model: model(),
      tools: [lookup, broken, slow],
      agent: "helper",
      instrumentation: otelInstrumentation({ meter }),
    });
    await client.run("go");
    const measured = await collect();

    const chat = {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.provider.name": "openai",
    };
    const operation = measured.get("gen_ai.client.operation.duration");
    expect(operation?.unit).toBe("s");
    expect(operation?.boundaries).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);
    expect(operation?.series).toMatchObject([{ attributes: chat, count: 2 }]);

    const tokens = measured.get("gen_ai.client.token.usage");
    expect(tokens?.unit).toBe("{token}");
    expect(tokens?.boundaries[0]).toBe(1);
    expect(byAttributes(tokens?.series)).toEqual(
      byAttributes([
        { attributes: { ...chat, "gen_ai.token.type": "input" }, count: 2, sum: 250 },
        { attributes: { ...chat, "gen_ai.token.type": "output" }, count: 2, sum: 28 },
      ]),
    );

    const tools = measured.get("gen_ai.execute_tool.duration");
    expect(tools?.unit).toBe("s");
    expect(
      byAttributes(tools?.series).map(({ attributes, count }) => ({ attributes, count })),
    ).toEqual(
      byAttributes([
        {
          attributes: {
            "gen_ai.tool.name": "broken",
            "gen_ai.tool.type": "function",
            "gen_ai.agent.name": "helper",
            "error.type": "tool_error",
          },
          count: 1,
          sum: 0,
        },
        {
          attributes: {
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.type": "function",
            "gen_ai.agent.name": "helper",
          },
          count: 1,
          sum: 0,
        },
        {
          attributes: {
            "gen_ai.tool.name": "slow",
            "gen_ai.tool.type": "function",
            "gen_ai.agent.name": "helper",
            "error.type": "timeout",
          },
          count: 1,
          sum: 0,
        },
      ]).map(({ attributes, count }) => ({ attributes, count })),
    );
    const slowSeries = tools?.series.find((s) => s.attributes["gen_ai.tool.name"] === "slow");
    expect(slowSeries?.sum).toBeGreaterThanOrEqual(0.005);

    const agent = measured.get("gen_ai.invoke_agent.duration");
    expect(agent?.unit).toBe("s");
    expect(agent?.boundaries[0]).toBe(0.1);
    expect(agent?.series).toMatchObject([
      {
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.request.model": "gpt-test",
          "gen_ai.provider.name": "openai",
          "gen_ai.agent.name": "helper",
          "toolnexus.run.status": "done",
        },
        count: 1,
      },
    ]);
    // No human was asked: no wait is recorded.
    expect(measured.get("toolnexus.human.wait.duration")?.series ?? []).toEqual([]);
  });

  it("records a failed model call's duration with its error type", async () => {
    const { meter, collect } = testMeter();
    const client = createClient({
      model: {
        id: "openai:gpt-test",
        generate: async () => {
          throw new Error("503");
        },
      },
      instrumentation: otelInstrumentation({ meter }),
    });
    await expect(client.run("go")).rejects.toMatchObject({ code: "model_failed" });
    const measured = await collect();
    expect(measured.get("gen_ai.client.operation.duration")?.series).toMatchObject([
      { attributes: { "error.type": "model_failed", "gen_ai.operation.name": "chat" }, count: 1 },
    ]);
    expect(measured.get("gen_ai.invoke_agent.duration")?.series).toMatchObject([
      { attributes: { "error.type": "model_failed", "toolnexus.run.status": "error" }, count: 1 },
    ]);
    expect(measured.get("gen_ai.client.token.usage")?.series ?? []).toEqual([]);
  });

  it("takes the global meter on the first run, so the SDK may be registered after the client is made", async () => {
    const instrumentation = otelInstrumentation();
    const client = createClient({ model: scriptedModel([{ content: "hi" }]), instrumentation });
    const { provider, collect } = testMeter();
    metrics.setGlobalMeterProvider(provider);
    await client.run("hello");
    const measured = await collect();
    expect(measured.get("gen_ai.invoke_agent.duration")?.series).toHaveLength(1);
    expect(measured.get("gen_ai.client.operation.duration")?.series).toHaveLength(1);
  });
});
