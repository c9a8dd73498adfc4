import { error, pending, pendingOf } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nativeTool } from "./native-tool.js";
import { toToolResult } from "./normalize.js";

const returning = (value: unknown) =>
  nativeTool({ name: "ret", description: "returns a fixed value", run: () => value });

describe("return normalisation", () => {
  it("a string is the output", async () => {
    expect(await returning("hello").execute({})).toEqual({ output: "hello", isError: false });
  });

  it("a number is stringified", async () => {
    expect(
      await nativeTool({ name: "one_plus_one", description: "2", run: () => 1 + 1 }).execute({}),
    ).toEqual({
      output: "2",
      isError: false,
    });
  });

  it("numbers and booleans are written as JSON writes them", async () => {
    for (const value of [
      0,
      -0,
      2.5,
      -1e-7,
      1e21,
      2 ** 53 + 2,
      Number.NaN,
      -Infinity,
      true,
      false,
    ]) {
      expect((await returning(value).execute({})).output).toBe(JSON.stringify(value));
    }
  });

  it("an object becomes JSON", async () => {
    expect((await returning({ a: [1, "b"], c: null }).execute({})).output).toBe(
      '{"a":[1,"b"],"c":null}',
    );
  });

  it("undefined and null are the empty string", async () => {
    expect(await returning(undefined).execute({})).toEqual({ output: "", isError: false });
    expect(await returning(null).execute({})).toEqual({ output: "", isError: false });
  });

  it("a full ToolResult with metadata passes through untouched", async () => {
    const result = error("quota exceeded", { retryAfter: 30 });
    expect(await returning(result).execute({})).toBe(result);
  });

  it("a suspension passes through untouched", async () => {
    const suspension = pending({ kind: "approval", prompt: "Delete it?", id: "pnd_fixed" });
    const out = await returning(suspension).execute({});
    expect(out).toBe(suspension);
    expect(pendingOf(out)?.id).toBe("pnd_fixed");
  });

  it("a throw is an error result with the message", async () => {
    const throws = nativeTool({
      name: "throws",
      description: "fails",
      run: () => {
        throw new Error("disk full");
      },
    });
    expect(await throws.execute({})).toEqual({ output: "disk full", isError: true });
  });

  it("an async throw (a rejected promise) is an error result too", async () => {
    const rejects = nativeTool({
      name: "rejects",
      description: "fails later",
      run: async () => {
        await Promise.resolve();
        throw new Error("upstream 503");
      },
    });
    expect(await rejects.execute({})).toEqual({ output: "upstream 503", isError: true });
  });

  it("a thenable that is not a Promise is awaited like one; its rejection is an error result", async () => {
    type Settle = (ok: (value: unknown) => void, fail: (reason: unknown) => void) => void;
    // A minimal thenable that settles on a later timer turn.
    const later = (settle: Settle) => ({
      // biome-ignore lint/suspicious/noThenProperty: the point of the test is a custom thenable
      then: (ok: (value: unknown) => void, fail: (reason: unknown) => void) =>
        setTimeout(() => settle(ok, fail)),
    });
    const resolves = later((ok) => ok({ n: 1 }));
    const rejects = later((_ok, fail) => fail(new Error("late no")));
    expect(await returning(resolves).execute({})).toEqual({ output: '{"n":1}', isError: false });
    expect(await returning(rejects).execute({})).toEqual({ output: "late no", isError: true });
  });

  it("an object whose then is not a function is a value, not a thenable", async () => {
    // biome-ignore lint/suspicious/noThenProperty: a then that is data, not a method
    const value = { then: 1 };
    expect(await returning(value).execute({})).toEqual({ output: '{"then":1}', isError: false });
  });

  it("a value JSON cannot represent is an error result, not a crash", async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const result = await returning(circular).execute({});
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^tool returned a value that cannot be serialised/);
    expect((await returning(10n).execute({})).isError).toBe(true);
  });

  it("a function or a symbol is an error result naming its type, never its source text", async () => {
    expect(await returning(() => 1).execute({})).toEqual({
      output: "tool returned a value that cannot be serialised: a function has no JSON text",
      isError: true,
    });
    expect(await returning(Symbol("s")).execute({})).toEqual({
      output: "tool returned a value that cannot be serialised: a symbol has no JSON text",
      isError: true,
    });
    expect(await returning({ toJSON: () => undefined }).execute({})).toEqual({
      output: "tool returned a value that cannot be serialised: its toJSON() gave no JSON text",
      isError: true,
    });
  });

  it("toToolResult follows the same rules", () => {
    expect(toToolResult(() => 1)).toMatchObject({ isError: true });
    expect(toToolResult(undefined)).toEqual({ output: "", isError: false });
    // A function with a toJSON is written as its toJSON says.
    expect(toToolResult(Object.assign(() => 1, { toJSON: () => "fn" }))).toEqual({
      output: '"fn"',
      isError: false,
    });
    // Functions and symbols inside an object or array are written as JSON writes them.
    expect(toToolResult({ f: () => 1, s: Symbol("s"), a: [() => 1] })).toEqual({
      output: '{"a":[null]}',
      isError: false,
    });
  });
});

describe("zod input", () => {
  const input = z.object({ city: z.string(), days: z.number().int().min(1) });

  it("validates before run, names each bad field, and never calls run", async () => {
    let calls = 0;
    const forecast = nativeTool({
      name: "forecast",
      description: "Weather forecast",
      input,
      run: ({ city, days }) => {
        calls++;
        return `${city}: ${days}`;
      },
    });
    const bad = await forecast.execute({ city: 7, days: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/^invalid arguments for forecast: /);
    expect(bad.output).toContain("city: ");
    expect(bad.output).toContain("days: ");
    const missing = await forecast.execute({});
    expect(missing.output).toContain("city: ");
    expect(calls).toBe(0);
    expect((await forecast.execute({ city: "Oslo", days: 2 })).output).toBe("Oslo: 2");
    expect(calls).toBe(1);
  });

  it("hands run the parsed value (defaults applied, unknown keys stripped)", async () => {
    const greet = nativeTool({
      name: "greet",
      description: "Greets",
      input: z.object({ name: z.string(), loud: z.boolean().default(false) }),
      run: (args) => args,
    });
    expect((await greet.execute({ name: "Ada", extra: 1 })).output).toBe(
      '{"name":"Ada","loud":false}',
    );
  });

  it("exposes the JSON Schema of the zod object as inputSchema", () => {
    const tool = nativeTool({ name: "forecast", description: "d", input, run: () => "" });
    const { $schema: _, ...expected } = z.toJSONSchema(input, { io: "input" });
    expect(tool.inputSchema).toEqual(expected);
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ["city", "days"],
    });
  });
});

describe("JSON Schema input", () => {
  const tool = nativeTool({
    name: "lookup",
    description: "Look something up",
    input: {
      type: "object",
      properties: {
        q: { type: "string" },
        limit: { type: "integer" },
        mode: { enum: ["fast", "full"] },
      },
      required: ["q"],
      additionalProperties: false,
    },
    run: (args) => args,
  });

  it("is the inputSchema as given", () => {
    expect(tool.inputSchema.required).toEqual(["q"]);
  });

  it("checks required fields, primitive types, enums and unknown keys", async () => {
    expect((await tool.execute({ limit: 2.5, mode: "slow", other: 1 })).output).toBe(
      'invalid arguments for lookup: q: required; other: unknown field; limit: expected integer, received number; mode: expected one of "fast", "full"',
    );
    expect((await tool.execute({ q: "x", limit: 3 })).output).toBe('{"q":"x","limit":3}');
  });
});

describe("definition", () => {
  it("defaults to an empty object schema and source native", () => {
    const tool = nativeTool({ name: "now", description: "time", run: () => "noon" });
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(tool.source).toBe("native");
    expect(tool.timeoutMs).toBeUndefined();
  });

  it("keeps timeoutMs and needsApproval", async () => {
    const tool = nativeTool({
      name: "wipe",
      description: "Wipes",
      input: z.object({ all: z.boolean() }),
      timeoutMs: 500,
      needsApproval: ({ all }) => all,
      run: () => "wiped",
    });
    expect(tool.timeoutMs).toBe(500);
    const decide = tool.needsApproval as (
      a: Record<string, unknown>,
      c: object,
    ) => Promise<boolean>;
    expect(await decide({ all: true }, {})).toBe(true);
    expect(await decide({ all: false }, {})).toBe(false);
    expect(await decide({ all: "yes" }, {})).toBe(false);
  });

  it("keeps an approval prompt of its own, typed from the input", () => {
    const tool = nativeTool({
      name: "deploy",
      description: "Deploys",
      input: z.object({ app: z.string(), env: z.string() }),
      needsApproval: true,
      approvalPrompt: ({ app, env }) => `Deploy ${app} to ${env}?`,
      run: () => "deployed",
    });
    expect(tool.approvalPrompt?.({ app: "web", env: "production" })).toBe(
      "Deploy web to production?",
    );
    expect(() =>
      nativeTool({ name: "t", description: "d", approvalPrompt: "Sure?" as never, run: () => "" }),
    ).toThrow('nativeTool "t": approvalPrompt must be a function of the arguments');
  });

  it("rejects bad names and settings with messages that say what to fix", () => {
    expect(() => nativeTool({ name: "web search", description: "d", run: () => "" })).toThrow(
      'nativeTool: name "web search" must be 1-64 characters of [a-zA-Z0-9_-]; sanitize() from @toolnexus/core makes any string fit',
    );
    expect(() => nativeTool({ name: "t", description: "d", timeoutMs: 0, run: () => "" })).toThrow(
      'nativeTool "t": timeoutMs must be a positive number of milliseconds',
    );
  });
});
