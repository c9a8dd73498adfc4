import { describe, expect, it } from "vitest";
import { addUsage, emptyUsage, toolCall } from "./messages.js";
import { MAX_WIRE_DEPTH } from "./wire-data.js";

describe("toolCall()", () => {
  it("parses a JSON object and keeps the raw text", () => {
    expect(toolCall("c1", "add", '{"a":2,"b":3}')).toEqual({
      id: "c1",
      name: "add",
      args: { a: 2, b: 3 },
      rawArgs: '{"a":2,"b":3}',
    });
  });

  it("reads empty arguments as {}", () => {
    expect(toolCall("c1", "now", "").args).toEqual({});
  });

  it("flags text that is not a JSON object instead of throwing", () => {
    expect(toolCall("c1", "add", "{a:").argsError).toMatch(/^arguments are not valid JSON/);
    expect(toolCall("c1", "add", "[1]").argsError).toBe("arguments must be a JSON object");
  });
});

describe("usage", () => {
  it("adds up", () => {
    const one = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
    expect(addUsage(addUsage(emptyUsage(), one), one)).toEqual({
      promptTokens: 6,
      completionTokens: 4,
      totalTokens: 10,
    });
    expect(addUsage(one, undefined)).toBe(one);
  });
});

describe("toolCall argument depth", () => {
  const nest = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;

  it("refuses arguments nested deeper than MAX_WIRE_DEPTH, as an argsError the model reads", () => {
    const call = toolCall("c1", "t", nest(5000));
    expect(call.args).toEqual({});
    expect(call.argsError).toBe(`arguments nest deeper than ${MAX_WIRE_DEPTH} levels`);
    expect(toolCall("c1", "t", `{"list":[${nest(MAX_WIRE_DEPTH)}]}`).argsError).toBeDefined();
  });

  it("refuses the shortest text that nests too deep (one bracket pair per level)", () => {
    const levels = MAX_WIRE_DEPTH + 1;
    const text = `${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}`;
    const call = toolCall("c1", "t", `{"":${text}}`);
    expect(call.argsError).toBe(`arguments nest deeper than ${MAX_WIRE_DEPTH} levels`);
    // One level less passes.
    expect(toolCall("c1", "t", `{"":${text.slice(1, -1)}}`).argsError).toBeUndefined();
  });

  it("accepts arguments exactly MAX_WIRE_DEPTH levels deep", () => {
    const call = toolCall("c1", "t", nest(MAX_WIRE_DEPTH));
    expect(call.argsError).toBeUndefined();
    expect(JSON.stringify(call.args)).toBe(nest(MAX_WIRE_DEPTH));
  });
});
