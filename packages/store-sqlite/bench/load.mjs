// Load benchmark for @toolnexus/store-sqlite (not a test: it asserts nothing, it prints figures).
//
//   pnpm --filter @toolnexus/store-sqlite bench      (builds dist, then runs this file)
//   node bench/load.mjs [--runs=10000] [--writes=2000] [--synchronous=full|normal|both]
//
// For each synchronous level, on a fresh file:
// 1. halts N runs (one or two requests each, a short transcript): halt cost;
// 2. records an answer to every request: answers per second (a web handler's cost);
// 3. claims every ready run with the generic claim until none is left: claims per second;
// 4. on one leased run, writes steps (a 20-message transcript) and journal entries: ms per write;
// 5. lists the inbox among N runs.
// Every figure is store time only, measured with process.hrtime around the call.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKPOINT_VERSION } from "@toolnexus/core";
import { sqliteStore } from "../dist/index.js";

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
};
const RUNS = Number(arg("runs", "10000"));
const WRITES = Number(arg("writes", "2000"));
const LEVELS = arg("synchronous", "both") === "both" ? ["full", "normal"] : [arg("synchronous")];

const now = () => process.hrtime.bigint();
const ms = (ns) => Number(ns) / 1e6;
const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const total = samples.reduce((sum, s) => sum + s, 0);
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1], total };
};
const fmt = (value) => (value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(2)} ms`);
const line = (label, s, extra = "") =>
  console.log(
    `  ${label.padEnd(30)} median ${fmt(s.median).padStart(9)}   p95 ${fmt(s.p95).padStart(9)}   max ${fmt(s.max).padStart(9)}${extra}`,
  );
const perSecond = (s, count) =>
  `   -> ${Math.round(count / (s.total / 1000)).toLocaleString("en")}/s`;

function timed(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const t = now();
    fn(i);
    samples.push(ms(now() - t));
  }
  return stats(samples);
}

const transcript = (i, length) =>
  Array.from({ length }, (_, k) =>
    k % 2 === 0
      ? { role: "user", content: `Message ${k} of run ${i}: please check the build and report.` }
      : { role: "assistant", id: `msg_${i}_${k}`, content: `Checked step ${k}; all green so far.` },
  );

function haltedCheckpoint(i) {
  const requests = [
    { id: `pnd_${i}_a`, kind: "approval", prompt: `Deploy build ${i} to production?` },
  ];
  if (i % 4 === 0) {
    requests.push({
      id: `pnd_${i}_b`,
      kind: "input",
      prompt: "Which region?",
      data: { schema: { type: "string", enum: ["eu", "us"] } },
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
  }
  const callId = (r) => `call_${r.id}`;
  return {
    version: CHECKPOINT_VERSION,
    runId: `run_${i}`,
    sessionId: `session_${i % 500}`,
    agent: "deployer",
    createdAt: new Date().toISOString(),
    messages: [
      { role: "system", content: "You deploy builds. Ask before touching production." },
      { role: "user", content: `Ship build ${i} please, and tell me when it is live.` },
      {
        role: "assistant",
        id: `msg_${i}`,
        content: "Checking with you first.",
        toolCalls: requests.map((r) => ({
          id: callId(r),
          name: "deploy",
          args: { build: i, target: "production" },
          rawArgs: JSON.stringify({ build: i, target: "production" }),
        })),
      },
      ...requests.map((r) => ({
        role: "tool",
        callId: callId(r),
        name: "deploy",
        content: r.prompt,
        isError: true,
      })),
    ],
    pending: requests.map((r, k) => ({
      request: r,
      callId: callId(r),
      tool: "deploy",
      args: { build: i, target: "production" },
      fingerprint: `deploy:${i}`,
      approval: r.kind === "approval",
      slot: 3 + k,
    })),
    turns: 1,
    usage: { promptTokens: 420, completionTokens: 37, totalTokens: 457 },
  };
}

const journalEntry = (k) => ({
  callId: `call_${k}`,
  message: {
    role: "tool",
    callId: `call_${k}`,
    name: "check",
    content: `result ${k}: ok`,
    isError: false,
  },
  record: {
    id: `call_${k}`,
    name: "check",
    args: { step: k },
    result: { output: `result ${k}: ok`, isError: false },
    status: "ok",
    timedOut: false,
    durationMs: 3,
  },
});

function bench(synchronous) {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-"));
  const path = join(dir, "bench.db");
  try {
    console.log(`\nsynchronous=${synchronous}`);
    const store = sqliteStore({ path, synchronous });

    const checkpoints = Array.from({ length: RUNS }, (_, i) => haltedCheckpoint(i));
    const halts = timed(RUNS, (i) => store.halt(checkpoints[i]));
    const requestIds = checkpoints.flatMap((c) => c.pending.map((p) => p.request.id));
    line(`halt (${RUNS} new runs)`, halts, perSecond(halts, RUNS));
    console.log(
      `  file ${(statSync(path).size / 1e6).toFixed(1)} MB (+ WAL), ${requestIds.length} requests`,
    );

    const answers = timed(requestIds.length, (i) =>
      store.answer({ id: requestIds[i], ok: true, data: { region: "eu" } }),
    );
    line(`answer (${requestIds.length})`, answers, perSecond(answers, requestIds.length));

    let claimed = 0;
    const claimSamples = [];
    for (;;) {
      const t = now();
      const run = store.claim({ owner: "bench", leaseMs: 600_000 });
      claimSamples.push(ms(now() - t));
      if (run === undefined) break;
      claimed++;
    }
    const claims = stats(claimSamples);
    line(`claim (${claimed} ready runs)`, claims, perSecond(claims, claimed));

    const listAll = timed(5, () => store.list());
    line(`list() all ${store.list().length}`, listAll);
    line(
      "list({ limit: 50 })",
      timed(50, () => store.list({ limit: 50 })),
    );
    line(
      "list({ sessionId })",
      timed(50, () => store.list({ sessionId: "session_42" })),
    );
    line(
      "getRun(runId)",
      timed(1000, (i) => store.getRun(`run_${(i * 7919) % RUNS}`)),
    );

    // Step and journal writes of one run in flight, with a realistic 20-message transcript.
    const base = { ...haltedCheckpoint(-1), runId: "run_steps", pending: [] };
    const lease = store.start({ ...base, messages: transcript(-1, 20) }, "bench", 600_000);
    const steps = timed(WRITES, (k) =>
      store.step(lease, { ...base, messages: transcript(k, 20), turns: k + 1 }),
    );
    line(`step (${WRITES}, 20 messages)`, steps, perSecond(steps, WRITES));
    const journals = timed(WRITES, (k) => store.journal(lease, journalEntry(k)));
    line(`journal (${WRITES})`, journals, perSecond(journals, WRITES));
    const renewals = timed(WRITES, () => store.renew(lease, 600_000));
    line(`renew (${WRITES})`, renewals, perSecond(renewals, WRITES));
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `@toolnexus/store-sqlite load benchmark: ${RUNS} halted runs, ${WRITES} step/journal writes, node ${process.version}`,
);
for (const level of LEVELS) bench(level);
