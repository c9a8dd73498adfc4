// What the loop takes from a model: over-long ids and names fail the turn with a clear
// model_failed before anything is recorded (a durable run stays continuable), and object
// arguments nested past 64 levels get an argsError as raw text does.
import { type ModelResponse, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_MODEL_ID_CHARS } from "./checked-response.js";
import { createClient } from "./client.js";
import { RunError } from "./errors.js";
import { inProcessModel } from "./in-process-model.js";
import { memoryRunStore } from "./memory-stores.js";

let ran = 0;
const quick = nativeTool({
  name: "quick",
  description: "q",
  input: z.object({}).passthrough(),
  run: () => {
    ran++;
    return "fine";
  },
});

/** A model whose first turn is `first`, then says "ok". */
function modelOf(first: ModelResponse) {
  let turn = 0;
  return {
    id: "m",
    generate: async (): Promise<ModelResponse> =>
      turn++ === 0 ? first : { id: "r2", text: "ok", toolCalls: [], finishReason: "stop" },
  };
}

const callsWith = (id: string, name = "quick"): ModelResponse => ({
  id: "r1",
  text: "",
  toolCalls: [toolCall(id, name, "{}")],
  finishReason: "tool_calls",
});

async function failure(promise: Promise<unknown>): Promise<RunError> {
  const thrown = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(RunError);
  return thrown as RunError;
}

describe("a model response the loop cannot record", () => {
  const long = `call_${"x".repeat(70_000)}`;

  for (const durable of [false, true]) {
    it(`a 70,000-character call id fails the turn as model_failed${durable ? ", and the durable run can go on" : ""}`, async () => {
      ran = 0;
      const store = memoryRunStore();
      const client = createClient({ model: modelOf(callsWith(long)), tools: [quick], runs: store });
      const error = await failure(client.run("x", { durable }));
      expect(error.code).toBe("model_failed");
      expect(error.message).toMatch(
        /model m gave an unusable response on turn 1: a tool call id is 70005 characters long \("call_x+"…\); at most 256 are accepted/,
      );
      expect(error.message.length).toBeLessThan(300);
      expect(ran).toBe(0);
      if (durable) {
        const info = await store.getRun(error.runId);
        expect(info?.lastError?.code).toBe("model_failed");
        // The model answers properly the next time: the run continues to its end.
        const done = await client.continueRun(error.runId);
        expect(done.status).toBe("done");
      }
    });
  }

  it("a response id, a finish reason or a tool name over 256 characters fails too; 256 are taken", async () => {
    const name = "n".repeat(MAX_MODEL_ID_CHARS + 1);
    const byName = await failure(createClient({ model: modelOf(callsWith("c1", name)) }).run("x"));
    expect(byName.message).toMatch(/a tool name is 257 characters long/);
    const longId = { ...callsWith("c1"), id: "r".repeat(300) };
    const byId = await failure(createClient({ model: modelOf(longId), tools: [quick] }).run("x"));
    expect(byId.message).toMatch(/its response id is 300 characters long/);
    const longReason = { ...callsWith("c1"), finishReason: "f".repeat(1000) };
    const byReason = await failure(createClient({ model: modelOf(longReason) }).run("x"));
    expect(byReason.message).toMatch(/its finish reason is 1000 characters long/);
    const fits = callsWith("c".repeat(MAX_MODEL_ID_CHARS));
    const done = await createClient({ model: modelOf(fits), tools: [quick] }).run("x");
    expect(done.status).toBe("done");
  });

  it("is checked in the streamed path and under a deadline (hooks, timeoutMs) as well", async () => {
    const streaming = {
      id: "m",
      generate: async () => callsWith(long),
      async *stream() {
        yield { type: "finish" as const, response: callsWith(long) };
      },
    };
    const client = createClient({ model: streaming, tools: [quick] });
    const events: string[] = [];
    const iterate = async () => {
      for await (const event of client.stream("x")) events.push(event.type);
    };
    expect((await failure(iterate())).code).toBe("model_failed");
    expect(events).not.toContain("tool_call");
    const timed = createClient({
      model: modelOf(callsWith(long)),
      tools: [quick],
      timeoutMs: 60_000,
    });
    expect((await failure(timed.run("x"))).code).toBe("model_failed");
  });
});

describe("object arguments nested past 64 levels", () => {
  const nest = (depth: number) => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) value = { inner: value };
    return value;
  };

  for (const durable of [false, true]) {
    it(`give the model an error result and never reach the tool${durable ? " (durable)" : ""}`, async () => {
      ran = 0;
      let turn = 0;
      const model = inProcessModel({
        id: "m",
        generate: () =>
          turn++ === 0
            ? { toolCalls: [{ id: "c1", name: "quick", arguments: nest(200) }] }
            : { content: "ok" },
      });
      const result = await createClient({ model, tools: [quick] }).run("x", { durable });
      expect(result.status).toBe("done");
      expect(ran).toBe(0);
      const toolMessage = result.messages.find((m) => m.role === "tool");
      expect(toolMessage?.content).toContain("arguments nest deeper than 64 levels");
    });
  }

  it("at 64 levels still run the tool", async () => {
    ran = 0;
    let turn = 0;
    const model = inProcessModel({
      id: "m",
      generate: () =>
        turn++ === 0
          ? { toolCalls: [{ id: "c1", name: "quick", arguments: nest(63) }] }
          : { content: "ok" },
    });
    await createClient({ model, tools: [quick] }).run("x");
    expect(ran).toBe(1);
  });
});
