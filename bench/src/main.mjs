// One section of the bench in one process: the five scenarios for toolnexus, the peers a
// peers.mjs file names and a hand-written loop (the floor), with in-memory scripted models.
// Prints the raw figures as JSON on stdout; run.mjs (what `pnpm bench` runs) starts one such
// process per section and per "alone" run, checks the figures and writes the report.
//
//   node --expose-gc src/main.mjs [--peers FILE] [--only aiSdk,...] [--alone] [--quick]
//
// --peers: the peers.mjs of the bench package whose SDKs to load (default: this package's).
// --alone: toolnexus and the floor only, no peer loaded. --quick: fewer, shorter rounds.
import os from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { LONG_TURNS } from "./common.mjs";
import * as aiSdk from "./libs/ai-sdk.mjs";
import * as floor from "./libs/floor.mjs";
import * as langgraph from "./libs/langgraph.mjs";
import * as openaiAgents from "./libs/openai-agents.mjs";
import * as toolnexus from "./libs/toolnexus.mjs";
import { median, runsPerSample, warmUp } from "./stats.mjs";

if (typeof globalThis.gc !== "function") {
  throw new Error("run with node --expose-gc (run.mjs does)");
}
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};

const { values: args } = parseArgs({
  options: {
    peers: { type: "string", default: new URL("./peers.mjs", import.meta.url).pathname },
    only: { type: "string" },
    alone: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
  },
});
const QUICK = args.quick;

/**
 * The plan. Warm-up: batches of five timed samples, repeated until two consecutive batch
 * medians agree within WARM.tolerance, after at least WARM.minBatches batches and `minRuns`
 * runs, or until `capMs` of warm-up. Sampling: each sample is as many runs as last about
 * `sampleMs` of wall-clock time for that library (so a slow library gets as many samples, each
 * as long, as a fast one); `rounds` interleaved rounds of one sample per library.
 */
const WARM = { tolerance: 0.03, minBatches: 3 };
const PLAN = QUICK
  ? {
      s1: { rounds: 7, sampleMs: 40, batchMs: 100, minRuns: 200, capMs: 3000 },
      s2: { rounds: 7, sampleMs: 40, batchMs: 100, minRuns: 200, capMs: 3000 },
      s3: { rounds: 5, sampleMs: 100, batchMs: 200, minRuns: 20, capMs: 4000 },
      s5: { rounds: 7, sampleMs: 40, batchMs: 100, minRuns: 200, capMs: 3000 },
    }
  : {
      s1: { rounds: 25, sampleMs: 100, batchMs: 250, minRuns: 3000, capMs: 20_000 },
      s2: { rounds: 21, sampleMs: 100, batchMs: 250, minRuns: 3000, capMs: 20_000 },
      s3: { rounds: 11, sampleMs: 300, batchMs: 600, minRuns: 100, capMs: 20_000 },
      s5: { rounds: 21, sampleMs: 100, batchMs: 250, minRuns: 1000, capMs: 20_000 },
    };
const LABELS = {
  s1: "S1 one round trip",
  s2: "S2 fan-out ×8",
  s3: `S3 ${LONG_TURNS} turns`,
  s5: "S5 suspend + resume",
};
/**
 * Before the first scenario, every library cycles through S1, S2 and S5 for PREWARM_MS: the
 * scenarios share most of a library's code, so without this the scenario measured first (S1)
 * catches the slow libraries still tiering up, and one call then costs more than eight.
 */
const PREWARM_MS = QUICK ? 1500 : 8000;
const S4_RUNS = 1000;
const S4_ROUNDS = QUICK ? 1 : 3;

const log = (line) => process.stderr.write(`${line}\n`);
const started = performance.now();
const load = () => os.loadavg().map((value) => Number(value.toFixed(2)));
const loadAtStart = load();

// Table order: toolnexus first, the peers, the floor last.
const only = args.only?.split(",");
const peerFiles = { aiSdk, openaiAgents, langgraph };
const { peers, section } = args.alone
  ? { peers: {}, section: undefined }
  : await import(pathToFileURL(args.peers).href);
const entries = [["toolnexus", toolnexus.create()]];
for (const [key, loadDeps] of Object.entries(peers)) {
  if (only !== undefined && !only.includes(key)) continue;
  entries.push([key, peerFiles[key].create(await loadDeps())]);
}
entries.push(["floor", floor.create()]);
const keys = entries.map(([key]) => key);
const libs = entries.map(([, lib]) => lib);

/**
 * One sample: `n` sequential runs; µs per run of wall-clock time and of this process's CPU
 * time (process.cpuUsage: every thread of the process, V8's background compiler and GC threads
 * included, so CPU time can exceed wall-clock time). No forced GC before a sample: V8 then
 * shrinks the young generation and the next thousands of runs pay for growing it back.
 */
async function sample(run, n) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await run();
  const wall = ((performance.now() - t0) * 1000) / n;
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / n, wall };
}

/** Warms `run` up until its per-run wall-clock time settles (see WARM and PLAN). */
async function warm(run, plan) {
  let n = 1;
  const batch = async () => {
    const perRun = [];
    let runs = 0;
    const t0 = performance.now();
    for (let k = 0; k < 5; k++) {
      const result = await sample(run, n);
      perRun.push(result.wall);
      runs += n;
      n = runsPerSample(result.wall / 1000, plan.batchMs / 5);
    }
    return { perRun: median(perRun), runs, ms: performance.now() - t0 };
  };
  const result = await warmUp(batch, { ...WARM, minRuns: plan.minRuns, capMs: plan.capMs });
  return {
    runs: result.runs,
    ms: Math.round(result.ms),
    batches: result.batches,
    settled: result.settled,
    perRunUs: result.perRun,
  };
}

/**
 * A scenario: every library warmed up, then interleaved rounds (A B C D E, B C D E A, …) of one
 * sample per library; per round and library, µs per run of wall-clock and CPU time.
 */
async function timeScenario(key, runOf) {
  const plan = PLAN[key];
  const loadBefore = load();
  const warmUps = [];
  const sizes = [];
  for (let i = 0; i < libs.length; i++) {
    const result = await warm(runOf(libs[i], i), plan);
    warmUps.push(result);
    sizes.push(runsPerSample(result.perRunUs / 1000, plan.sampleMs));
    log(
      `  ${LABELS[key]}: ${libs[i].name} warm after ${result.runs} runs, ${result.ms} ms (${result.settled ? "settled" : "NOT settled, cap reached"}), ${sizes[i]} runs per sample`,
    );
  }
  if (key === "s3") for (const lib of libs) lib.clock.reset();
  const wall = libs.map(() => []);
  const cpu = libs.map(() => []);
  for (let round = 0; round < plan.rounds; round++) {
    for (let j = 0; j < libs.length; j++) {
      const i = (round + j) % libs.length;
      const result = await sample(runOf(libs[i], i), sizes[i]);
      wall[i].push(result.wall);
      cpu[i].push(result.cpu);
    }
  }
  log(`${LABELS[key]}: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  return {
    label: LABELS[key],
    ...plan,
    load: { before: loadBefore, after: load() },
    warm: warmUps,
    runsPerSample: sizes,
    wall,
    cpu,
  };
}

/** S4: heap bytes per in-flight run, 1,000 runs parked in their tool, after a forced GC. */
async function heapPerRun(lib, runs = S4_RUNS) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const ranBefore = lib.ran.n;
  const inFlight = [];
  for (let i = 0; i < runs; i++) inFlight.push(lib.s4());
  const deadline = performance.now() + 60_000;
  while (lib.door.parked < runs) {
    if (performance.now() > deadline)
      throw new Error(`${lib.name} s4: runs never reached the tool`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  lib.door.open();
  await Promise.all(inFlight);
  if (lib.ran.n - ranBefore !== runs) throw new Error(`${lib.name} s4: not every tool ran`);
  return (after - before) / runs;
}

log(
  `bench ${args.alone ? "(alone)" : (section?.title ?? "")}: ${libs.map((lib) => lib.name).join(", ")}, Node ${process.version}`,
);
const prewarm = [];
for (const lib of libs) {
  const t0 = performance.now();
  let cycles = 0;
  while (performance.now() - t0 < PREWARM_MS) {
    await lib.s1();
    await lib.s2();
    await lib.s5();
    cycles++;
  }
  prewarm.push({ cycles, ms: Math.round(performance.now() - t0) });
}
log(`pre-warm: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
const s1 = await timeScenario("s1", (lib) => lib.s1);
const s2 = await timeScenario("s2", (lib) => lib.s2);
const s3 = await timeScenario("s3", (lib) => async () => {
  await lib.s3();
  lib.clock.collect();
});
const s5bytes = libs.map(() => undefined);
const s5 = await timeScenario("s5", (lib, i) => async () => {
  s5bytes[i] = await lib.s5();
});

let s4;
if (!args.alone) {
  // Warm-up: first-time allocations (compiled code, caches) are not a run's.
  for (const lib of libs) await heapPerRun(lib, 100);
  const s4samples = libs.map(() => []);
  for (let round = 0; round < S4_ROUNDS; round++) {
    for (let j = 0; j < libs.length; j++) {
      const i = (round + j) % libs.length;
      s4samples[i].push(await heapPerRun(libs[i]));
    }
  }
  s4 = { runs: S4_RUNS, rounds: S4_ROUNDS, bytes: s4samples.map(median) };
  log(`S4 memory: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

const s3turns = libs.map((lib) => ({
  first: median(lib.clock.deltas[0]),
  last: median(lib.clock.deltas[LONG_TURNS - 1]),
}));

process.stdout.write(
  JSON.stringify({
    section,
    alone: args.alone,
    quick: QUICK,
    node: process.version,
    libs: libs.map((lib, i) => ({ key: keys[i], name: lib.name, version: lib.version })),
    load: { start: loadAtStart, end: load() },
    seconds: Math.round((performance.now() - started) / 1000),
    warm: WARM,
    prewarm,
    scenarios: { s1, s2, s3, s5 },
    s3turns,
    s4,
    s5bytes,
    longTurns: LONG_TURNS,
  }),
);
