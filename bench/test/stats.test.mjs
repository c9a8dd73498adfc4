import { describe, expect, it } from "vitest";
import {
  agree,
  median,
  quantile,
  roundRatios,
  runsPerSample,
  sanityCheck,
  spread,
  warmUp,
} from "../src/stats.mjs";

describe("median, quantile, spread", () => {
  it("takes the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
  it("interpolates quantiles between ranks", () => {
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 0], 1)).toBe(10);
  });
  it("summarizes a list", () => {
    expect(spread([5, 1, 3, 2, 4])).toEqual({ median: 3, p25: 2, p75: 4, min: 1, max: 5, n: 5 });
  });
});

describe("warmUp", () => {
  /** A fake library whose per-run time falls as the JIT warms, then holds. */
  const batches = (perRun) => {
    let i = 0;
    return async () => ({ perRun: perRun[Math.min(i++, perRun.length - 1)], runs: 100, ms: 10 });
  };
  let clock = 0;
  const now = () => (clock += 10);

  it("runs until two consecutive batch medians agree within the tolerance", async () => {
    const result = await warmUp(batches([100, 60, 40, 30, 30.5, 30.4]), { tolerance: 0.03, now });
    expect(result.settled).toBe(true);
    expect(result.batches).toBe(5);
    expect(result.perRun).toBe(30.5);
    expect(result.runs).toBe(500);
  });
  it("does at least minBatches batches and minRuns runs", async () => {
    const steady = await warmUp(batches([10]), { minBatches: 4, now });
    expect(steady.batches).toBe(4);
    const many = await warmUp(batches([10]), { minRuns: 1000, now });
    expect(many.runs).toBe(1000);
    expect(many.settled).toBe(true);
  });
  it("stops unsettled at the cap", async () => {
    let t = 0;
    const result = await warmUp(batches([100, 50, 100, 50, 100, 50, 100, 50]), {
      capMs: 35,
      now: () => (t += 10),
    });
    expect(result.settled).toBe(false);
    expect(result.batches).toBe(4);
  });
});

describe("agree and runsPerSample", () => {
  it("compares against the smaller figure", () => {
    expect(agree(100, 103, 0.03)).toBe(true);
    expect(agree(103, 100, 0.03)).toBe(true);
    expect(agree(100, 104, 0.03)).toBe(false);
  });
  it("sizes a sample to last at least sampleMs, with one run at least", () => {
    expect(runsPerSample(0.002, 100)).toBe(50_000);
    expect(runsPerSample(3, 100)).toBe(34);
    expect(runsPerSample(500, 100)).toBe(1);
    expect(runsPerSample(0, 100)).toBe(1);
  });
});

describe("roundRatios", () => {
  it("divides within each round before summarizing", () => {
    // Round 2 ran under load for both: the per-round ratio stays 10, a ratio of medians would not.
    const samples = [
      [1, 2, 1],
      [10, 20, 10],
    ];
    const [self, peer] = roundRatios(samples, 0);
    expect(self.ratios).toEqual([1, 1, 1]);
    expect(peer.ratios).toEqual([10, 10, 10]);
    expect(peer).toMatchObject({ median: 10, p25: 10, p75: 10, min: 10, max: 10, n: 3 });
  });
});

describe("sanityCheck", () => {
  it("passes when every library's one call costs less than eight", () => {
    expect(sanityCheck(["a", "b"], [1, 300], [2, 400])).toEqual([]);
  });
  it("names each library whose S1 costs more than its S2", () => {
    const failures = sanityCheck(["a", "b", "c"], [1, 500, 9], [2, 400, 3]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(
      /^b: S1 \(one call\) 500\.0 µs > S2 \(eight parallel calls\) 400\.0 µs/,
    );
    expect(failures[1]).toMatch(/^c: /);
  });
});
