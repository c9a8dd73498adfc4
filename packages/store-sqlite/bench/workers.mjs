// Durable-run benchmark on one SQLite file (not a test: it prints figures).
//
//   pnpm --filter @toolnexus/store-sqlite bench:workers   (builds, then runs this file)
//   node bench/workers.mjs [--runs=1000] [--synchronous=full|normal]
//
// 1. answers recorded per second (client.answer on halted runs, one process);
// 2. runs continued per second by 1, 2 and 4 worker processes (client.work) sharing the file;
// 3. the cost of journaling: a durable run (every step written) against the same run in memory.
// Tools and model are instant, so the figures are the runtime's and the store's own cost.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, inProcessModel } from "@toolnexus/client";
import { pending } from "@toolnexus/core";
import { sqliteStore } from "../dist/index.js";

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
};
const RUNS = Number(arg("runs", "1000"));
const SYNCHRONOUS = arg("synchronous", "full");
const fixture = fileURLToPath(new URL("../test/fixtures/durable-agent.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-workers-"));
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The same tools and model as the fixture, without delays.
const tools = [
  {
    name: "prepare",
    description: "p",
    inputSchema: { type: "object" },
    execute: () => ({ output: "prepared", isError: false }),
  },
  {
    name: "approve",
    description: "a",
    inputSchema: { type: "object" },
    execute: (_a, ctx) =>
      ctx.answer === undefined
        ? pending({ kind: "input", prompt: "Which token?" })
        : { output: "applied", isError: false },
  },
];
const model = inProcessModel({
  id: "bench",
  generate: ({ messages }) =>
    messages.some((m) => m.role === "tool")
      ? { content: "finished" }
      : {
          toolCalls: [
            { id: "c_prepare", name: "prepare" },
            { id: "c_approve", name: "approve" },
          ],
        },
});

async function haltedRuns(path) {
  const store = sqliteStore({ path, synchronous: SYNCHRONOUS });
  const client = createClient({ model, tools, runs: store });
  const requests = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await client.run(`job ${i}`);
    requests.push({ runId: result.runId, id: result.pending.id });
  }
  return { store, client, requests };
}

function worker(path) {
  const child = spawn(
    process.execPath,
    [fixture, "work", path, dir, JSON.stringify({ jitterMs: 0, concurrency: 8, leaseMs: 30_000 })],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const ready = new Promise((resolve) => child.stdout.once("data", resolve));
  return { child, ready };
}

console.log(
  `toolnexus durable runs on SQLite (synchronous=${SYNCHRONOUS}), ${RUNS} runs, node ${process.version}`,
);

// 1. Answers recorded per second.
{
  const { store, client, requests } = await haltedRuns(join(dir, "answers.db"));
  const started = performance.now();
  for (const { id } of requests) await client.answer({ id, ok: true, data: { token: "t" } });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `answers recorded: ${(RUNS / seconds).toFixed(0)}/s (${((seconds * 1000) / RUNS).toFixed(2)} ms each)`,
  );
  store.close();
}

// 2. Runs continued per second by k worker processes.
for (const k of [1, 2, 4]) {
  const path = join(dir, `workers-${k}.db`);
  const { store, client, requests } = await haltedRuns(path);
  for (const { id } of requests) await client.answer({ id, ok: true, data: { token: "t" } });
  const workers = Array.from({ length: k }, () => worker(path));
  await Promise.all(workers.map((w) => w.ready));
  const started = performance.now();
  for (;;) {
    const left = store.list({ state: "answered", limit: 1 }).length;
    if (left === 0 && requests.every(({ runId }) => store.getRun(runId)?.state === "done")) break;
    await pause(20);
  }
  const seconds = (performance.now() - started) / 1000;
  for (const w of workers) w.child.kill("SIGKILL");
  console.log(
    `runs continued, ${k} worker process${k === 1 ? "" : "es"}: ${(RUNS / seconds).toFixed(0)}/s`,
  );
  store.close();
}

// 3. Journaling cost per step: a two-turn, two-tool run, durable from its first turn or not.
{
  const store = sqliteStore({ path: join(dir, "journal.db"), synchronous: SYNCHRONOUS });
  const quick = [tools[0], { ...tools[0], name: "approve" }];
  const plain = createClient({ model, tools: quick });
  const durable = createClient({ model, tools: quick, runs: store });
  const time = async (fn) => {
    for (let i = 0; i < 50; i++) await fn(i);
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) await fn(i);
    const each = (performance.now() - started) / RUNS;
    return each;
  };
  const inMemory = await time(() => plain.run("go"));
  const journaled = await time(() => durable.run("go", { durable: true }));
  // A durable run of this shape writes start, one step, two journal entries and finish.
  const writes = 5;
  console.log(`run without durability: ${(inMemory * 1000).toFixed(1)} µs`);
  console.log(
    `durable run (${writes} writes): ${journaled.toFixed(2)} ms, ${((journaled - inMemory) / writes).toFixed(3)} ms per journaled step`,
  );
  store.close();
}
rmSync(dir, { recursive: true, force: true });
