import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Model, type ModelRequest, type ModelResponse, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendAssistant } from "./assistant-turn.js";
import { createClient } from "./client.js";
import { Run } from "./run-state.js";

// A full GC that falls between runs must not throw away the loop's compiled code. V8 drops a
// hidden class no live object has, with the optimized code that uses it; Run.shapes keeps one
// object of each (run-state.ts). Checked with V8's own status bits: a function optimized
// before two full GCs with no run alive is still optimized after them.
setFlagsFromString("--allow-natives-syntax");
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const prepare = new Function("f", "%PrepareFunctionForOptimization(f)") as (f: unknown) => void;
const optimizeNext = new Function("f", "%OptimizeFunctionOnNextCall(f)") as (f: unknown) => void;
const status = new Function("f", "return %GetOptimizationStatus(f)") as (f: unknown) => number;
// V8's OptimizationStatus: bit 4 is "optimized" (TurboFan or Maglev code installed).
const OPTIMIZED = 1 << 4;

function oneCallClient() {
  const add = nativeTool({
    name: "add",
    description: "adds",
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });
  let n = 0;
  const model: Model = {
    id: "m",
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const last = request.messages[request.messages.length - 1]!;
      n++;
      return last.role === "tool"
        ? { id: `r${n}`, text: "5", toolCalls: [], finishReason: "stop" }
        : {
            id: `r${n}`,
            text: "",
            toolCalls: [toolCall("c1", "add", '{"a":2,"b":3}')],
            finishReason: "tool_calls",
          };
    },
  };
  return createClient({ model, tools: [add] });
}

describe("the loop's compiled code across a full GC between runs", () => {
  it("keeps one never-run Run and messages of the common shapes, holding no client", () => {
    const [run, ...messages] = Run.shapes;
    expect(run).toBeInstanceOf(Run);
    expect((run as Run).messages).toEqual([]);
    expect(messages.map((m) => (m as { role: string }).role)).toEqual([
      "system",
      "user",
      "assistant",
      "assistant",
      "tool",
    ]);
  });

  it("still has appendAssistant optimized after two full GCs with no run alive", async () => {
    const client = oneCallClient();
    for (let i = 0; i < 50; i++) expect((await client.run("2 + 3?")).text).toBe("5");
    prepare(appendAssistant);
    await client.run("2 + 3?");
    optimizeNext(appendAssistant);
    await client.run("2 + 3?");
    expect(status(appendAssistant) & OPTIMIZED).toBe(OPTIMIZED);
    // Nothing of any run is reachable here: every result was dropped.
    gc();
    gc();
    expect(status(appendAssistant) & OPTIMIZED).toBe(OPTIMIZED);
  });
});
