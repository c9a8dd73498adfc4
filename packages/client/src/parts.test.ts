// A tool's content parts (images, resources) through the loop: into the tool message the model
// reads next, through a durable halt and a resume in another client (the checkpoint is JSON),
// and bad parts left out with a note instead of failing the run.
import { type ContentPart, MAX_PARTS, pending, type Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

const PNG = "iVBORw0KGgo=";
const PARTS: ContentPart[] = [
  { type: "text", text: "the chart" },
  { type: "image", mimeType: "image/png", data: PNG },
  { type: "resource", uri: "mem://data.csv", mimeType: "text/csv", text: "a,b\n1,2" },
];

const chart = (parts: unknown): Tool => ({
  name: "chart",
  source: "native",
  description: "Draws a chart",
  inputSchema: { type: "object" },
  execute: async () => ({ output: "the chart", isError: false, parts: parts as ContentPart[] }),
});

const toolMessage = (model: ReturnType<typeof scriptedModel>, turn: number) =>
  model.requests[turn]?.messages.find((m) => m.role === "tool");

describe("tool result parts", () => {
  it("go into the tool message the model reads next, output unchanged", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", name: "chart", arguments: {} }] },
      { content: "done" },
    ]);
    const client = createClient({ model, tools: [chart(PARTS)] });
    const result = await client.run("draw");
    expect(result.status).toBe("done");
    expect(toolMessage(model, 1)).toEqual({
      role: "tool",
      callId: "c1",
      name: "chart",
      content: "the chart",
      isError: false,
      parts: PARTS,
    });
  });

  it("survive a durable halt and a resume in another client", async () => {
    const runs = memoryRunStore();
    const ask: Tool = {
      name: "ask",
      source: "native",
      description: "Asks",
      inputSchema: { type: "object" },
      execute: async (_args, ctx) =>
        ctx?.answer === undefined
          ? pending({ kind: "input", prompt: "Which?" })
          : { output: "this one", isError: false },
    };
    const turns = [
      { toolCalls: [{ id: "c1", name: "chart", arguments: {} }] },
      { toolCalls: [{ id: "c2", name: "ask", arguments: {} }] },
      { content: "done" },
    ];
    const first = createClient({ model: scriptedModel(turns), tools: [chart(PARTS), ask], runs });
    const halted = await first.run("draw, then ask");
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    const model = scriptedModel(turns.slice(2));
    const second = createClient({
      model,
      tools: [chart(PARTS), ask],
      runs: memoryRunStore(),
    });
    // The checkpoint crosses a JSON boundary into a fresh store, as between processes.
    const checkpoint = JSON.parse(JSON.stringify((await runs.getRun(halted.runId))?.checkpoint));
    await second.runs.halt(checkpoint);
    const done = await second.resume({ id: halted.pending.id, ok: true, data: {} });
    expect(done.text).toBe("done");
    const charted = model.requests[0]?.messages.find((m) => m.role === "tool" && m.callId === "c1");
    expect(charted).toMatchObject({ content: "the chart", parts: PARTS });
  });

  it("bad or oversized parts are left out with a note for the model; the run goes on", async () => {
    const tooMany = Array.from({ length: MAX_PARTS + 1 }, () => ({ type: "text", text: "x" }));
    for (const [parts, why] of [
      [[{ type: "image", mimeType: "image/svg+xml", data: PNG }], "part 0: its image type"],
      [tooMany, `${MAX_PARTS + 1} parts, over ${MAX_PARTS}`],
    ] as const) {
      const model = scriptedModel([
        { toolCalls: [{ id: "c1", name: "chart", arguments: {} }] },
        { content: "done" },
      ]);
      const result = await createClient({ model, tools: [chart(parts)] }).run("draw");
      expect(result.status).toBe("done");
      const message = toolMessage(model, 1);
      expect(message?.content).toContain("the chart\n[the tool's content parts were left out: ");
      expect(message?.content).toContain(why);
      expect(message && "parts" in message).toBe(false);
    }
  });
});
