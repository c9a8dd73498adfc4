import type { Model, ModelStreamPart, RecordedRunEvent } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { toModelResponse } from "./in-process-model.js";
import { memoryRunStore } from "./memory-stores.js";
import { TEXT_EVENT_CHARS } from "./run-recorder.js";
import { scriptedModel } from "./testing.js";
import type { RunEvent } from "./types.js";

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const typesAndData = (events: RecordedRunEvent[]) =>
  events.map((e) => (e.type === "reasoning" || e.type === "text" ? [e.type, e.data] : [e.type]));

/** Two turns that both show reasoning: one calls a tool, one answers. */
function thinkingClient(onEvent?: (event: RunEvent) => void) {
  const add = nativeTool({
    name: "add",
    description: "Adds two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    run: async ({ a, b }) => String(a + b),
  });
  const model = scriptedModel([
    {
      reasoning: "The user wants a sum; use the add tool.",
      toolCalls: [{ id: "call_1", name: "add", arguments: { a: 2, b: 3 } }],
    },
    { reasoning: "The tool said 5.", content: "2 + 3 = 5" },
  ]);
  const store = memoryRunStore();
  return {
    client: createClient({ model, tools: [add], runs: store, ...(onEvent && { onEvent }) }),
    store,
  };
}

const expectedEvents = [
  ["started"],
  ["turn"],
  ["reasoning", { turn: 1, text: "The user wants a sum; use the add tool." }],
  ["tool_call"],
  ["tool_result"],
  ["turn"],
  ["reasoning", { turn: 2, text: "The tool said 5." }],
  ["text", { turn: 2, text: "2 + 3 = 5" }],
  ["done"],
];

describe("reasoning events", () => {
  it("a streamed durable run shows reasoning deltas live and records one event per turn", async () => {
    const { client } = thinkingClient();
    const live: RunEvent[] = await collect(
      client.stream("what is 2 + 3?", { durable: true, runId: "run_r" }),
    );
    const deltas = live.filter((e) => e.type === "reasoning");
    // scriptedModel streams in pieces of 8 characters: several deltas, coalesced when recorded.
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.filter((e) => e.turn === 2).map((e) => e.delta)).toEqual([
      "The tool",
      " said 5.",
    ]);
    expect(typesAndData(await collect(client.follow("run_r")))).toEqual(expectedEvents);
  });

  it("a durable run that does not stream records each turn's reasoning whole, before its text", async () => {
    const seen: RunEvent[] = [];
    const { client } = thinkingClient((event) => seen.push(event));
    const result = await client.run("what is 2 + 3?", { durable: true, runId: "run_g" });
    expect(result.text).toBe("2 + 3 = 5");
    expect(seen.filter((e) => e.type === "reasoning").map((e) => e.delta)).toEqual([
      "The user wants a sum; use the add tool.",
      "The tool said 5.",
    ]);
    expect(typesAndData(await collect(client.follow("run_g")))).toEqual(expectedEvents);
    // The transcript stays as it was: reasoning is shown, never sent back as content.
    for (const message of result.messages)
      expect(JSON.stringify(message)).not.toContain("The tool said");
  });

  it("interleaved reasoning and text become separate events, each capped like text", async () => {
    const long = "r".repeat(TEXT_EVENT_CHARS + 10);
    const parts: ModelStreamPart[] = [
      { type: "reasoning", delta: long.slice(0, 100) },
      { type: "reasoning", delta: long.slice(100) },
      { type: "text", delta: "First, " },
      { type: "reasoning", delta: "then check." },
      { type: "text", delta: "done." },
    ];
    const response = { ...toModelResponse({ content: "First, done." }), reasoning: long };
    const model: Model = {
      id: "thinker",
      async generate() {
        return response;
      },
      async *stream() {
        yield* parts;
        yield { type: "finish", response };
      },
    };
    const client = createClient({ model, runs: memoryRunStore() });
    await collect(client.stream("go", { durable: true, runId: "run_i" }));
    const recorded = typesAndData(await collect(client.follow("run_i")));
    expect(recorded).toEqual([
      ["started"],
      ["turn"],
      ["reasoning", { turn: 1, text: long.slice(0, TEXT_EVENT_CHARS) }],
      ["reasoning", { turn: 1, text: long.slice(TEXT_EVENT_CHARS) }],
      ["text", { turn: 1, text: "First, " }],
      ["reasoning", { turn: 1, text: "then check." }],
      ["text", { turn: 1, text: "done." }],
      ["done"],
    ]);
  });
});
