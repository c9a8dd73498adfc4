#!/usr/bin/env node
// `pnpm demo` from the repository root. Builds the workspace packages the demo uses with turbo,
// quietly (turbo's own output is shown only when the build fails), then runs the demo with the
// arguments as given and exits with the demo's own status. Nothing stands between the person
// and the demo: no turbo banner, no package manager's recursive-run wrapper.
//
//   node apps/demo/scripts/launch.mjs [demo arguments]
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const DEMO_DIR = fileURLToPath(new URL("..", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const TURBO = fileURLToPath(new URL("../../../node_modules/turbo/bin/turbo", import.meta.url));
// The demo itself too: its page is a Vite build (dist/web).
const BUILD = ["run", "build", "--filter=@toolnexus/demo...", "--output-logs=errors-only"];
/** A build that takes longer than this says what it is doing (a cached one takes ~0.3 s). */
const QUIET_MS = 1500;

const args = process.argv.slice(2);
const tty = process.stderr.isTTY === true;
let interrupted = false;

/** 128 + the signal's number, as a shell reports a process killed by it. */
function signalStatus(signal) {
  return 128 + (constants.signals[signal] ?? 1);
}

function fail(message, code = 1) {
  process.stderr.write(`✗ ${message}\n`);
  process.exit(code);
}

/** Whether `pnpm` is on the PATH: turbo runs each package's build through it. */
function pnpmOnPath() {
  const names = process.platform === "win32" ? ["pnpm.cmd", "pnpm.exe", "pnpm"] : ["pnpm"];
  return (process.env.PATH ?? "")
    .split(delimiter)
    .some((dir) => dir !== "" && names.some((name) => existsSync(join(dir, name))));
}

/** Builds the packages the demo imports; their output is kept, and shown only on failure. */
function build() {
  if (!existsSync(TURBO)) {
    fail(
      "the workspace is not installed: run `npx -y pnpm@12.4.2 install` in the repository root first",
    );
  }
  if (!pnpmOnPath()) {
    fail(
      "no pnpm on the PATH to build the demo's packages with: start the demo as the README says, `npx -y pnpm@12.4.2 demo`",
    );
  }
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [TURBO, ...BUILD], {
      cwd: ROOT,
      env: { ...process.env, TURBO_NO_UPDATE_NOTIFIER: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    let said = false;
    const slow = setTimeout(() => {
      said = true;
      process.stderr.write(
        "building the workspace packages the demo uses (the first run takes a minute)…",
      );
      if (!tty) process.stderr.write("\n");
    }, QUIET_MS);
    const unsay = () => {
      clearTimeout(slow);
      if (said && tty) process.stderr.write("\r\u001b[2K");
    };
    child.on("error", (error) => {
      unsay();
      fail(`could not start turbo to build the demo's packages: ${error.message}`);
    });
    child.on("close", (code, signal) => {
      unsay();
      if (interrupted) process.exit(signalStatus("SIGINT"));
      if (code === 0) {
        resolve(Date.now() - started);
        return;
      }
      process.stderr.write(Buffer.concat(output));
      fail(
        `building the packages the demo uses failed (turbo ${BUILD.join(" ")} exited with ${code ?? signal}); its output is above`,
      );
    });
  });
}

/** Runs the demo's CLI in its own folder, as the person's terminal sees it. */
function run() {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
    cwd: DEMO_DIR,
    // Relative paths (--db, TOOLNEXUS_DEMO_DB) are the person's, from where they ran the command.
    env: { ...process.env, INIT_CWD: process.env.INIT_CWD || process.cwd() },
    stdio: "inherit",
  });
  // The demo gets Ctrl-C from the terminal itself (same process group) and stops its run; this
  // process waits for it and exits with its status. Other signals are passed on.
  for (const signal of ["SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (error) => fail(`could not start the demo: ${error.message}`));
  child.on("close", (code, signal) => {
    process.exit(code ?? signalStatus(signal));
  });
}

process.on("SIGINT", () => {
  interrupted = true;
});
await build();
run();
