import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { copyWireData } from "./wire-data.js";

// A full GC while no copy is under way must not throw away copyWireData's compiled code: V8
// drops a hidden class no live object has (here the copier's), with the optimized code that
// uses it. wire-data.ts keeps one copier that never copied. Checked with V8's own status bits.
setFlagsFromString("--allow-natives-syntax");
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const prepare = new Function("f", "%PrepareFunctionForOptimization(f)") as (f: unknown) => void;
const optimizeNext = new Function("f", "%OptimizeFunctionOnNextCall(f)") as (f: unknown) => void;
const status = new Function("f", "return %GetOptimizationStatus(f)") as (f: unknown) => number;
// V8's OptimizationStatus: bit 4 is "optimized" (TurboFan or Maglev code installed).
const OPTIMIZED = 1 << 4;

describe("copyWireData across a full GC", () => {
  it("is still optimized after two full GCs with no copy alive", () => {
    const copyOf = () => copyWireData({ kind: "approval", prompt: "Allow?", n: [1, 2] }, "request");
    for (let i = 0; i < 200; i++)
      expect(copyOf()).toEqual({ value: { kind: "approval", prompt: "Allow?", n: [1, 2] } });
    prepare(copyWireData);
    copyOf();
    optimizeNext(copyWireData);
    copyOf();
    expect(status(copyWireData) & OPTIMIZED).toBe(OPTIMIZED);
    gc();
    gc();
    expect(status(copyWireData) & OPTIMIZED).toBe(OPTIMIZED);
  });
});
