// Durable-run benchmark on PostgreSQL (not a test: it prints figures).
//
//   pnpm --filter @toolnexus/store-postgres bench       (builds, then runs this file)
//   node bench/workers.mjs [--runs=1000] [--paced=300] [--rate=50] [--concurrency=8] [--workers=1,2,4]
//
// DATABASE_URL picks a server; without it a throwaway local one is started (and removed) with
// PostgreSQL's default durability settings. The runs use a scripted model that waits 20 ms per
// turn, as a real one would, and two instant tools (`prepare`, `approve`, which halts for an
// answer). Measured:
// 1. answers recorded per second (client.answer on halted runs, one process, 1 and 8 in flight);
// 2. with 1, 2 and 4 worker processes (client.work, --concurrency 8 each):
//    a. runs continued per second when all answers arrive at once, and the time from an answer
//       being recorded to its run continuing (the `approve` call starting in a worker);
//    b. that time again with answers arriving one by one (--rate per second), so it shows the
//       wake-up (LISTEN/NOTIFY) rather than a queue.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { startServer } from "./server.mjs";

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return Number(found === undefined ? fallback : found.slice(name.length + 3));
};
const RUNS = arg("runs", 1000);
const PACED = arg("paced", 300);
const RATE = arg("rate", 50);
const CONCURRENCY = arg("concurrency", 8);
const WORKERS = (process.argv.find((a) => a.startsWith("--workers="))?.slice(10) ?? "1,2,4")
  .split(",")
  .map(Number);
const MODEL_MS = 20;
const fixture = fileURLToPath(new URL("../test/fixtures/durable-agent.mjs", import.meta.url));
const storeModule = pathToFileURL(fileURLToPath(new URL("../dist/index.js", import.meta.url))).href;
const { postgresStore } = await import(storeModule);
const dir = mkdtempSync(join(tmpdir(), "toolnexus-pg-bench-logs-"));
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

const server = process.env.DATABASE_URL ? undefined : await startServer();
const baseUrl = process.env.DATABASE_URL ?? server.url;
let schemaCount = 0;
const cleanup = () => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
};
process.on("SIGINT", () => {
  cleanup();
  process.exit(130);
});

function spawnFixture(role, schema, options, logDir) {
  const child = spawn(
    process.execPath,
    [fixture, role, baseUrl, logDir, JSON.stringify({ schema, modelMs: MODEL_MS, ...options })],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TOOLNEXUS_STORE_MODULE: storeModule },
    },
  );
  let out = "";
  const lines = [];
  const waiters = [];
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    out += chunk;
    for (let i = out.indexOf("\n"); i !== -1; i = out.indexOf("\n")) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      lines.push(line);
      for (const w of waiters.splice(0)) w();
    }
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return {
    child,
    exited,
    async waitFor(text) {
      while (!lines.some((l) => l.includes(text))) await new Promise((r) => waiters.push(r));
    },
  };
}

/** `count` runs halted for an answer in a new schema, by a starter process; their request ids. */
async function haltedRuns(count) {
  const schema = `bench_${++schemaCount}`;
  const logDir = join(dir, schema);
  mkdirSync(logDir);
  const starter = spawnFixture("start", schema, { count, prefix: "run", concurrency: 16 }, logDir);
  await starter.waitFor("startedAll");
  await starter.exited;
  const store = postgresStore({ connectionString: baseUrl }, { schema });
  const requests = (await store.list({ state: "waiting" })).map((s) => ({
    runId: s.runId,
    id: s.request.id,
  }));
  if (requests.length !== count)
    throw new Error(`expected ${count} halted runs, got ${requests.length}`);
  return { schema, store, requests, logDir };
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const fmt = (ms) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));

/** ms from each answer being recorded to its run's `approve` call starting in a worker. */
function latencies(logDir, recordedAt) {
  const started = new Map();
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(join(logDir, file), "utf8").split("\n")) {
      if (!line.includes('"approve"') || !line.includes('"answered":true')) continue;
      const value = JSON.parse(line);
      if (value.phase !== "start") continue;
      const seen = started.get(value.runId);
      if (seen === undefined || value.at < seen) started.set(value.runId, value.at);
    }
  }
  const out = [];
  for (const [runId, at] of recordedAt) {
    const began = started.get(runId);
    if (began !== undefined) out.push(began - at);
  }
  return out.sort((a, b) => a - b);
}

async function countDone(schema) {
  const client = new pg.Client(baseUrl);
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*) FILTER (WHERE state = 'done')::int AS done FROM ${schema}.runs`,
    );
    return rows[0].done;
  } finally {
    await client.end();
  }
}

const results = { node: process.version, cpus: cpus().length, runs: RUNS, modelMs: MODEL_MS };
console.log(
  `toolnexus durable runs on PostgreSQL (${server?.version ?? "DATABASE_URL"}), ${RUNS} runs, model ${MODEL_MS} ms per turn, node ${process.version}, ${cpus().length} cores`,
);

// 1. Answers recorded per second.
for (const inFlight of [1, 8]) {
  const { store, requests } = await haltedRuns(RUNS);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < requests.length; i = next++) {
        await store.answer({ id: requests[i].id, ok: true, data: { token: "t" } });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  results[`answersPerSecond_${inFlight}`] = Math.round(RUNS / seconds);
  console.log(
    `answers recorded, ${inFlight} in flight: ${(RUNS / seconds).toFixed(0)}/s (${((seconds * 1000) / RUNS).toFixed(2)} ms each)`,
  );
  await store.close();
}

// 2. Runs continued by k worker processes.
for (const k of WORKERS) {
  // a. Every answer at once.
  {
    const { schema, store, requests, logDir } = await haltedRuns(RUNS);
    const workers = Array.from({ length: k }, () =>
      spawnFixture(
        "work",
        schema,
        { concurrency: CONCURRENCY, leaseMs: 30_000, pollMs: 500 },
        logDir,
      ),
    );
    await Promise.all(workers.map((w) => w.waitFor("ready")));
    await pause(300);
    const recordedAt = new Map();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < requests.length; i = next++) {
          await store.answer({ id: requests[i].id, ok: true, data: { token: "t" } });
          recordedAt.set(requests[i].runId, now());
        }
      }),
    );
    while ((await countDone(schema)) < RUNS) await pause(20);
    const seconds = (performance.now() - started) / 1000;
    for (const w of workers) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    const lat = latencies(logDir, recordedAt);
    results[`burst_${k}`] = {
      runsPerSecond: Math.round(RUNS / seconds),
      p50: percentile(lat, 0.5),
      p99: percentile(lat, 0.99),
    };
    console.log(
      `${k} worker process${k === 1 ? "" : "es"}, all answers at once: ${(RUNS / seconds).toFixed(0)} runs continued/s; answer -> continuing p50 ${fmt(percentile(lat, 0.5))} ms, p99 ${fmt(percentile(lat, 0.99))} ms`,
    );
    await store.close();
  }
  // b. Answers one by one.
  {
    const { schema, store, requests, logDir } = await haltedRuns(PACED);
    const workers = Array.from({ length: k }, () =>
      spawnFixture(
        "work",
        schema,
        { concurrency: CONCURRENCY, leaseMs: 30_000, pollMs: 500 },
        logDir,
      ),
    );
    await Promise.all(workers.map((w) => w.waitFor("ready")));
    await pause(300);
    const recordedAt = new Map();
    const started = performance.now();
    for (const [i, { id, runId }] of requests.entries()) {
      const due = started + (i * 1000) / RATE;
      await pause(Math.max(0, due - performance.now()));
      await store.answer({ id, ok: true, data: { token: "t" } });
      recordedAt.set(runId, now());
    }
    while ((await countDone(schema)) < PACED) await pause(20);
    for (const w of workers) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    const lat = latencies(logDir, recordedAt);
    results[`paced_${k}`] = { p50: percentile(lat, 0.5), p99: percentile(lat, 0.99) };
    console.log(
      `${k} worker process${k === 1 ? "" : "es"}, ${RATE} answers/s: answer -> continuing p50 ${fmt(percentile(lat, 0.5))} ms, p99 ${fmt(percentile(lat, 0.99))} ms`,
    );
    await store.close();
  }
}

console.log(JSON.stringify(results));
cleanup();
