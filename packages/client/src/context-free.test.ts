import { isContextFree, markContextFree, ok, type Tool, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { scriptedModel } from "./testing.js";

// A tool whose execute is marked context-free is called without a ToolContext on the direct
// path (nothing can stop the call); every other tool, and every call on the general path, gets
// one as before.

/** A raw tool that records the context each call got. */
function recordingTool(mark: boolean) {
  const seen: (ToolContext | undefined)[] = [];
  const execute = async (_args: Record<string, unknown>, ctx?: ToolContext) => {
    seen.push(ctx);
    return ok("5");
  };
  const tool: Tool = {
    name: "add",
    description: "adds",
    inputSchema: { type: "object" },
    source: "custom",
    execute: mark ? markContextFree(execute) : execute,
  };
  return { tool, seen };
}

const oneCall = () =>
  scriptedModel([
    { toolCalls: [{ id: "c1", name: "add", arguments: { a: 2, b: 3 } }] },
    { content: "The sum is 5." },
  ]);

describe("context-free tools", () => {
  it("calls a marked execute without a context, and the run goes on as usual", async () => {
    const { tool, seen } = recordingTool(true);
    const result = await createClient({ model: oneCall(), tools: [tool] }).run("2 + 3?");
    expect(result.status).toBe("done");
    expect(result.text).toBe("The sum is 5.");
    expect(seen).toEqual([undefined]);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ id: "c1", status: "ok" });
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe("5");
  });

  it("still gives an unmarked execute its context, with a signal, on the same path", async () => {
    const { tool, seen } = recordingTool(false);
    const result = await createClient({ model: oneCall(), tools: [tool] }).run("2 + 3?");
    expect(result.status).toBe("done");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ callId: "c1", runId: result.runId, attempt: 1 });
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("gives a wrapper with an execute of its own a context, even around a marked tool", async () => {
    const inner = recordingTool(true);
    const wrapperSaw: (ToolContext | undefined)[] = [];
    const wrapped: Tool = {
      ...inner.tool,
      execute: (args, ctx) => {
        wrapperSaw.push(ctx);
        return inner.tool.execute(args, ctx);
      },
    };
    expect(isContextFree(wrapped.execute)).toBe(false);
    const result = await createClient({ model: oneCall(), tools: [wrapped] }).run("2 + 3?");
    expect(result.status).toBe("done");
    expect(wrapperSaw[0]).toMatchObject({ callId: "c1", runId: result.runId });
  });

  it("gives a marked execute a context on the general path (a run that can be stopped)", async () => {
    const { tool, seen } = recordingTool(true);
    const controller = new AbortController();
    const client = createClient({ model: oneCall(), tools: [tool] });
    const result = await client.run("2 + 3?", { signal: controller.signal });
    expect(result.status).toBe("done");
    expect(seen[0]).toMatchObject({ callId: "c1", runId: result.runId });
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("runs a nativeTool without ctx: true through the context-free path, one with it not", async () => {
    const input = z.object({ a: z.number(), b: z.number() });
    const plain = nativeTool({ name: "add", description: "adds", input, run: ({ a, b }) => a + b });
    const withCtx = nativeTool({
      name: "add",
      description: "adds",
      input,
      ctx: true,
      run: ({ a, b }, ctx) => `${a + b} in ${ctx.runId}`,
    });
    expect(isContextFree(plain.execute)).toBe(true);
    expect(isContextFree(withCtx.execute)).toBe(false);
    const done = await createClient({ model: oneCall(), tools: [plain] }).run("2 + 3?");
    expect(done.messages.find((m) => m.role === "tool")?.content).toBe("5");
    const seen = await createClient({ model: oneCall(), tools: [withCtx] }).run("2 + 3?");
    expect(seen.messages.find((m) => m.role === "tool")?.content).toBe(`5 in ${seen.runId}`);
  });
});
