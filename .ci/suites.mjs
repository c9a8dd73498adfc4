#!/usr/bin/env node
// Runs every package's `test` script, a few at a time, the longest first (.ci/other-nodes.sh runs
// it under Node 22 and 24). Turbo starts tasks in an order of its own: on Node 24, mcp (~90 s)
// and store-sqlite (~65 s) started a minute or two in and ran alone at the end while the other
// slots were idle. The lengths come from the main run's turbo summary (`pnpm test` writes one
// through .ci/tasks.mjs); a package it does not list counts as long and starts first.
//
//   node .ci/suites.mjs [--concurrency=N] [-- args for each test script]
//
// Each script runs in its package folder through `sh -c`, with the package's and the root's
// node_modules/.bin first on PATH, as `pnpm run` runs it; the Node on PATH is the caller's. A
// failing package prints its vitest FAIL lines (or its log's end); every package runs anyway,
// and the exit code is 1 when any failed.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { failLines, plainLines, turboSummaries } from "./test-logs.mjs";

const root = new URL("..", import.meta.url).pathname;
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const own = dash === -1 ? argv : argv.slice(0, dash);
const passed = dash === -1 ? [] : argv.slice(dash + 1);
let concurrency = 3;
for (const arg of own) {
  const match = /^--concurrency=(\d+)$/.exec(arg);
  if (match === null || Number(match[1]) < 1) {
    throw new Error(`suites.mjs: unknown argument ${arg} (usage: [--concurrency=N] [-- args])`);
  }
  concurrency = Number(match[1]);
}

/** Every package folder with a `test` script, by package name. */
function packages() {
  const dir = join(root, "packages");
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    const script = manifest.scripts?.test;
    if (typeof script === "string")
      found.push({ name: manifest.name, dir: join(dir, name), script });
  }
  return found;
}

/** Each package's `test` time in the newest turbo summary that has test tasks, in ms. */
function lastDurations() {
  for (const summary of turboSummaries(root)) {
    const times = new Map();
    for (const task of summary.tasks ?? []) {
      const { startTime, endTime } = task.execution ?? {};
      if (task.task === "test" && typeof startTime === "number" && typeof endTime === "number") {
        times.set(task.package, endTime - startTime);
      }
    }
    if (times.size > 0) return times;
  }
  return new Map();
}

/** A shell word for `value` (the extra args are appended to the script, as pnpm does). */
const quote = (value) => `'${value.replaceAll("'", "'\\''")}'`;

function runOne({ name, dir, script }) {
  const command = passed.length === 0 ? script : `${script} ${passed.map(quote).join(" ")}`;
  const bins = [join(dir, "node_modules", ".bin"), join(root, "node_modules", ".bin")];
  const env = { ...process.env, PATH: [...bins, process.env.PATH ?? ""].join(delimiter) };
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.on("data", (chunk) => (log += chunk));
    child.stderr.on("data", (chunk) => (log += chunk));
    child.on("close", (code, signal) => {
      resolve({ name, ok: code === 0, exit: code ?? signal, ms: Date.now() - started, log });
    });
  });
}

const known = lastDurations();
const queue = packages().sort(
  (a, b) => (known.get(b.name) ?? Infinity) - (known.get(a.name) ?? Infinity),
);
const started = Date.now();
const results = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (next < queue.length) {
      const result = await runOne(queue[next++]);
      results.push(result);
      const at = ((Date.now() - started) / 1000).toFixed(0);
      console.log(
        `${result.ok ? "✓" : "✗"} ${result.name} ${(result.ms / 1000).toFixed(1)} s (done at ${at} s)`,
      );
    }
  }),
);

const failed = results.filter((result) => !result.ok);
for (const { name, exit, log } of failed) {
  const lines = plainLines(log);
  const tests = failLines(lines);
  console.error(`\n✗ ${name} test (exit ${exit})`);
  const shown = tests.length > 0 ? tests : lines.filter((line) => line.trim() !== "").slice(-40);
  for (const line of shown) console.error(`    ${line.trim()}`);
  if (tests.length > 0) {
    // The failures' own messages: vitest's summary of failed tests, from its first marker on.
    const from = lines.findIndex((line) => /Failed Tests? \d+/.test(line));
    if (from !== -1) for (const line of lines.slice(from, from + 60)) console.error(`    ${line}`);
  }
}
const total = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `${results.length - failed.length} of ${results.length} package suites passed in ${total} s`,
);
process.exit(failed.length === 0 ? 0 : 1);
