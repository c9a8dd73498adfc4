import type { ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { RunCancelledError } from "./errors.js";
import { inProcessModel } from "./in-process-model.js";
import { scriptedModel } from "./testing.js";

const callOnce = (name: string, answer = "finished") =>
  scriptedModel([{ toolCalls: [{ id: "c1", name, arguments: {} }] }, { content: answer }]);

describe("a call's budget is enforced, not advisory", () => {
  it("times out a tool that never resolves, aborts its signal with a timeout reason, and goes on", async () => {
    let signal: AbortSignal | undefined;
    const hang = nativeTool({
      name: "hang",
      description: "never resolves",
      ctx: true,
      timeoutMs: 50,
      run: (_args, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const client = createClient({ model: callOnce("hang"), tools: [hang] });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")).toEqual({
      role: "tool",
      callId: "c1",
      name: "hang",
      content: "timed out after 50ms",
      isError: true,
    });
    expect(result.toolCalls[0]).toMatchObject({ status: "error", timedOut: true });
    expect(signal?.aborted).toBe(true);
    const reason = signal?.reason as DOMException | undefined;
    expect(reason?.name).toBe("TimeoutError");
    expect(reason?.message).toBe("timed out after 50ms");
  });

  it("gives a tool that reads its signal only after the budget ran out an aborted signal", async () => {
    let context: ToolContext | undefined;
    const hang = nativeTool({
      name: "hang",
      description: "keeps its context, never resolves",
      ctx: true,
      timeoutMs: 20,
      run: (_args, ctx) => {
        context = ctx;
        return new Promise(() => {});
      },
    });
    const result = await createClient({ model: callOnce("hang"), tools: [hang] }).run("go");
    expect(result.toolCalls[0]).toMatchObject({ status: "error", timedOut: true });
    expect(context?.signal?.aborted).toBe(true);
    expect((context?.signal?.reason as DOMException | undefined)?.name).toBe("TimeoutError");
    expect({ ...context }.signal).toBe(context?.signal);
  });

  it("drops a late result the tool produces after its budget ran out", async () => {
    let finishLate!: (value: string) => void;
    const late = nativeTool({
      name: "late",
      description: "ignores its signal and answers late",
      timeoutMs: 30,
      run: () =>
        new Promise<string>((resolve) => {
          finishLate = resolve;
        }),
    });
    const model = callOnce("late");
    const result = await createClient({ model, tools: [late] }).run("go");
    finishLate("too late");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe("timed out after 30ms");
    expect(JSON.stringify(result.messages)).not.toContain("too late");
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain("too late");
  });

  it("uses what is left of the run's budget when it is the smallest", async () => {
    let budget: number | undefined;
    const probe = nativeTool({
      name: "probe",
      description: "d",
      ctx: true,
      run: (_a, ctx) => {
        budget = ctx.timeout;
        return "";
      },
    });
    await createClient({
      model: callOnce("probe"),
      tools: [probe],
      toolTimeoutMs: 60_000,
      timeoutMs: 5_000,
    }).run("go");
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThanOrEqual(5_000);
  });

  it("stops a run whose own budget runs out with status incomplete and limit timeout", async () => {
    const hang = nativeTool({ name: "hang", description: "d", run: () => new Promise(() => {}) });
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", name: "hang" }] },
      { content: "never reached" },
    ]);
    const result = await createClient({ model, tools: [hang], timeoutMs: 300 }).run("go");
    expect(result.status).toBe("incomplete");
    if (result.status === "incomplete") expect(result.limit).toBe("timeout");
    expect(result.messages.find((m) => m.role === "tool")?.content).toMatch(
      /^timed out after \d+ms$/,
    );
    expect(model.calls).toBe(1);
  });

  it("aborts a model call that outlives the run's budget", async () => {
    let modelSignal: AbortSignal | undefined;
    const slowModel = inProcessModel({
      id: "slow",
      generate: (_request, { signal }) => {
        modelSignal = signal;
        return new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason));
        });
      },
    });
    const result = await createClient({ model: slowModel, timeoutMs: 200 }).run("go");
    expect(result.status).toBe("incomplete");
    expect(modelSignal?.aborted).toBe(true);
  });
});

describe("cancelling the run", () => {
  it("aborts in-flight tool signals and rejects with the transcript so far", async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const work = nativeTool({
      name: "work",
      description: "long work that honours its signal",
      ctx: true,
      run: (_args, ctx: ToolContext) =>
        new Promise((_resolve, reject) => {
          signals.push(ctx.signal!);
          if (signals.length === 2)
            setTimeout(() => controller.abort(new Error("user pressed stop")), 5);
          ctx.signal?.addEventListener("abort", () => reject(new Error("stopped")));
        }),
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "work" },
          { id: "c2", name: "work" },
        ],
      },
      { content: "never" },
    ]);
    const failure = await createClient({ model, tools: [work] })
      .run("go", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunCancelledError);
    const cancelled = failure as RunCancelledError;
    expect(cancelled.code).toBe("cancelled");
    expect(cancelled.message).toMatch(/^run run_\w+ was cancelled: user pressed stop$/);
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(cancelled.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(model.calls).toBe(1);
  });

  it("aborts the model request", async () => {
    const controller = new AbortController();
    let modelSignal: AbortSignal | undefined;
    const model = inProcessModel({
      id: "slow",
      generate: (_request, { signal }) => {
        modelSignal = signal;
        setTimeout(() => controller.abort(), 5);
        return new Promise((_resolve, reject) =>
          signal?.addEventListener("abort", () => reject(signal.reason)),
        );
      },
    });
    await expect(
      createClient({ model }).run("go", { signal: controller.signal }),
    ).rejects.toBeInstanceOf(RunCancelledError);
    expect(modelSignal?.aborted).toBe(true);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const model = scriptedModel([{ content: "hi" }]);
    await expect(
      createClient({ model }).run("go", { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(RunCancelledError);
    expect(model.calls).toBe(0);
  });
});
