// The bench's arithmetic, apart from any library so that it can be tested: medians and spreads,
// the warm-up that runs until a library's per-run time settles, per-round ratios, and the
// sanity check that fails the bench.

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The q-quantile (0..1) of a list, interpolating linearly between the closest ranks. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** Median, quartiles and extremes of a list: how a per-round figure spreads. */
export function spread(values) {
  return {
    median: median(values),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** Whether two positive figures agree within `tolerance` (0.03: 3 % of the smaller). */
export function agree(a, b, tolerance) {
  return Math.abs(a - b) <= tolerance * Math.min(a, b);
}

/**
 * Warms a library up until its per-run time settles. `batch()` runs one warm-up batch and
 * resolves to `{ perRun, runs, ms }` (the batch's median time per run, how many runs it made,
 * how long it took). Batches repeat until two consecutive batch medians agree within
 * `tolerance`, and at least `minBatches` batches and `minRuns` runs are done; `capMs` of
 * warm-up (measured by `now`) ends it unsettled. Resolves to the last batch's per-run time,
 * the totals, the batch medians and whether it settled.
 */
export async function warmUp(
  batch,
  { tolerance = 0.03, minBatches = 3, minRuns = 0, capMs = 20_000, now = () => performance.now() },
) {
  const t0 = now();
  const medians = [];
  let runs = 0;
  for (;;) {
    const result = await batch();
    medians.push(result.perRun);
    runs += result.runs;
    const n = medians.length;
    const settled =
      n >= Math.max(2, minBatches) &&
      runs >= minRuns &&
      agree(medians[n - 1], medians[n - 2], tolerance);
    const ms = now() - t0;
    if (settled || ms >= capMs) {
      return { perRun: medians[n - 1], runs, ms, batches: n, medians, settled };
    }
  }
}

/**
 * How many runs make one sample of at least `sampleMs` of wall-clock time, given a settled
 * time per run in the same unit as `sampleMs` (at least 1, so a slow library still gets a sample
 * per round).
 */
export function runsPerSample(perRunMs, sampleMs) {
  if (!(perRunMs > 0)) return 1;
  return Math.max(1, Math.ceil(sampleMs / perRunMs));
}

/**
 * Per-round ratios: `samples[i][r]` is library i's figure in round r; the ratio of library i
 * to library `base` is taken within each round (both measured minutes apart at most, under the
 * same load), then summarized. Returns, per library, the list of ratios and their spread.
 */
export function roundRatios(samples, base) {
  return samples.map((rounds) => {
    const ratios = rounds.map((value, r) => value / samples[base][r]);
    return { ratios, ...spread(ratios) };
  });
}

/**
 * The sanity check: one call (S1) cannot cost more than eight parallel calls of the same tool in
 * one turn (S2) once a library is warm; when it does, the measurement is wrong (too little
 * warm-up, a load spike), not the library. Returns one message per library that fails, empty
 * when all pass. `s1` and `s2` are per-library medians, `names` the libraries' names.
 */
export function sanityCheck(names, s1, s2, what = "wall-clock") {
  const failures = [];
  for (let i = 0; i < names.length; i++) {
    if (s1[i] > s2[i]) {
      failures.push(
        `${names[i]}: S1 (one call) ${s1[i].toFixed(1)} µs > S2 (eight parallel calls) ${s2[i].toFixed(1)} µs, ${what} medians`,
      );
    }
  }
  return failures;
}
