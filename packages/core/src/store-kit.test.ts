import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  checkLease,
  checkLeaseMs,
  checkOwner,
  pruneCutoff,
  storedError,
} from "./store-kit.js";

describe("store kit", () => {
  it("canonicalJson ignores key order at every depth, not array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [2, { y: 2, z: 1 }] }, b: 1 }),
    );
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("pruneCutoff takes a Date or an age, and refuses anything else naming the caller", () => {
    const at = new Date("2026-01-01T00:00:00Z");
    expect(pruneCutoff({ olderThan: at }, "s.prune()")).toBe(at.getTime());
    const now = Date.now();
    expect(pruneCutoff({ olderThan: 1000 }, "s.prune()")).toBeGreaterThanOrEqual(now - 1000);
    for (const bad of [-1, Number.NaN, new Date("nope"), "1d", undefined]) {
      expect(() => pruneCutoff({ olderThan: bad } as never, "s.prune()")).toThrow(
        "s.prune(): olderThan must be a valid Date or an age of 0 or more ms",
      );
    }
  });

  it("keeps only code, message and time of an error, and checks leases, owners and durations", () => {
    const kept = storedError(
      { code: "x", message: "m", at: "t", stack: "secret" } as never,
      "s.release()",
    );
    expect(kept).toEqual({ code: "x", message: "m", at: "t" });
    expect(() => storedError({ code: 1 } as never, "s.release()")).toThrow(TypeError);
    expect(() => checkLease({ runId: "r", owner: "o", token: 1.5 } as never, "s.step()")).toThrow(
      "s.step(): lease must be",
    );
    expect(() => checkOwner("", "s.claim()")).toThrow("owner must be a non-empty string");
    expect(() => checkLeaseMs(-5, "s.claim()")).toThrow("leaseMs must be zero or more");
    expect(() => checkLease({ runId: "r", owner: "o", token: 2, expiresAt: 0 }, "x")).not.toThrow();
  });
});
