import { describe, expect, it } from "vitest";
import { randomId } from "./ids.js";

describe("randomId()", () => {
  it("is the prefix and 32 hex digits, never repeated across pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = randomId("run");
      expect(id).toMatch(/^run_[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });

  it("writes every byte as its two hex digits: all 256 pairs appear, each at every position", () => {
    const pairs = new Set<string>();
    const atFirst = new Set<string>();
    for (let i = 0; i < 8_000; i++) {
      const digits = randomId("x").slice(2);
      for (let k = 0; k < 32; k += 2) pairs.add(digits.slice(k, k + 2));
      atFirst.add(digits.slice(0, 2));
    }
    expect(pairs.size).toBe(256);
    expect(atFirst.size).toBe(256);
  });
});
