import { describe, expect, it } from "vitest";
import { ok } from "./result.js";
import { isContextFree, markContextFree } from "./tool.js";

describe("markContextFree / isContextFree", () => {
  it("marks the function itself and returns it", async () => {
    const execute = async () => ok("5");
    expect(isContextFree(execute)).toBe(false);
    expect(markContextFree(execute)).toBe(execute);
    expect(isContextFree(execute)).toBe(true);
    expect(await execute()).toEqual({ output: "5", isError: false });
  });

  it("does not carry the mark to a wrapper, a bound copy or a spread tool's new execute", () => {
    const execute = markContextFree(async () => ok("5"));
    const wrapper = async () => execute();
    expect(isContextFree(wrapper)).toBe(false);
    expect(isContextFree(execute.bind(null))).toBe(false);
    // The mark is not an own enumerable key: spreading or listing the function shows nothing.
    expect(Object.keys(execute)).toEqual([]);
  });

  it("answers false for anything that is not a marked function", () => {
    for (const value of [undefined, null, 1, "x", {}, () => {}]) {
      expect(isContextFree(value)).toBe(false);
    }
  });

  it("refuses what is not a function, naming it", () => {
    expect(() => markContextFree(undefined as never)).toThrow(
      "markContextFree(): execute must be a function",
    );
  });
});
