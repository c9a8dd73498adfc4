import {
  type ModelResponse,
  pending,
  type Tool,
  type ToolContext,
  toolCall,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { RunCancelledError } from "./errors.js";
import type { ClientOptions } from "./types.js";

// The loop awaits a plain model call (no trace, no model hooks, no run deadline) and a turn's
// only tool call in its own frame; every other call goes through callModel and settleTurn.
// Each case runs on both paths and expects the same outcome: a `beforeModel` hook that
// changes nothing sends the model call the general way.

const add = nativeTool({
  name: "add",
  description: "Add two numbers",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

const paths: [string, Partial<ClientOptions>][] = [
  ["direct", {}],
  ["general", { hooks: { beforeModel: () => undefined } }],
];

/** A model that asks `turns[k]` on turn k, with one usage report per turn. */
function turnsModel(turns: ModelResponse[]) {
  let k = 0;
  return {
    id: "turns",
    async generate(): Promise<ModelResponse> {
      const response = turns[k++];
      if (response === undefined) throw new Error("no more turns");
      return response;
    },
  };
}

const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
const ask = (...ids: string[]): ModelResponse => ({
  id: "",
  text: "",
  toolCalls: ids.map((id) => toolCall(id, "add", '{"a":2,"b":3}')),
  finishReason: "tool_calls",
  usage,
});
const answer = (text: string): ModelResponse => ({
  id: "",
  text,
  toolCalls: [],
  finishReason: "stop",
  usage,
});

describe.each(paths)("a turn's model call and single tool call (%s path)", (_path, extra) => {
  it("fails with model_failed when generate throws before returning a promise", async () => {
    const model = {
      id: "sync-throw",
      generate(): Promise<ModelResponse> {
        throw new Error("bad request shape");
      },
    };
    const failure = await createClient({ model, ...extra })
      .run("hi")
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: "model_failed",
      message: "model sync-throw failed on turn 1: bad request shape",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("fails with model_failed on turn 2 when the second call rejects", async () => {
    let turn = 0;
    const model = {
      id: "second-fails",
      async generate(): Promise<ModelResponse> {
        if (++turn === 2) throw new Error("503");
        return ask("c1");
      },
    };
    const failure = await createClient({ model, tools: [add], ...extra })
      .run("hi")
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: "model_failed",
      message: "model second-fails failed on turn 2: 503",
    });
    // The first turn's call and its result are kept in the transcript the error carries.
    expect((failure as { messages: unknown[] }).messages).toHaveLength(3);
  });

  it("stops a cancelled run even when the model ignores its signal", async () => {
    const controller = new AbortController();
    let calls = 0;
    const model = {
      id: "deaf",
      async generate(): Promise<ModelResponse> {
        calls++;
        controller.abort(new Error("user pressed stop"));
        return ask("c1");
      },
    };
    const failure = await createClient({ model, tools: [add], ...extra })
      .run("hi", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunCancelledError);
    expect(calls).toBe(1);
  });

  it("sums usage over the turns and appends one tool message per call", async () => {
    const model = turnsModel([ask("c1"), ask("c2", "c3"), answer("done")]);
    const result = await createClient({ model, tools: [add], ...extra }).run("hi");
    expect(result.status).toBe("done");
    expect(result.usage).toEqual({ promptTokens: 9, completionTokens: 6, totalTokens: 15 });
    expect(result.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
      "assistant",
    ]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.callId)).toEqual([
      "c1",
      "c2",
      "c3",
    ]);
    expect(result.toolCalls.map((r) => [r.id, r.result.output])).toEqual([
      ["c1", "5"],
      ["c2", "5"],
      ["c3", "5"],
    ]);
  });

  it("halts on a turn's only call that asks a human, with the call's slot", async () => {
    const gated: Tool = nativeTool({
      name: "add",
      description: "Add once allowed",
      input: z.object({ a: z.number(), b: z.number() }),
      ctx: true,
      run: (_args, ctx) =>
        ctx.answer === undefined ? pending({ kind: "approval", prompt: "Allow add?" }) : 5,
    });
    const model = turnsModel([ask("c1"), answer("done")]);
    const result = await createClient({ model, tools: [gated], ...extra }).run("hi");
    expect(result.status).toBe("pending");
    if (result.status !== "pending") return;
    expect(result.pending.prompt).toBe("Allow add?");
    expect(result.pendings).toHaveLength(1);
    expect(result.messages[2]).toMatchObject({ role: "tool", callId: "c1" });
  });
});

// A tool's execute on the direct path (no approval rule, no beforeTool hook, nothing that can
// stop the call) and on the general one (a beforeTool hook that changes nothing).
const toolPaths: [string, Partial<ClientOptions>][] = [
  ["direct", {}],
  ["general", { hooks: { beforeTool: () => undefined } }],
];

/** A hand-made tool whose execute does `behave`, outside what its type promises. */
function rawTool(behave: (args: unknown, ctx?: ToolContext) => unknown): Tool {
  return {
    name: "add",
    description: "adds",
    inputSchema: { type: "object" },
    source: "custom",
    execute: behave as Tool["execute"],
  };
}

describe.each(toolPaths)("a tool's execute (%s path)", (_path, extra) => {
  const outputOf = async (tool: Tool) => {
    const model = turnsModel([ask("c1"), answer("done")]);
    const result = await createClient({ model, tools: [tool], ...extra }).run("hi");
    expect(result.status).toBe("done");
    const record = result.toolCalls[0]!;
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
    return [record.status, record.result.output];
  };

  it("an execute that throws before returning is an error result", async () => {
    const tool = rawTool(() => {
      throw new Error("no socket");
    });
    expect(await outputOf(tool)).toEqual(["error", "no socket"]);
  });

  it("an execute that rejects is an error result", async () => {
    const tool = rawTool(() => Promise.reject(new Error("503")));
    expect(await outputOf(tool)).toEqual(["error", "503"]);
  });

  it("an execute that returns a result without a promise is taken", async () => {
    const tool = rawTool(() => ({ output: "5", isError: false }));
    expect(await outputOf(tool)).toEqual(["ok", "5"]);
  });

  it("an execute that returns a thenable is awaited like a promise", async () => {
    const tool = rawTool(() => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise, on purpose.
      then: (ok: (value: unknown) => void) => ok({ output: "5", isError: false }),
    }));
    expect(await outputOf(tool)).toEqual(["ok", "5"]);
  });

  it("an execute that resolves to something else says what it returned", async () => {
    const tool = rawTool(async () => 5);
    const [status, output] = await outputOf(tool);
    expect(status).toBe("error");
    expect(output).toMatch(/^tool add returned .* instead of a ToolResult$/);
  });
});

describe.each(toolPaths)("a tool's unreadable result (%s path)", (_path, extra) => {
  it("a result whose fields throw when read is an error result, not a failed run", async () => {
    // Promise resolution reads `then` only; the result check reads the rest.
    const unreadable = new Proxy(
      {},
      {
        get(_target, key) {
          if (key === "then") return undefined;
          throw new Error(`cannot read ${String(key)}`);
        },
      },
    );
    const tool = rawTool(async () => unreadable);
    const model = turnsModel([ask("c1"), answer("done")]);
    const result = await createClient({ model, tools: [tool], ...extra }).run("hi");
    expect(result.status).toBe("done");
    expect(result.toolCalls[0]).toMatchObject({ status: "error" });
    expect(result.toolCalls[0]!.result.output).toMatch(/^cannot read /);
  });
});

describe.each(paths)("more of a turn's model call (%s path)", (_path, extra) => {
  it("does not call the model of a run cancelled before its first turn", async () => {
    let calls = 0;
    const model = {
      id: "never",
      async generate(): Promise<ModelResponse> {
        calls++;
        return answer("no");
      },
    };
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    const failure = await createClient({ model, ...extra })
      .run("hi", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunCancelledError);
    expect(calls).toBe(0);
  });

  it("calls generate once when it returns nothing, and fails the run", async () => {
    let calls = 0;
    const model = {
      id: "empty",
      generate(): Promise<ModelResponse> {
        calls++;
        return undefined as unknown as Promise<ModelResponse>;
      },
    };
    await expect(createClient({ model, ...extra }).run("hi")).rejects.toThrow();
    expect(calls).toBe(1);
  });

  it("emits the same events in the same order", async () => {
    const types: string[] = [];
    const model = turnsModel([ask("c1"), answer("done")]);
    const client = createClient({
      model,
      tools: [add],
      onEvent: (event) => types.push(event.type),
      ...extra,
    });
    await client.run("hi");
    expect(types).toEqual([
      "usage",
      "message",
      "tool_call",
      "tool_result",
      "usage",
      "message",
      "done",
    ]);
  });
});

/** A Promise subclass that cannot be built through its species, as a Deferred often is. */
class Deferred<T> extends Promise<T> {
  constructor(resolve: T) {
    super((ok) => ok(resolve));
  }
}

describe.each(toolPaths)(
  "a tool's promise that is not a plain Promise (%s path)",
  (_path, extra) => {
    const run = async (tools: Tool[]) => {
      const model = turnsModel([ask("c1", "c2"), answer("done")]);
      const result = await createClient({ model, tools, ...extra }).run("hi");
      expect(result.status).toBe("done");
      // By call id: records are kept in the order the calls end.
      const byId = new Map(result.toolCalls.map((r) => [r.id, [r.status, r.result.output]]));
      return [byId.get("c1"), byId.get("c2")];
    };

    it("a subclass whose then throws is an error result, and the other call still runs", async () => {
      const exploding = new Deferred<unknown>({ output: "5", isError: false });
      // biome-ignore lint/suspicious/noThenProperty: a promise whose then throws, on purpose.
      exploding.then = () => {
        throw new Error("then exploded");
      };
      const tool = rawTool((_args, ctx) =>
        ctx?.callId === "c1" ? exploding : Promise.resolve({ output: "5", isError: false }),
      );
      expect(await run([tool])).toEqual([
        ["error", "then exploded"],
        ["ok", "5"],
      ]);
    });

    it("a subclass that cannot be built through its species is an error result", async () => {
      const tool = rawTool(() => new Deferred<unknown>({ output: "5", isError: false }));
      const outcomes = await run([tool]);
      expect(outcomes.map((outcome) => outcome?.[0])).toEqual(["error", "error"]);
    });
  },
);
