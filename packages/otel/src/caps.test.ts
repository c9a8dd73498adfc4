// Every string a run records is capped: content at `maxContentChars`, everything else at
// `maxAttributeChars`, whatever size the model's ids or a tool's output come in.
import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createClient } from "@toolnexus/client";
import { type Model, type ModelResponse, pending, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelInstrumentation } from "./index.js";
import { exporter, finished, installTracing, spanNamed, testMeter } from "./test-sdk.js";

beforeAll(installTracing);
beforeEach(() => exporter.reset());

const MiB = 1024 * 1024;
const ATTRIBUTE_CAP = 4096;
const CONTENT_CAP = 32 * 1024;
const CONTENT = new Set([
  "gen_ai.system_instructions",
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
  "toolnexus.request.prompt",
  // A failed tool's exception is content; a failed model call's is capped like the rest (below).
  "exception.message",
  "exception.stacktrace",
]);
const CUT = /…\[cut: \d+ characters\]$/;

/** A model that plays the given responses in order. */
function model(responses: ModelResponse[]): Model {
  let turn = 0;
  return {
    id: "openai:gpt-test",
    async generate() {
      const response = responses[turn++];
      if (response === undefined) throw new Error("no more turns");
      return response;
    },
  };
}

/** Every recorded string with the cap it must keep: [where, length, cap]. */
function recorded(
  caps: { attribute: number; content: number },
  spans: ReadableSpan[] = finished(),
): [string, number, number][] {
  const found: [string, number, number][] = [];
  const add = (where: string, attributes: Attributes | undefined) => {
    for (const [key, value] of Object.entries(attributes ?? {})) {
      const cap = CONTENT.has(key) ? caps.content : caps.attribute;
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === "string") found.push([`${where} ${key}`, item.length, cap]);
      }
    }
  };
  for (const span of spans) {
    found.push([`${span.name} (name)`, span.name.length, caps.attribute]);
    if (span.status.message !== undefined) {
      // A failed tool's status is its output: content.
      found.push([`${span.name} status`, span.status.message.length, caps.content]);
    }
    add(span.name, span.attributes);
    for (const event of span.events) add(`${span.name} ${event.name}`, event.attributes);
    for (const link of span.links) add(`${span.name} link`, link.attributes);
  }
  return found;
}

function overCap(caps: { attribute: number; content: number }): string[] {
  return recorded(caps)
    .filter(([, length, cap]) => length > cap)
    .map(([where, length, cap]) => `${where}: ${length} > ${cap}`);
}

function total(): number {
  return recorded({ attribute: 0, content: 0 }).reduce((sum, [, length]) => sum + length, 0);
}

describe("string caps", () => {
  it("recordContent: a huge tool output and huge model-made arguments are cut to the content cap", async () => {
    const big = nativeTool({
      name: "big",
      description: "returns a lot",
      input: { type: "object" },
      run: () => "y".repeat(8 * MiB),
    });
    const rawArgs = JSON.stringify({ blob: "z".repeat(4 * MiB) });
    const client = createClient({
      model: model([
        {
          id: "r1",
          text: "",
          toolCalls: [toolCall("c1", "big", rawArgs)],
          finishReason: "tool_calls",
        },
        { id: "r2", text: "w".repeat(2 * MiB), toolCalls: [], finishReason: "stop" },
      ]),
      tools: [big],
      systemPrompt: "s".repeat(MiB),
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("p".repeat(MiB));
    expect(overCap({ attribute: ATTRIBUTE_CAP, content: CONTENT_CAP })).toEqual([]);

    const tool = spanNamed("execute_tool big");
    const result = String(tool.attributes["gen_ai.tool.call.result"]);
    expect(result).toHaveLength(CONTENT_CAP);
    expect(result).toMatch(/^y+…\[cut: \d+ characters\]$/);
    const args = String(tool.attributes["gen_ai.tool.call.arguments"]);
    expect(args).toHaveLength(CONTENT_CAP);
    expect(args).toMatch(/^\{"blob":"z+…\[cut: \d+ characters\]$/);

    // The message attributes stay JSON, with the cut inside.
    const run = spanNamed("invoke_agent");
    const output = JSON.parse(String(run.attributes["gen_ai.output.messages"]));
    expect(output[0].parts[0].content).toMatch(CUT);
    for (const span of finished()) {
      for (const key of [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
      ]) {
        const value = span.attributes[key];
        if (value !== undefined) expect(() => JSON.parse(String(value))).not.toThrow();
      }
    }
    // Three chat spans' worth of content at most, not megabytes.
    expect(total()).toBeLessThan(12 * CONTENT_CAP);
  });

  it("each chat span carries the newest part of the transcript, within the content cap", async () => {
    const mb = nativeTool({ name: "mb", description: "a MiB", run: () => "y".repeat(MiB) });
    const responses: ModelResponse[] = [];
    // Nine turns that call a tool, then the answer: ten model calls (the default turn limit).
    for (let turn = 1; turn <= 9; turn++) {
      responses.push({
        id: `r${turn}`,
        text: "",
        toolCalls: [toolCall(`c${turn}`, "mb", "{}")],
        finishReason: "tool_calls",
      });
    }
    responses.push({ id: "rz", text: "ok", toolCalls: [], finishReason: "stop" });
    const client = createClient({
      model: model(responses),
      tools: [mb],
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("x");
    expect(overCap({ attribute: ATTRIBUTE_CAP, content: CONTENT_CAP })).toEqual([]);
    const chats = finished().filter((span) => span.name === "chat gpt-test");
    expect(chats).toHaveLength(10);
    const last = chats.find((span) => span.attributes["toolnexus.turn"] === 10)!;
    const input = JSON.parse(String(last.attributes["gen_ai.input.messages"]));
    // The newest message is the last tool result, cut; the older ones were left out and counted.
    expect(input.at(-1).parts[0]).toMatchObject({ type: "tool_call_response", id: "c9" });
    expect(input.at(-1).parts[0].response).toMatch(CUT);
    expect(input.length + Number(last.attributes["toolnexus.input.messages.omitted"])).toBe(19);
    // Ten chat spans, nine tool spans: not 45 MiB.
    expect(total()).toBeLessThan(25 * CONTENT_CAP);
  });

  it("without recordContent, model-chosen ids and reasons are cut to the attribute cap", async () => {
    // The client takes ids, names and finish reasons of up to 256 characters from a model
    // (MAX_MODEL_ID_CHARS); with a cap below that, each is cut here.
    const CAP = 100;
    const q = nativeTool({ name: "q", description: "q", run: () => "ok" });
    const { meter, collect } = testMeter();
    const client = createClient({
      model: model([
        {
          id: "R".repeat(256),
          text: "",
          toolCalls: [toolCall("C".repeat(256), "q", "{}")],
          finishReason: "tool_calls",
        },
        { id: "r2", text: "ok", toolCalls: [], finishReason: "F".repeat(256) },
      ]),
      tools: [q],
      instrumentation: otelInstrumentation({ meter, maxAttributeChars: CAP }),
    });
    await client.run("x", { sessionId: "S".repeat(1000) });
    expect(overCap({ attribute: CAP, content: CAP })).toEqual([]);
    const tool = spanNamed("execute_tool q");
    expect(String(tool.attributes["gen_ai.tool.call.id"])).toHaveLength(CAP);
    expect(String(tool.attributes["gen_ai.tool.call.id"])).toMatch(/^C+…\[cut: \d+ characters\]$/);
    const chats = finished().filter((span) => span.name === "chat gpt-test");
    const ids = chats.map((span) => String(span.attributes["gen_ai.response.id"]).length);
    expect(Math.max(...ids)).toBe(CAP);
    const reasons = chats.flatMap(
      (span) => (span.attributes["gen_ai.response.finish_reasons"] as string[] | undefined) ?? [],
    );
    expect(Math.max(...reasons.map((reason) => reason.length))).toBe(CAP);
    // A session id is the host's, not the model's: over this cap, cut as well.
    expect(String(spanNamed("invoke_agent").attributes["gen_ai.conversation.id"])).toMatch(CUT);
    await collect();
  });

  it("with the default cap, an id under it is whole", async () => {
    const client = createClient({
      model: model([{ id: "R".repeat(256), text: "ok", toolCalls: [], finishReason: "stop" }]),
      instrumentation: otelInstrumentation(),
    });
    await client.run("x", { sessionId: "S".repeat(1000) });
    expect(overCap({ attribute: ATTRIBUTE_CAP, content: CONTENT_CAP })).toEqual([]);
    expect(spanNamed("invoke_agent").attributes["gen_ai.conversation.id"]).toBe("S".repeat(1000));
    const chat = finished().find((span) => span.name === "chat gpt-test");
    expect(chat?.attributes["gen_ai.response.id"]).toBe("R".repeat(256));
  });

  it("a failed model call's error type, message and exception are cut; so are metric attributes", async () => {
    const { meter, collect } = testMeter();
    const failing: Model = {
      id: "openai:gpt-test",
      async generate() {
        throw Object.assign(new Error("m".repeat(MiB)), { code: "E".repeat(MiB) });
      },
    };
    const client = createClient({
      model: failing,
      instrumentation: otelInstrumentation({ meter }),
    });
    await expect(client.run("x")).rejects.toThrow();
    expect(overCap({ attribute: ATTRIBUTE_CAP, content: ATTRIBUTE_CAP })).toEqual([]);
    const chat = spanNamed("chat gpt-test");
    expect(chat.status.message).toHaveLength(ATTRIBUTE_CAP);
    const exception = chat.events.find((event) => event.name === "exception")!;
    expect(String(exception.attributes?.["exception.type"]).length).toBeLessThanOrEqual(
      ATTRIBUTE_CAP,
    );
    expect(String(exception.attributes?.["exception.message"])).toMatch(CUT);
    const measured = await collect();
    for (const { series } of measured.values()) {
      for (const { attributes } of series) {
        for (const value of Object.values(attributes)) {
          if (typeof value === "string") expect(value.length).toBeLessThanOrEqual(ATTRIBUTE_CAP);
        }
      }
    }
  });

  it("a suspension's prompt (content) and a failed tool's output and exception are cut", async () => {
    const asks = nativeTool({
      name: "asks",
      description: "asks",
      ctx: true,
      run: (_args, ctx) =>
        ctx.answer ? "answered" : pending({ kind: "input", prompt: "?".repeat(MiB) }),
    });
    const throws = nativeTool({
      name: "throws",
      description: "throws",
      run: () => {
        throw new Error("e".repeat(MiB));
      },
    });
    const client = createClient({
      model: model([
        {
          id: "r1",
          text: "",
          toolCalls: [toolCall("c1", "asks", "{}"), toolCall("c2", "throws", "{}")],
          finishReason: "tool_calls",
        },
        { id: "r2", text: "done", toolCalls: [], finishReason: "stop" },
      ]),
      tools: [asks, throws],
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    const halted = await client.run("x", { durable: true });
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    await client.resume({ id: halted.pending.id, ok: true });
    expect(overCap({ attribute: ATTRIBUTE_CAP, content: CONTENT_CAP })).toEqual([]);
    const prompts = finished()
      .flatMap((span) => span.events)
      .map((event) => event.attributes?.["toolnexus.request.prompt"])
      .filter((prompt) => prompt !== undefined);
    expect(prompts.length).toBeGreaterThan(0);
    for (const prompt of prompts) expect(String(prompt)).toHaveLength(CONTENT_CAP);
    const thrower = finished().find((span) => span.name === "execute_tool throws")!;
    expect(thrower.status.message).toHaveLength(CONTENT_CAP);
    const exception = thrower.events.find((event) => event.name === "exception")!;
    expect(String(exception.attributes?.["exception.message"])).toHaveLength(CONTENT_CAP);
  });
});

describe("maxAttributeChars and maxContentChars", () => {
  it("set the caps", async () => {
    const big = nativeTool({ name: "big", description: "b", run: () => "y".repeat(MiB) });
    const client = createClient({
      model: model([
        {
          id: "R".repeat(256),
          text: "",
          toolCalls: [toolCall("C".repeat(256), "big", "{}")],
          finishReason: "tool_calls",
        },
        { id: "r2", text: "ok", toolCalls: [], finishReason: "stop" },
      ]),
      tools: [big],
      instrumentation: otelInstrumentation({
        recordContent: true,
        maxAttributeChars: 100,
        maxContentChars: 1000,
      }),
    });
    await client.run("hello");
    expect(overCap({ attribute: 100, content: 1000 })).toEqual([]);
    const tool = spanNamed("execute_tool big");
    expect(String(tool.attributes["gen_ai.tool.call.id"])).toHaveLength(100);
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toHaveLength(1000);
  });

  it("Infinity records strings whole", async () => {
    const big = nativeTool({ name: "big", description: "b", run: () => "y".repeat(MiB) });
    const client = createClient({
      model: model([
        {
          id: "r1",
          text: "",
          toolCalls: [toolCall("c1", "big", "{}")],
          finishReason: "tool_calls",
        },
        { id: "r2", text: "ok", toolCalls: [], finishReason: "stop" },
      ]),
      tools: [big],
      instrumentation: otelInstrumentation({
        recordContent: true,
        maxAttributeChars: Number.POSITIVE_INFINITY,
        maxContentChars: Number.POSITIVE_INFINITY,
      }),
    });
    await client.run("hello");
    expect(spanNamed("execute_tool big").attributes["gen_ai.tool.call.result"]).toHaveLength(MiB);
  });

  it("are checked when the instrumentation is made", () => {
    for (const bad of [0, 63, 100.5, -1, Number.NaN, "100"]) {
      expect(() => otelInstrumentation({ maxAttributeChars: bad as unknown as number })).toThrow(
        "maxAttributeChars must be a whole number of at least 64, or Infinity",
      );
      expect(() => otelInstrumentation({ maxContentChars: bad as unknown as number })).toThrow(
        "maxContentChars must be a whole number of at least 64, or Infinity",
      );
    }
    expect(() => otelInstrumentation({ maxAttributeChars: 64, maxContentChars: 64 })).not.toThrow();
  });
});
