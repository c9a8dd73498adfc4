#!/usr/bin/env node
// Runs the MCP conformance suite's server scenarios (@modelcontextprotocol/conformance, pinned;
// every scenario of the suite at 2025-11-25 and at 2026-07-28, and the Tasks extension's) against
// src/fixtures/conformance-server.ts, this package serving toolnexus tools over HTTP on
// 127.0.0.1. Failures listed in conformance-baseline.yml (with why) are expected; any other
// failure, or a listed one that now passes, fails the run. The suite needs Node >= 22: give its
// binary in NODE22, or this script looks in the cache .ci/other-nodes.sh fills. Offline.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { findNode22 } from "../../../.ci/find-node22.mjs";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const node22 = findNode22();
const cli = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

const TASK_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

const server = spawn(
  process.execPath,
  ["--import", "tsx", join(here, "src", "fixtures", "conformance-server.ts")],
  { cwd: here, stdio: ["pipe", "pipe", "inherit"] },
);
let failed = false;
try {
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once("line", resolve);
    server.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
  });
  const { url } = JSON.parse(line);
  const baseline = ["--expected-failures", join(here, "scripts", "conformance-baseline.yml")];
  // Every scenario at each version, then the Tasks extension's scenarios (run by name).
  const runs = [
    ["2025-11-25", ["--suite", "all", "--spec-version", "2025-11-25"]],
    ["2026-07-28", ["--suite", "all", "--spec-version", "2026-07-28"]],
    ...TASK_SCENARIOS.map((scenario) => [scenario, ["--scenario", scenario]]),
  ];
  // The runs share the one server (each its own sessions) and mostly wait on it: a few at once
  // (CONFORMANCE_JOBS, default 3); summaries print in list order.
  const runOne = ([version, args]) =>
    new Promise((resolve) => {
      const child = spawn(node22, [cli, "server", "--url", url, ...args, ...baseline], {
        cwd: here,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk) => (text += chunk));
      child.stderr.on("data", (chunk) => (text += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ version, ok: code === 0, text });
      });
    });
  const jobs = Math.max(1, Number(process.env.CONFORMANCE_JOBS) || 3);
  const results = new Array(runs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      while (next < runs.length) {
        const index = next++;
        results[index] = await runOne(runs[index]);
      }
    }),
  );
  for (const { version, ok, text } of results) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output.
    const plain = text.replace(/\u001b\[[0-9;]*m/g, "");
    const at = plain.indexOf("=== SUMMARY");
    const summary =
      at >= 0 ? plain.slice(at) : (plain.match(/^Passed:.*$/m)?.[0] ?? plain.slice(-2000));
    console.log(`--- ${version}\n${summary.trim()}`);
    if (!ok) failed = true;
  }
} finally {
  server.stdin.end();
}
process.exit(failed ? 1 : 0);
