import { describe, expect, it } from "vitest";
import { wantsColour } from "./io.js";

describe("wantsColour", () => {
  it("colours a terminal unless NO_COLOR is set, and never a pipe", () => {
    expect(wantsColour(true, undefined)).toBe(true);
    expect(wantsColour(true, "")).toBe(true);
    expect(wantsColour(true, "1")).toBe(false);
    expect(wantsColour(false, undefined)).toBe(false);
    expect(wantsColour(undefined, undefined)).toBe(false);
  });
});
