import { pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import type { Instrumentation, RunTraceInfo } from "./instrumentation.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

/** An instrumentation that writes down what the loop tells it, in order. */
function recorder() {
  const log: string[] = [];
  const starts: RunTraceInfo[] = [];
  let runs = 0;
  const instrumentation: Instrumentation = {
    startRun(info) {
      starts.push(info);
      const n = ++runs;
      log.push(`start ${info.kind} #${n}`);
      return {
        async model(info, call) {
          log.push(`model ${info.turn}`);
          const response = await call();
          log.push(`model ${info.turn} end`);
          return response;
        },
        async tool(info, run) {
          log.push(`tool ${info.call.id} attempt ${info.attempt}${info.answer ? " answered" : ""}`);
          const outcome = await run();
          log.push(`tool ${info.call.id} end ${outcome.result.isError ? "error" : "ok"}`);
          return outcome;
        },
        suspended: ({ request }) => log.push(`suspended ${request.kind}`),
        waited: ({ answer }) => log.push(`waited ok=${answer.ok}`),
        carrier: () => ({ traceparent: `run-${n}` }),
        end: (outcome) =>
          log.push(`end #${n} ${"result" in outcome ? outcome.result.status : "error"}`),
      };
    },
  };
  return { log, starts, instrumentation };
}

const ask = nativeTool({
  name: "ask",
  description: "asks",
  ctx: true,
  run: (_a, ctx) => (ctx.answer ? "yes" : pending({ kind: "approval", prompt: "ok?" })),
});
const add = nativeTool({ name: "add", description: "adds", run: () => "3" });

describe("instrumentation", () => {
  it("wraps each model call and tool execution, and sees suspensions and waits", async () => {
    const { log, instrumentation } = recorder();
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "a", name: "add" },
            { id: "b", name: "ask" },
          ],
        },
        { content: "done" },
      ]),
      tools: [add, ask],
      waitFor: (request) => ({ id: request.id, ok: true }),
      instrumentation,
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(log[0]).toBe("start run #1");
    expect(log.slice(1, 3)).toEqual(["model 1", "model 1 end"]);
    expect(log).toContain("tool a attempt 1");
    expect(log).toContain("suspended approval");
    expect(log).toContain("waited ok=true");
    expect(log).toContain("tool b attempt 1 answered");
    expect(log.slice(-3)).toEqual(["model 2", "model 2 end", "end #1 done"]);
  });

  it("hands a continuation the carrier stored with the halted run, and the answers", async () => {
    const store = memoryRunStore();
    const first = recorder();
    const model = () =>
      scriptedModel([{ toolCalls: [{ id: "b", name: "ask" }] }, { content: "ok" }]);
    const halted = await createClient({
      model: model(),
      tools: [ask],
      runs: store,
      instrumentation: first.instrumentation,
    }).run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(first.log.at(-1)).toBe("end #1 pending");
    const second = recorder();
    const fresh = createClient({
      model: scriptedModel([{ content: "ok" }]),
      tools: [ask],
      runs: store,
      instrumentation: second.instrumentation,
    });
    const done = await fresh.resume({ id: halted.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(second.starts[0]).toMatchObject({
      kind: "continue",
      runId: halted.runId,
      carrier: { traceparent: "run-1" },
      pending: [{ request: halted.pending, answer: { id: halted.pending.id, ok: true } }],
    });
    expect(second.log).toEqual([
      "start continue #1",
      "tool b attempt 1 answered",
      "tool b end ok",
      // The run's second model turn: turns count across the halt.
      "model 2",
      "model 2 end",
      "end #1 done",
    ]);
  });

  it("refuses an instrumentation without startRun", () => {
    expect(() =>
      createClient({ model: scriptedModel([]), instrumentation: {} as Instrumentation }),
    ).toThrow("must have a startRun(info) method");
  });
});
