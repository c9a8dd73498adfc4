// Load benchmark for @toolnexus/store-sqlite (not a test: it asserts nothing, it prints figures).
//
//   pnpm --filter @toolnexus/store-sqlite bench      (builds dist, then runs this file)
//   node bench/load.mjs [--runs=10000] [--synchronous=full|normal]   (after a build)
//
// Writes N halted runs (one checkpoint each, with a short transcript and one or two pending
// requests), lists them, then times get-by-id and claim-by-id on random requests. Every figure
// is store time only: the call itself, measured with process.hrtime around it.
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
const SYNCHRONOUS = arg("synchronous", "full");
const SAMPLES = 1000;

const now = () => process.hrtime.bigint();
const ms = (ns) => Number(ns) / 1e6;
const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
};
const fmt = (value) => (value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(2)} ms`);
const line = (label, s) =>
  console.log(
    `${label.padEnd(34)} median ${fmt(s.median).padStart(10)}   p95 ${fmt(s.p95).padStart(10)}   max ${fmt(s.max).padStart(10)}`,
  );

function checkpointFor(i) {
  const requests = [
    { id: `pnd_${i}_a`, kind: "approval", prompt: `Deploy build ${i} to production?` },
  ];
  if (i % 4 === 0) {
    requests.push({
      id: `pnd_${i}_b`,
      kind: "input",
      prompt: "Which region?",
      data: { schema: { type: "string", enum: ["eu", "us"] } },
      expiresAt: new Date(Date.now() + (i % 8 === 0 ? -1 : 1) * 3_600_000).toISOString(),
    });
  }
  const callId = (r) => `call_${r.id}`;
  return {
    version: CHECKPOINT_VERSION,
    id: `ckp_${i}`,
    runId: `run_${i}`,
    sessionId: `session_${i % 500}`,
    agent: "deployer",
    createdAt: new Date(Date.now() - (RUNS - i) * 1000).toISOString(),
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

const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-"));
const path = join(dir, "bench.db");
try {
  console.log(
    `@toolnexus/store-sqlite load benchmark: ${RUNS} halted runs, synchronous=${SYNCHRONOUS}, node ${process.version}`,
  );
  const store = sqliteStore({ path, synchronous: SYNCHRONOUS });

  const checkpoints = Array.from({ length: RUNS }, (_, i) => checkpointFor(i));
  const saves = [];
  const writeStart = now();
  for (const c of checkpoints) {
    const t = now();
    store.save(c);
    saves.push(ms(now() - t));
  }
  const writeTotal = ms(now() - writeStart);
  const requestIds = checkpoints.flatMap((c) => c.pending.map((p) => p.request.id));
  console.log(
    `wrote ${RUNS} halted runs (${requestIds.length} requests) in ${writeTotal.toFixed(0)} ms; file ${(statSync(path).size / 1e6).toFixed(1)} MB (+ WAL)`,
  );
  line("save (one halted run)", stats(saves));

  const timeList = (filter, times = 7) => {
    const samples = [];
    let count = 0;
    for (let k = 0; k < times; k++) {
      const t = now();
      count = store.list(filter).length;
      samples.push(ms(now() - t));
    }
    return { count, s: stats(samples) };
  };
  for (const [label, filter] of [
    ["list() all", undefined],
    ["list({ state: 'pending' })", { state: "pending" }],
    ["list({ state: 'expired' })", { state: "expired" }],
    ["list({ sessionId })", { sessionId: "session_42" }],
    ["list({ kind: 'input' })", { kind: "input" }],
    ["list({ limit: 50 })", { limit: 50 }],
  ]) {
    const { count, s } = timeList(filter);
    line(`${label} -> ${count}`, s);
  }

  // Random distinct requests from distinct checkpoints (a claim resumes the whole checkpoint).
  const picks = [];
  const used = new Set();
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  while (picks.length < Math.min(SAMPLES, RUNS)) {
    const i = Math.floor(random() * RUNS);
    if (used.has(i)) continue;
    used.add(i);
    picks.push(checkpoints[i].pending[0].request.id);
  }

  const gets = [];
  for (const id of picks) {
    const t = now();
    store.get(id);
    gets.push(ms(now() - t));
  }
  line("get(requestId)", stats(gets));

  const claims = [];
  const cpu = process.cpuUsage();
  for (const id of picks) {
    const t = now();
    store.claim(id);
    claims.push(ms(now() - t));
  }
  const spent = process.cpuUsage(cpu);
  line("claim(requestId)", stats(claims));
  // Wall-clock time includes waiting for the disk to confirm the commit (fsync with
  // synchronous=full); CPU time is the store's own work.
  console.log(
    `claim(requestId) CPU time (user+system) mean ${fmt((spent.user + spent.system) / 1000 / picks.length)}`,
  );

  const t = now();
  const pruned = store.prune({ olderThan: 0 });
  console.log(`prune({ olderThan: 0 }) removed ${pruned} resumed runs in ${fmt(ms(now() - t))}`);
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
