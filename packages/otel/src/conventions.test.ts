// The GenAI conventions' exact names and values: provider, finish reasons, system instructions,
// the tool type on tool metrics, and the `exception` event of a tool that throws.
import { SpanStatusCode } from "@opentelemetry/api";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Model, ModelResponse, Tool } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelInstrumentation } from "./index.js";
import {
  everythingRecorded,
  exporter,
  finished,
  installTracing,
  spanNamed,
  testMeter,
} from "./test-sdk.js";

beforeAll(installTracing);
beforeEach(() => exporter.reset());

const SYSTEM = "You are the helper of Alice Example.";
const SECRET_PATH = "/home/alice/.ssh/id_ed25519";

/** A model as an adapter makes one: an id without a prefix, its provider named apart. */
function adapterModel(responses: ModelResponse[]): Model {
  let turn = 0;
  return {
    id: "claude-test",
    provider: "anthropic",
    async generate() {
      const response = responses[turn++];
      if (response === undefined) throw new Error("no more turns");
      return response;
    },
  };
}

const lookup = nativeTool({ name: "lookup", description: "looks up", run: () => "found" });

describe("GenAI conventions", () => {
  it("gen_ai.provider.name comes from the adapter when the model id has no prefix", async () => {
    const { meter, collect } = testMeter();
    const client = createClient({
      model: adapterModel([{ text: "hi", toolCalls: [], stopReason: "stop" }]),
      instrumentation: otelInstrumentation({ meter }),
    });
    await client.run("hello");
    for (const name of ["invoke_agent", "chat claude-test"]) {
      expect(spanNamed(name).attributes).toMatchObject({
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-test",
      });
    }
    const measured = await collect();
    for (const metric of ["gen_ai.client.operation.duration", "gen_ai.invoke_agent.duration"]) {
      expect(measured.get(metric)?.series[0]?.attributes["gen_ai.provider.name"]).toBe("anthropic");
    }
  });

  it("the providerName option wins over the adapter's provider and the id's prefix", async () => {
    const client = createClient({
      model: adapterModel([{ text: "hi", toolCalls: [] }]),
      instrumentation: otelInstrumentation({ providerName: "aws.bedrock" }),
    });
    await client.run("hello");
    expect(spanNamed("invoke_agent").attributes["gen_ai.provider.name"]).toBe("aws.bedrock");
  });

  it("a tool-call turn finishes with `tool_call`, whatever the provider called it", async () => {
    const client = createClient({
      model: adapterModel([
        {
          text: "",
          toolCalls: [{ id: "t1", name: "lookup", args: {}, rawArgs: "{}" }],
          finishReason: "tool_use",
          stopReason: "tool_calls",
        },
        { text: "done", toolCalls: [], finishReason: "end_turn", stopReason: "stop" },
      ]),
      tools: [lookup],
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("hello");
    const chats = finished().filter((span) => span.name === "chat claude-test");
    const byTurn = (turn: number) =>
      chats.find((span) => span.attributes["toolnexus.turn"] === turn)!;
    expect(byTurn(1).attributes["gen_ai.response.finish_reasons"]).toEqual(["tool_call"]);
    expect(byTurn(2).attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    const output = JSON.parse(String(byTurn(1).attributes["gen_ai.output.messages"]));
    expect(output[0].finish_reason).toBe("tool_call");
  });

  it("maps a provider's own reasons when no normalized one is given", async () => {
    const client = createClient({
      model: adapterModel([{ text: "cut", toolCalls: [], finishReason: "MAX_TOKENS" }]),
      instrumentation: otelInstrumentation(),
    });
    await client.run("hello");
    expect(spanNamed("chat claude-test").attributes["gen_ai.response.finish_reasons"]).toEqual([
      "length",
    ]);
  });

  it("puts the system prompt in gen_ai.system_instructions, not in gen_ai.input.messages", async () => {
    const client = createClient({
      model: scriptedModel([{ content: "hi" }], { id: "openai:gpt-test" }),
      systemPrompt: SYSTEM,
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("hello");
    for (const name of ["invoke_agent", "chat gpt-test"]) {
      const { attributes } = spanNamed(name);
      expect(JSON.parse(String(attributes["gen_ai.system_instructions"]))).toEqual([
        { type: "text", content: SYSTEM },
      ]);
      expect(JSON.parse(String(attributes["gen_ai.input.messages"]))).toEqual([
        { role: "user", parts: [{ type: "text", content: "hello" }] },
      ]);
    }
  });

  it("records no system prompt by default", async () => {
    const client = createClient({
      model: scriptedModel([{ content: "hi" }]),
      systemPrompt: SYSTEM,
      instrumentation: otelInstrumentation(),
    });
    await client.run("hello");
    expect(everythingRecorded().filter((value) => value.includes("Alice"))).toEqual([]);
    expect(spanNamed("invoke_agent").attributes["gen_ai.system_instructions"]).toBeUndefined();
  });

  it("gen_ai.execute_tool.duration carries gen_ai.tool.type", async () => {
    const { meter, collect } = testMeter();
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "t1", name: "lookup" }] }, { content: "ok" }]),
      tools: [lookup],
      instrumentation: otelInstrumentation({ meter }),
    });
    await client.run("hello");
    const series = (await collect()).get("gen_ai.execute_tool.duration")?.series;
    expect(series?.map((s) => s.attributes)).toEqual([
      { "gen_ai.tool.name": "lookup", "gen_ai.tool.type": "function" },
    ]);
  });
});

describe("a tool that throws", () => {
  const broken = nativeTool({
    name: "broken",
    description: "throws",
    run: () => {
      throw new RangeError(`cannot read ${SECRET_PATH}`);
    },
  });
  const model = () =>
    scriptedModel([{ toolCalls: [{ id: "b1", name: "broken" }] }, { content: "sorry" }]);

  it("gets an exception event with its type, and no message by default", async () => {
    const client = createClient({
      model: model(),
      tools: [broken],
      instrumentation: otelInstrumentation(),
    });
    await client.run("hello");
    const span = spanNamed("execute_tool broken");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe("tool_error");
    const exceptions = span.events.filter((event) => event.name === "exception");
    expect(exceptions).toHaveLength(1);
    expect(exceptions[0]!.attributes).toEqual({ "exception.type": "RangeError" });
    expect(everythingRecorded().filter((value) => value.includes(SECRET_PATH))).toEqual([]);
  });

  it("gets the message and stack with recordContent: true", async () => {
    const client = createClient({
      model: model(),
      tools: [broken],
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("hello");
    const [exception] = spanNamed("execute_tool broken").events.filter(
      (event) => event.name === "exception",
    );
    expect(exception?.attributes).toMatchObject({
      "exception.type": "RangeError",
      "exception.message": `cannot read ${SECRET_PATH}`,
    });
    expect(String(exception?.attributes?.["exception.stacktrace"])).toContain("RangeError");
  });

  it("a plain Tool object that throws (no nativeTool around it) gets the event too", async () => {
    const raw: Tool = {
      name: "raw",
      description: "throws a TypeError",
      source: "native",
      inputSchema: { type: "object" },
      execute: () => {
        throw new TypeError("no");
      },
    };
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "r1", name: "raw" }] }, { content: "ok" }]),
      tools: [raw],
      instrumentation: otelInstrumentation(),
    });
    await client.run("hello");
    const [exception] = spanNamed("execute_tool raw").events.filter(
      (event) => event.name === "exception",
    );
    expect(exception?.attributes).toEqual({ "exception.type": "TypeError" });
  });

  it("a tool error returned, not thrown, gets no exception event", async () => {
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "e1", name: "failing" }] }, { content: "ok" }]),
      tools: [
        nativeTool({
          name: "failing",
          description: "returns an error",
          run: () => ({ output: "no such record", isError: true }),
        }),
      ],
      instrumentation: otelInstrumentation(),
    });
    await client.run("hello");
    const span = spanNamed("execute_tool failing");
    expect(span.attributes["error.type"]).toBe("tool_error");
    expect(span.events.filter((event) => event.name === "exception")).toEqual([]);
  });
});
