// What a new user trips over in the loop: a stream from a model that cannot stream, the error
// for an answer that reaches a process whose in-memory store never saw the request, and a
// tool's own approval prompt.
import { ok, SuspensionNotFoundError, type Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { inProcessModel } from "./in-process-model.js";
import { memoryRunStore } from "./memory-stores.js";
import type { RunEvent } from "./types.js";

const add: Tool = {
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  source: "custom",
  execute: async (args) => ok(String(Number(args.a) + Number(args.b))),
};

/** The client README's calculator: a model without `stream`. */
const calculator = () =>
  inProcessModel({
    id: "calculator",
    generate: ({ messages }) => {
      const last = messages.at(-1);
      return last?.role === "tool"
        ? { content: `The sum is ${last.content}.` }
        : { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] };
    },
  });

describe("client.stream with a model that cannot stream", () => {
  it("emits each turn's text as one text event, so the README's stream example prints the answer", async () => {
    const client = createClient({ model: calculator(), tools: [add] });
    const events: RunEvent[] = [];
    for await (const event of client.stream("What is 2 + 3?")) events.push(event);
    const texts = events.flatMap((event) => (event.type === "text" ? [event] : []));
    // The tool-call turn has no text, so it sends none; the answer arrives whole.
    expect(texts).toEqual([{ type: "text", delta: "The sum is 5.", turn: 2 }]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.result.text).toBe("The sum is 5.");
    // The text event comes before the turn's message and the done event.
    const order = events.map((event) => event.type);
    expect(order.indexOf("text")).toBeLessThan(order.lastIndexOf("message"));
  });

  it("run() still sends no text events (only a stream does)", async () => {
    const events: RunEvent[] = [];
    await createClient({
      model: calculator(),
      tools: [add],
      onEvent: (event) => events.push(event),
    }).run("What is 2 + 3?");
    expect(events.some((event) => event.type === "text")).toBe(false);
  });
});

describe("an answer the store does not know", () => {
  const deploy: Tool = {
    name: "deploy",
    description: "Deploy",
    inputSchema: { type: "object", properties: { env: { type: "string" } } },
    source: "custom",
    needsApproval: true,
    execute: async () => ok("deployed"),
  };
  const deployModel = () =>
    inProcessModel({
      id: "m",
      generate: ({ messages }) =>
        messages.at(-1)?.role === "tool"
          ? { content: "done" }
          : { toolCalls: [{ name: "deploy", arguments: { env: "prod" } }] },
    });

  it("with the default in-memory store, says so and names the durable stores", async () => {
    // The run halts in one "process" (client); the answer arrives at another.
    const first = createClient({ model: deployModel(), tools: [deploy] });
    const halted = await first.run("ship it");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const other = createClient({ model: deployModel(), tools: [deploy] });
    for (const attempt of [
      other.resume({ id: halted.pending.id, ok: true }),
      other.answer({ id: halted.pending.id, ok: true }),
    ]) {
      const error = await attempt.catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(SuspensionNotFoundError);
      const { message } = error as Error;
      expect(message).toContain(halted.pending.id);
      expect(message).toContain("default in-memory run store");
      expect(message).toContain("lost when its process ends");
      expect(message).toContain("@toolnexus/store-sqlite");
      expect(message).toContain("@toolnexus/store-postgres");
    }
  });

  it("with a store the user chose, keeps the plain message", async () => {
    const client = createClient({ model: deployModel(), tools: [deploy], runs: memoryRunStore() });
    for (const attempt of [
      client.resume({ id: "pnd_nope", ok: true }),
      client.answer({ id: "pnd_nope", ok: true }),
    ]) {
      const error = await attempt.catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(SuspensionNotFoundError);
      expect((error as Error).message).not.toContain("in-memory");
    }
  });
});

describe("a tool's own approval prompt", () => {
  const model = () =>
    inProcessModel({
      id: "m",
      generate: ({ messages }) =>
        messages.at(-1)?.role === "tool"
          ? { content: "done" }
          : { toolCalls: [{ name: "deploy", arguments: { env: "prod", version: "1.4.2" } }] },
    });
  const deploy = (approvalPrompt?: Tool["approvalPrompt"]): Tool => ({
    name: "deploy",
    description: "Deploy",
    inputSchema: { type: "object" },
    source: "custom",
    needsApproval: true,
    ...(approvalPrompt === undefined ? {} : { approvalPrompt }),
    execute: async () => ok("deployed"),
  });

  it("is the Request's prompt, made from the call's arguments", async () => {
    const client = createClient({
      model: model(),
      tools: [deploy((args) => `Deploy ${String(args.version)} to ${String(args.env)}?`)],
    });
    const halted = await client.run("ship it");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pending).toMatchObject({ kind: "approval", prompt: "Deploy 1.4.2 to prod?" });
    // A refusal reaches the model with the same prompt.
    const done = await client.resume({ id: halted.pending.id, ok: false });
    expect(done.messages.find((m) => m.role === "tool")?.content).toContain(
      "Deploy 1.4.2 to prod?",
    );
  });

  it("falls back to the default when it throws or returns nothing", async () => {
    for (const broken of [
      () => {
        throw new Error("oops");
      },
      () => "  ",
    ]) {
      const halted = await createClient({ model: model(), tools: [deploy(broken)] }).run("go");
      if (halted.status !== "pending") throw new Error("expected a halt");
      expect(halted.pending.prompt).toBe(
        'Allow deploy to run with {"env":"prod","version":"1.4.2"}?',
      );
    }
  });
});
