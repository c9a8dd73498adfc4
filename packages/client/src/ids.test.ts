import { describe, expect, it } from "vitest";
import { loopId } from "./ids.js";

describe("loopId()", () => {
  it("is the prefix and 32 hex digits, never repeated across pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = loopId("run");
      expect(id).toMatch(/^run_[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });
});
