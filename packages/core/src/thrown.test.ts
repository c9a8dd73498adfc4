import { describe, expect, it } from "vitest";
import { isToolResult } from "./result.js";
import { thrownError, thrownOf } from "./thrown.js";

describe("thrownError", () => {
  it("is an error result of the message that keeps the thrown value off the wire", () => {
    const thrown = new TypeError("cannot read /home/alice/key");
    const result = thrownError(thrown);
    expect(isToolResult(result)).toBe(true);
    expect(result).toEqual({ output: "cannot read /home/alice/key", isError: true });
    expect(thrownOf(result)).toBe(thrown);
    // Neither JSON (a checkpoint) nor a copy carries it.
    expect(JSON.stringify(result)).toBe('{"output":"cannot read /home/alice/key","isError":true}');
    expect(thrownOf({ ...result })).toBeUndefined();
  });

  it("takes its own output, and any thrown value", () => {
    expect(thrownError("plain", "tool failed: plain").output).toBe("tool failed: plain");
    expect(thrownOf(thrownError(42))).toBe(42);
    expect(thrownOf({ output: "x", isError: true })).toBeUndefined();
    expect(thrownOf(undefined)).toBeUndefined();
  });
});
