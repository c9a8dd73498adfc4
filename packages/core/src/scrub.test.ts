import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, Scrubber } from "./scrub.js";

describe("Scrubber", () => {
  it("replaces each secret, the longest first, and leaves short values alone", () => {
    const scrub = new Scrubber(["sk-live-123", "sk-live-123-extended", "abc"]);
    expect("abc".length).toBeLessThan(MIN_SECRET_LENGTH);
    expect(scrub.text("key sk-live-123-extended and sk-live-123, abc")).toBe(
      "key *** and ***, abc",
    );
    expect(scrub.empty).toBe(false);
    expect(new Scrubber(["ab"]).empty).toBe(true);
  });

  it("scrubs every string of a value, keys included, and keeps other values", () => {
    const scrub = new Scrubber(["hunter22"]);
    const when = new Date(0);
    expect(
      scrub.deep({ list: ["x hunter22", 3], hunter22: true, nested: { when, ok: null } }),
    ).toEqual({ list: ["x ***", 3], "***": true, nested: { when, ok: null } });
  });
});
