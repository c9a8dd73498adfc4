#!/usr/bin/env node
// Runs turbo tasks for the root scripts (`pnpm test`, `pnpm test:long`) so that a failure is easy
// to find: every task runs even when one fails (--continue), only failing tasks print their
// output (--output-logs=errors-only), and when anything failed the last lines name each failed
// package and task, with the failing tests (vitest's FAIL lines) or the end of its log. The exit
// code is turbo's.
//
//   node .ci/tasks.mjs build lint typecheck test [more turbo flags]
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { failLines, plainLines, turboSummaries } from "./test-logs.mjs";

const root = new URL("..", import.meta.url).pathname;
const started = Date.now();

const turbo = spawnSync(
  join(root, "node_modules", ".bin", "turbo"),
  [
    "run",
    ...process.argv.slice(2),
    "--continue",
    "--output-logs=errors-only",
    // Two cores: more tasks at once only make each one slower.
    "--concurrency=3",
    "--summarize",
  ],
  { cwd: root, stdio: "inherit" },
);
const code = turbo.status ?? 1;
if (code === 0) process.exit(0);

// Turbo's run summary of this run (written when the run ends) says which tasks failed.
const summary = turboSummaries(root, started)[0];
const failed = (summary?.tasks ?? []).filter(
  (task) => typeof task.execution?.exitCode === "number" && task.execution.exitCode !== 0,
);

const lines = [];
for (const task of failed) {
  lines.push(`✗ ${task.package} ${task.task} (exit ${task.execution.exitCode})`);
  // A task turbo ran without a log file of its own has none to quote (not the root folder).
  const logFile = task.logFile ? join(root, task.logFile) : undefined;
  const readable = logFile !== undefined && existsSync(logFile) && statSync(logFile).isFile();
  const log = readable ? plainLines(readFileSync(logFile, "utf8")) : [];
  const tests = failLines(log);
  const shown = tests.length > 0 ? tests : log.filter((line) => line.trim() !== "").slice(-12);
  for (const line of shown) lines.push(`    ${line.trim()}`);
}
console.error("");
console.error("──── failed ────");
if (lines.length === 0) console.error(`turbo exited with ${code}; its output above says why.`);
for (const line of lines) console.error(line);
console.error(`(full logs: <package>/.turbo/turbo-<task>.log)`);
process.exit(code);
