import { describe, expect, it } from "vitest";
import { expiredAnswer, modelStepKey, toolStepKey } from "./durability.js";

describe("durability seam helpers", () => {
  it("answers an expired request, given the request or the awaited request", () => {
    const request = { id: "pnd_1", kind: "question", prompt: "Which?" };
    expect(expiredAnswer(request)).toEqual({ id: "pnd_1", ok: false, reason: "expired" });
    expect(expiredAnswer({ request, deadline: "2026-01-01T00:00:00.000Z" })).toEqual({
      id: "pnd_1",
      ok: false,
      reason: "expired",
    });
  });

  it("names steps the same way every time, distinct per turn, call and answer", () => {
    expect(modelStepKey(1)).toBe("model/1");
    expect(modelStepKey(2)).not.toBe(modelStepKey(1));
    expect(toolStepKey("call_a")).toBe("tool/call_a");
    expect(toolStepKey("call_a", "pnd_1")).toBe("tool/call_a/pnd_1");
    expect(toolStepKey("call_a", "pnd_2")).not.toBe(toolStepKey("call_a", "pnd_1"));
  });
});
