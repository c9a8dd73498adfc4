#!/usr/bin/env node
// Runs turbo tasks for the root scripts (`pnpm test`, `pnpm test:long`) so that a failure is easy
// to find: every task runs even when one fails (--continue), only failing tasks print their
// output (--output-logs=errors-only), and when anything failed the last lines name each failed
// package and task, with the failing tests (vitest's FAIL lines) or the end of its log. The exit
// code is turbo's.
//
//   node .ci/tasks.mjs build lint typecheck test [more turbo flags]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const runs = join(root, ".turbo", "runs");
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
const summaries = existsSync(runs)
  ? readdirSync(runs)
      .map((name) => join(runs, name))
      .filter((file) => file.endsWith(".json") && statSync(file).mtimeMs >= started)
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  : [];
const summary = summaries[0] ? JSON.parse(readFileSync(summaries[0], "utf8")) : undefined;
const failed = (summary?.tasks ?? []).filter(
  (task) => typeof task.execution?.exitCode === "number" && task.execution.exitCode !== 0,
);

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in vitest's log.
const plain = (line) => line.replace(/\u001b\[[0-9;]*m/g, "").trimEnd();
const lines = [];
for (const task of failed) {
  lines.push(`✗ ${task.package} ${task.task} (exit ${task.execution.exitCode})`);
  // A task turbo ran without a log file of its own has none to quote (not the root folder).
  const logFile = task.logFile ? join(root, task.logFile) : undefined;
  const readable = logFile !== undefined && existsSync(logFile) && statSync(logFile).isFile();
  const log = readable ? readFileSync(logFile, "utf8").split("\n").map(plain) : [];
  const tests = [...new Set(log.filter((line) => /^\s*FAIL\s/.test(line)).map((l) => l.trim()))];
  const shown = tests.length > 0 ? tests : log.filter((line) => line.trim() !== "").slice(-12);
  for (const line of shown) lines.push(`    ${line.trim()}`);
}
console.error("");
console.error("──── failed ────");
if (lines.length === 0) console.error(`turbo exited with ${code}; its output above says why.`);
for (const line of lines) console.error(line);
console.error(`(full logs: <package>/.turbo/turbo-<task>.log)`);
process.exit(code);
