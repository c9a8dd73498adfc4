// pnpm bench: the same five scenarios for toolnexus, three SDKs a user would pick instead, and a
// hand-written loop (the floor), with in-memory scripted models. Rounds are interleaved so the
// noise of the machine hits every library alike; the report is medians and ratios.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
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
const libs = [toolnexus, aiSdk, openaiAgents, langgraph, floor].map((module) => module.create());
const [TN, , , , FLOOR] = libs;

/** µs per run of `n` sequential runs. */
async function sample(run, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await run();
  return ((performance.now() - t0) * 1000) / n;
}

/** Warm a library up on a scenario and pick how many runs make one sample of `sampleMs`. */
async function calibrate(run, sampleMs) {
  let n = 0;
  const t0 = performance.now();
  while (n < 5 || (performance.now() - t0 < 150 && n < 2000)) {
    await run();
    n++;
  }
  const perRunMs = (performance.now() - t0) / n;
  return Math.max(1, Math.round(sampleMs / perRunMs));
}

/** Interleaved rounds (A B C D E, B C D E A, …): the median µs per run of each library. */
async function timeScenario(key, runOf) {
  const { rounds: count, sampleMs } = PLAN[key];
  const sizes = [];
  for (const lib of libs) sizes.push(await calibrate(runOf(lib), sampleMs));
  if (key === "s3") for (const lib of libs) lib.clock.reset();
  const samples = libs.map(() => []);
  const extra = libs.map(() => undefined);
  for (let round = 0; round < count; round++) {
    for (let j = 0; j < libs.length; j++) {
      const i = (round + j) % libs.length;
      samples[i].push(await sample(runOf(libs[i], extra, i), sizes[i]));
    }
  }
  log(`${PLAN[key].label}: done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  return { us: samples.map(median), extra };
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

// ---- report ----------------------------------------------------------------------------------

const fmtUs = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const fmtBytes = (bytes) =>
  bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${Math.round(bytes)} B`;
const fmtX = (ratio) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
const iTN = libs.indexOf(TN);
const iFloor = libs.indexOf(FLOOR);

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
const fastest = (column) => peers.every((i) => column.values[i] > tn(column));
const smallest = (column) =>
  peers.every((i) => column.values[i] === undefined || column.values[i] > tn(column));
const verdict = (ok) => (ok ? "met" : "**missed**");
const [c1, c2, , c4, c5, c5bytes] = columns;
const targets = [
  [
    "S1 within 2× the floor",
    `${fmtX(tn(c1) / c1.values[iFloor])}`,
    verdict(tn(c1) <= 2 * c1.values[iFloor]),
  ],
  ["S1 faster than every peer", "", verdict(fastest(c1))],
  [
    "S2 within 2× the floor",
    `${fmtX(tn(c2) / c2.values[iFloor])}`,
    verdict(tn(c2) <= 2 * c2.values[iFloor]),
  ],
  ["S2 faster than every peer", "", verdict(fastest(c2))],
  [
    "S3 turn 50 within 1.5× turn 1",
    `${fmtX(perTurn[iTN].last / perTurn[iTN].first)}`,
    verdict(perTurn[iTN].last <= 1.5 * perTurn[iTN].first),
  ],
  [
    "S4 smallest heap per in-flight run (of the libraries)",
    fmtBytes(tn(c4)),
    verdict(smallest(c4)),
  ],
  ["S5 fastest full cycle", fmtUs(tn(c5)), verdict(fastest(c5))],
  ["S5 smallest checkpoint", fmtBytes(tn(c5bytes)), verdict(smallest(c5bytes))],
  [
    "issue 3: one round trip ≤ 3× a hand-written loop",
    `${fmtX(tn(c1) / c1.values[iFloor])}`,
    verdict(tn(c1) <= 3 * c1.values[iFloor]),
  ],
];

const cpus = os.cpus();
const machine = `${cpus[0]?.model.trim() ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}; load average at the end ${os
  .loadavg()
  .map((load) => load.toFixed(1))
  .join(" ")}`;
const seconds = ((performance.now() - started) / 1000).toFixed(0);

const report = `# toolnexus bench

Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine}.
Every model is an in-memory script (no network); each library really runs the tool and
produces the final text, or the bench throws. Medians of interleaved rounds (S1 ${PLAN.s1.rounds}, S2 ${PLAN.s2.rounds},
S3 ${PLAN.s3.rounds}, S5 ${PLAN.s5.rounds} rounds; S4 ${S4_ROUNDS} rounds of ${S4_RUNS} runs), ${seconds} s in all.

## Median cost per run

${table(
  ["library", ...columns.map((column) => column.label)],
  libs.map((lib, i) => [
    lib.name,
    ...columns.map((column) =>
      column.values[i] === undefined ? "n/a" : column.fmt(column.values[i]),
    ),
  ]),
)}

## Ratio to the floor (hand-written loop)

${table(
  ["library", ...columns.map((column) => column.label)],
  libs.filter((_, i) => i !== iFloor).map((lib) => ratioRow(lib, libs.indexOf(lib), iFloor)),
)}

## Ratio to toolnexus

${table(
  ["library", ...columns.map((column) => column.label)],
  libs.filter((_, i) => i !== iTN).map((lib) => ratioRow(lib, libs.indexOf(lib), iTN)),
)}

## S3: cost of one turn at the start and at the end of a ${LONG_TURNS}-turn run

From asking the model for turn k to asking it for turn k + 1 (the loop around one tool call),
median over every measured run.

${table(
  ["library", "turn 1", `turn ${LONG_TURNS}`, `turn ${LONG_TURNS} / turn 1`],
  libs.map((lib, i) => [
    lib.name,
    fmtUs(perTurn[i].first),
    fmtUs(perTurn[i].last),
    fmtX(perTurn[i].last / perTurn[i].first),
  ]),
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
  fresh client resumes with the approval; time per full cycle and the persisted bytes.
  toolnexus: a tool returning \`pending()\`, a store keeping only the checkpoint's JSON text, a
  new \`createClient\` that \`resume\`s. AI SDK: \`needsApproval\` and the response messages as
  JSON. OpenAI Agents SDK: \`needsApproval\` and \`RunState\` \`toString\`/\`fromString\`.
  LangGraph: \`interrupt()\` in the tool, a \`MemorySaver\` (bytes: everything it keeps for the
  thread) and \`Command({ resume })\`. Floor: the transcript and the suspended call as JSON.
- Models: toolnexus a \`Model\` whose calls come through core's \`toolCall()\`; AI SDK
  \`MockLanguageModelV3\` from \`ai/test\` (its call log switched off); OpenAI Agents SDK a fake
  \`Model\` with tracing disabled; LangGraph a \`BaseChatModel\` subclass under
  \`createReactAgent\`. Each answers from the last message only, so the model's own cost does
  not grow with the transcript. Tools validate \`{ a, b }\` with the same zod schema (the floor
  checks by hand).
`;

mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
writeFileSync(new URL("../results/latest.md", import.meta.url), report);
process.stdout.write(report);
