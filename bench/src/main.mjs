// pnpm bench: the same five scenarios for toolnexus, three SDKs a user would pick instead, and a
// hand-written loop (the floor), with in-memory scripted models. Rounds are interleaved so the
// noise of the machine hits every library alike; the report is medians and ratios.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { LONG_TURNS } from "./common.mjs";
import * as aiSdk from "./libs/ai-sdk.mjs";
import * as floor from "./libs/floor.mjs";
import * as langgraph from "./libs/langgraph.mjs";
import * as openaiAgents from "./libs/openai-agents.mjs";
import * as toolnexus from "./libs/toolnexus.mjs";

if (typeof globalThis.gc !== "function") {
  throw new Error("run with node --expose-gc (pnpm bench does)");
}
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};

// BENCH_SCALE=0.3 for a quick look; 1 is the committed configuration (about a minute and a half).
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const rounds = (n) => Math.max(3, Math.round(n * SCALE) | 1);
const PLAN = {
  s1: { rounds: rounds(25), sampleMs: 30, label: "S1 one round trip" },
  s2: { rounds: rounds(21), sampleMs: 30, label: "S2 fan-out ×8" },
  s3: { rounds: rounds(11), sampleMs: 60, label: `S3 ${LONG_TURNS} turns` },
  s5: { rounds: rounds(21), sampleMs: 30, label: "S5 suspend + resume" },
};
const WARM_MS = 800 * Math.min(1, SCALE * 2);
const S4_RUNS = 1000;
// One measured round: heap per run averages over 1,000 runs already, and LangGraph takes
// seconds per thousand.
const S4_ROUNDS = Math.max(1, Math.round(SCALE));

const log = (line) => process.stderr.write(`${line}\n`);
const started = performance.now();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// Table order: toolnexus first, the peers, the floor last.
// BENCH_ONLY=toolnexus,floor runs a subset (for profiling); the report needs both of those.
const only = process.env.BENCH_ONLY?.split(",");
const modules = { toolnexus, aiSdk, openaiAgents, langgraph, floor };
const libs = Object.entries(modules)
  .filter(
    ([key]) => only === undefined || only.includes(key) || key === "toolnexus" || key === "floor",
  )
  .map(([, module]) => module.create());
const TN = libs[0];
const FLOOR = libs[libs.length - 1];

/** µs per run of `n` sequential runs. */
/**
 * One sample: `n` sequential runs; µs per run of this process's CPU time and of wall-clock
 * time. No forced GC before a sample: V8 then shrinks the young generation and the next
 * thousands of runs pay for growing it back, which swamps a loop that costs microseconds.
 */
async function sample(run, n) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await run();
  const wall = ((performance.now() - t0) * 1000) / n;
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / n, wall };
}

/**
 * Warm a library up on a scenario and pick how many runs make one sample of `sampleMs`. The
 * JIT needs thousands of runs of a microsecond loop before its cost settles, so the warm-up
 * lasts about WARM_MS (at least 3 runs), and the sample size comes from its second half.
 */
async function calibrate(run, sampleMs) {
  const t0 = performance.now();
  let n = 0;
  let half;
  while (n < 3 || performance.now() - t0 < WARM_MS) {
    await run();
    n++;
    if (half === undefined && performance.now() - t0 >= WARM_MS / 2)
      half = { n, t: performance.now() };
  }
  const perRunMs =
    half === undefined || n === half.n
      ? (performance.now() - t0) / n
      : (performance.now() - half.t) / (n - half.n);
  return Math.max(1, Math.round(sampleMs / perRunMs));
}

/** Interleaved rounds (A B C D E, B C D E A, …): the median µs per run of each library. */
async function timeScenario(key, runOf) {
  const { rounds: count, sampleMs } = PLAN[key];
  const sizes = [];
  for (const lib of libs) sizes.push(await calibrate(runOf(lib), sampleMs));
  if (key === "s3") for (const lib of libs) lib.clock.reset();
  const cpu = libs.map(() => []);
  const wall = libs.map(() => []);
  const extra = libs.map(() => undefined);
  for (let round = 0; round < count; round++) {
    for (let j = 0; j < libs.length; j++) {
      const i = (round + j) % libs.length;
      const result = await sample(runOf(libs[i], extra, i), sizes[i]);
      cpu[i].push(result.cpu);
      wall[i].push(result.wall);
    }
  }
  log(`${PLAN[key].label}: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  return { us: cpu.map(median), wall: wall.map(median), extra };
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

log(`bench: ${libs.map((lib) => lib.name).join(", ")}`);
const s1 = await timeScenario("s1", (lib) => lib.s1);
const s2 = await timeScenario("s2", (lib) => lib.s2);
const s3 = await timeScenario("s3", (lib) => async () => {
  await lib.s3();
  lib.clock.collect();
});
const s5 = await timeScenario("s5", (lib, extra, i) => async () => {
  const bytes = await lib.s5();
  if (extra !== undefined) extra[i] = bytes;
});

// Warm-up: first-time allocations (compiled code, caches) are not a run's.
for (const lib of libs) await heapPerRun(lib, 100);
const s4samples = libs.map(() => []);
for (let round = 0; round < S4_ROUNDS; round++) {
  for (let j = 0; j < libs.length; j++) {
    const i = (round + j) % libs.length;
    s4samples[i].push(await heapPerRun(libs[i]));
  }
}
const s4 = s4samples.map(median);
log(`S4 memory: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);

const iTN = libs.indexOf(TN);
const iFloor = libs.indexOf(FLOOR);
const pair = (result) => ({ toolnexus: result[iTN], floor: result[iFloor] });

if (process.env.BENCH_CHILD === "1") {
  // A child run (toolnexus and the floor alone) hands its figures to the parent as JSON.
  process.stdout.write(
    JSON.stringify({ s1: pair(s1.us), s2: pair(s2.us), s3: pair(s3.us), s5: pair(s5.us) }),
  );
  process.exit(0);
}

/**
 * The same rounds for toolnexus and the floor in a process of their own: next to the peers'
 * heap and garbage every microsecond loop runs slower, the smallest (the floor) most, which
 * flatters the ratios of the shared process.
 */
function runAlone() {
  log("toolnexus and the floor alone: running in a child process");
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_ONLY: "none", BENCH_CHILD: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`the child bench failed with status ${child.status}`);
  return JSON.parse(child.stdout);
}
const alone = only === undefined ? runAlone() : undefined;

// ---- report ----------------------------------------------------------------------------------

const fmtUs = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const fmtBytes = (bytes) =>
  bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${Math.round(bytes)} B`;
const fmtX = (ratio) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;

const columns = [
  { label: PLAN.s1.label, values: s1.us, fmt: fmtUs },
  { label: PLAN.s2.label, values: s2.us, fmt: fmtUs },
  { label: PLAN.s3.label, values: s3.us, fmt: fmtUs },
  { label: "S4 heap per in-flight run", values: s4, fmt: fmtBytes },
  { label: PLAN.s5.label, values: s5.us, fmt: fmtUs },
  { label: "S5 checkpoint", values: s5.extra, fmt: fmtBytes },
];

const table = (header, rows) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");

const ratioRow = (lib, i, base) => [
  lib.name,
  ...columns.map((column) =>
    column.values[i] === undefined || column.values[base] === undefined
      ? "n/a"
      : fmtX(column.values[i] / column.values[base]),
  ),
];

const perTurn = libs.map((lib) => ({
  first: median(lib.clock.deltas[0]),
  last: median(lib.clock.deltas[LONG_TURNS - 1]),
}));

const tn = (column) => column.values[iTN];
const peers = libs.map((_, i) => i).filter((i) => i !== iTN && i !== iFloor);
const beats = (column, among = peers) =>
  among.every((i) => column.values[i] === undefined || column.values[i] > tn(column));
const verdict = (ok) => (ok ? "met" : "**missed**");
const [c1, c2, , c4, c5, c5bytes] = columns;
const toFloor = (column) => tn(column) / column.values[iFloor];
// The issue names the OpenAI Agents SDK's RunState and LangGraph's interrupt as the S5
// equivalents; the AI SDK's tool approval (messages as the state) is measured too.
const namedS5 = peers.filter((i) => libs[i] !== libs.find((lib) => lib.name === "Vercel AI SDK"));
const aloneRatio = (key) =>
  alone === undefined ? undefined : alone[key].toolnexus / alone[key].floor;
/** A ratio-to-the-floor target, in the shared process and alone. */
const floorTarget = (label, column, key, limit) => {
  const shared = toFloor(column);
  const own = aloneRatio(key);
  return own === undefined
    ? [label, fmtX(shared), verdict(shared <= limit)]
    : [
        `${label} (shared process / alone)`,
        `${fmtX(shared)} / ${fmtX(own)}`,
        `${verdict(shared <= limit)} / ${verdict(own <= limit)}`,
      ];
};
const targets = [
  floorTarget("S1 within 2× the floor", c1, "s1", 2),
  ["S1 faster than every peer", fmtUs(tn(c1)), verdict(beats(c1))],
  floorTarget("S2 within 2× the floor", c2, "s2", 2),
  ["S2 faster than every peer", fmtUs(tn(c2)), verdict(beats(c2))],
  [
    `S3 turn ${LONG_TURNS} within 1.5× turn 1`,
    fmtX(perTurn[iTN].last / perTurn[iTN].first),
    verdict(perTurn[iTN].last <= 1.5 * perTurn[iTN].first),
  ],
  ["S4 smallest heap per in-flight run of the libraries", fmtBytes(tn(c4)), verdict(beats(c4))],
  ["S5 fastest full cycle", fmtUs(tn(c5)), verdict(beats(c5))],
  [
    "S5 smallest checkpoint (vs OpenAI Agents SDK RunState, LangGraph MemorySaver)",
    fmtBytes(tn(c5bytes)),
    verdict(beats(c5bytes, namedS5)),
  ],
  [
    "S5 smallest checkpoint, also vs the AI SDK's message list",
    fmtBytes(tn(c5bytes)),
    verdict(beats(c5bytes)),
  ],
  floorTarget("issue 3: one round trip ≤ 3× a hand-written loop", c1, "s1", 3),
];

const aloneSection =
  alone === undefined
    ? ""
    : `## toolnexus and the floor alone

The same rounds in a child process that loads neither peer. Next to the peers' heap and garbage
every microsecond-scale loop runs slower, and the floor, the smallest, the most, which flatters
toolnexus's ratios in the shared process; these are the ratios a user of toolnexus alone sees.

${table(
  ["scenario", "toolnexus", "floor", "ratio alone", "ratio in the shared process"],
  [
    ["s1", PLAN.s1.label, c1],
    ["s2", PLAN.s2.label, c2],
    ["s3", PLAN.s3.label, columns[2]],
    ["s5", PLAN.s5.label, c5],
  ].map(([key, label, column]) => [
    label,
    fmtUs(alone[key].toolnexus),
    fmtUs(alone[key].floor),
    fmtX(aloneRatio(key)),
    fmtX(toFloor(column)),
  ]),
)}

`;

const cpus = os.cpus();
const machine = `${cpus[0]?.model.trim() ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}; load average at the end ${os
  .loadavg()
  .map((load) => load.toFixed(1))
  .join(" ")}`;
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const header = ["library", ...columns.map((column) => column.label)];
const wallColumns = [
  [PLAN.s1.label, s1.wall],
  [PLAN.s2.label, s2.wall],
  [PLAN.s3.label, s3.wall],
  [PLAN.s5.label, s5.wall],
];

const report = `# toolnexus bench

Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine}.

Every model is an in-memory script (no network); each library really runs the tool and
produces the final text, or the bench throws. Times are medians of interleaved rounds (S1
${PLAN.s1.rounds}, S2 ${PLAN.s2.rounds}, S3 ${PLAN.s3.rounds}, S5 ${PLAN.s5.rounds}) of the bench process's CPU time per run, which
other processes on a shared machine disturb less than the wall clock (wall-clock medians are
below too). S4 is one round of ${S4_RUNS} runs after a warm-up. ${seconds} s in all.

## Median cost per run

${table(
  header,
  libs.map((lib, i) => [
    lib.name,
    ...columns.map((column) =>
      column.values[i] === undefined ? "n/a" : column.fmt(column.values[i]),
    ),
  ]),
)}

## Ratio to the floor (hand-written loop)

${table(
  header,
  libs.filter((_, i) => i !== iFloor).map((lib) => ratioRow(lib, libs.indexOf(lib), iFloor)),
)}

## Ratio to toolnexus

${table(
  header,
  libs.filter((_, i) => i !== iTN).map((lib) => ratioRow(lib, libs.indexOf(lib), iTN)),
)}

## S3: cost of one turn at the start and at the end of a ${LONG_TURNS}-turn run

Wall-clock time from asking the model for turn k to asking it for turn k + 1 (the loop around
one tool call), median over every measured run.

${table(
  ["library", "turn 1", `turn ${LONG_TURNS}`, `turn ${LONG_TURNS} / turn 1`],
  libs.map((lib, i) => [
    lib.name,
    fmtUs(perTurn[i].first),
    fmtUs(perTurn[i].last),
    fmtX(perTurn[i].last / perTurn[i].first),
  ]),
)}

${aloneSection}## Wall-clock medians

${table(
  ["library", ...wallColumns.map(([label]) => label)],
  libs.map((lib, i) => [lib.name, ...wallColumns.map(([, values]) => fmtUs(values[i]))]),
)}

## toolnexus targets

${table(["target", "toolnexus", "result"], targets)}

## Versions

${libs.map((lib) => `- ${lib.name}: ${lib.version}`).join("\n")}

## Scenarios

- S1: the model asks for \`add({"a":2,"b":3})\`, the tool returns 5, the model answers.
- S2: eight \`add\` calls in one turn, run in parallel, then the answer.
- S3: ${LONG_TURNS} turns of one \`add\` call each, then the answer (the transcript grows to ${2 * LONG_TURNS + 2} messages).
- S4: ${S4_RUNS} concurrent runs whose tool awaits a promise the bench resolves later; heap bytes
  per run after a forced GC while all of them wait.
- S5: the tool needs a human; the run halts, its state goes through JSON text and back, and a
  fresh client resumes with the approval; CPU time per full cycle and the persisted bytes.
  toolnexus: a tool returning \`pending()\`, a store keeping only the checkpoint's JSON text, a
  new \`createClient\` that \`resume\`s. AI SDK: \`needsApproval\` and the response messages as
  JSON (the host keeps them and the approval id). OpenAI Agents SDK: \`needsApproval\` and
  \`RunState\` \`toString\`/\`fromString\`. LangGraph: \`interrupt()\` in the tool, a \`MemorySaver\`
  (bytes: everything it keeps for the thread) and \`Command({ resume })\` on the same compiled
  graph. Floor: the transcript and the suspended call as JSON.
- Models: toolnexus a \`Model\` whose calls come through core's \`toolCall()\`; AI SDK
  \`MockLanguageModelV3\` from \`ai/test\` (its call log switched off); OpenAI Agents SDK a fake
  \`Model\` with tracing disabled; LangGraph a \`BaseChatModel\` subclass under
  \`createReactAgent\`. Each gives response ids like a provider and answers from the last
  message only, so the model's own cost does not grow with the transcript. Tools validate
  \`{ a, b }\` with the same zod schema (the floor checks by hand).
`;

mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
writeFileSync(new URL("../results/latest.md", import.meta.url), report);
process.stdout.write(report);
