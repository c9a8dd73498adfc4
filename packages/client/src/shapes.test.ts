import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  type Model,
  type ModelRequest,
  type ModelResponse,
  pending,
  toolCall,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendAssistant } from "./assistant-turn.js";
import { CallContext } from "./call-signal.js";
import { createClient } from "./client.js";
import { Journal } from "./journal.js";
import { LeaseDurability } from "./lease-durability.js";
import { memoryRunStore } from "./memory-stores.js";
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

/** A model that asks for add(2, 3) once, then answers with what the tool said. */
function addModel(): Model {
  let n = 0;
  return {
    id: "m",
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const last = request.messages[request.messages.length - 1]!;
      n++;
      return last.role === "tool"
        ? { id: `r${n}`, text: String(last.content), toolCalls: [], finishReason: "stop" }
        : {
            id: `r${n}`,
            text: "",
            toolCalls: [toolCall("c1", "add", '{"a":2,"b":3}')],
            finishReason: "tool_calls",
          };
    },
  };
}

function oneCallClient() {
  const add = nativeTool({
    name: "add",
    description: "adds",
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });
  return createClient({ model: addModel(), tools: [add] });
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

/** A client whose one tool waits for an approval: every run halts, and a resume finishes it. */
function approvalClient() {
  const add = nativeTool({
    name: "add",
    description: "adds once approved",
    input: z.object({ a: z.number(), b: z.number() }),
    ctx: true,
    run: ({ a, b }, ctx) =>
      ctx.answer?.ok === true ? a + b : pending({ kind: "approval", prompt: "Allow add?" }),
  });
  return createClient({
    model: addModel(),
    tools: [add],
    runs: memoryRunStore({ keepFinished: 0 }),
  });
}

/** One halt and its resume, through the store: a journal, its steps, a context with an answer. */
async function durableCycle(client: ReturnType<typeof approvalClient>): Promise<void> {
  const halted = await client.run("2 + 3?");
  if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
  const done = await client.resume({ id: halted.pending.id, ok: true });
  expect(done.text).toBe("5");
}

describe("the durable path's compiled code across a full GC between runs", () => {
  it("keeps a stopped journal (with no timer of its own), a lease backend and four contexts", async () => {
    // The journal's are made with the first journal, not when the module loads.
    expect(Journal.shapes).toEqual([]);
    await durableCycle(approvalClient());
    expect(Journal.shapes).toHaveLength(2);
    const [journal, idle] = Journal.shapes;
    expect(journal).toBeInstanceOf(Journal);
    // Stopped: it renews nothing, and its store is never called.
    expect((journal as unknown as { closed: boolean }).closed).toBe(true);
    // The unref'd timer that keeps Node's timer list of one duration: it does not hold the
    // process open.
    expect((idle as NodeJS.Timeout).hasRef()).toBe(false);
    expect(LeaseDurability.shapes[0]).toBeInstanceOf(LeaseDurability);
    const contexts = CallContext.shapes as CallContext[];
    expect(contexts.map((ctx) => ctx.answer)).toEqual([
      undefined,
      { id: "", ok: true },
      undefined,
      { id: "", ok: true },
    ]);
    // The last two as a followed run fills them; none has a run to report progress to.
    expect(contexts.map((ctx) => typeof (ctx as { progress?: unknown }).progress)).toEqual([
      "undefined",
      "undefined",
      "function",
      "function",
    ]);
  });

  it("still has the journal's stop, the context's constructor and the run's fill optimized after two full GCs with no durable run alive", async () => {
    const client = approvalClient();
    for (let i = 0; i < 50; i++) await durableCycle(client);
    // A durable run's context is filled as a followed run's (its recorder listens).
    const witnesses = [Journal.prototype.stop, CallContext, Run.prototype.fill];
    for (const f of witnesses) prepare(f);
    await durableCycle(client);
    for (const f of witnesses) optimizeNext(f);
    await durableCycle(client);
    for (const f of witnesses) expect(status(f) & OPTIMIZED).toBe(OPTIMIZED);
    // No run, journal or context is reachable here: every result was dropped and the store
    // keeps no finished run.
    gc();
    gc();
    for (const f of witnesses) expect(status(f) & OPTIMIZED).toBe(OPTIMIZED);
  });
});
