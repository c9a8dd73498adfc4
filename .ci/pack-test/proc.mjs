// Processes, logging and the failure list the pack test reports at the end.
import { spawn } from "node:child_process";

const started = Date.now();
export const failures = [];
const children = new Set();

export const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;

export function log(line) {
  console.log(`[pack-test ${seconds(Date.now() - started).padStart(6)}] ${line}`);
}

/** Records a failure; `pkg` and `step` say where, `detail` says what (printed in full at the end). */
export function fail(pkg, step, detail) {
  failures.push({ pkg, step, detail: String(detail).trimEnd() });
  const first = String(detail).trim().split("\n")[0] ?? "";
  log(`FAIL ${pkg}: ${step}: ${first.length > 160 ? `${first.slice(0, 160)}…` : first}`);
}

export function indent(text, prefix = "    ") {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

/** Runs a command to completion and collects its output; never rejects. */
export function exec(command, argv, { cwd, env = process.env, timeoutMs = 300_000 } = {}) {
  return new Promise((done) => {
    const begin = Date.now();
    const child = spawn(command, argv, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const finish = (code, signal, spawnError) => {
      clearTimeout(timer);
      children.delete(child);
      if (spawnError) stderr += `\n${spawnError.message}`;
      const exit = timedOut
        ? `timed out after ${seconds(timeoutMs)}`
        : signal
          ? `killed by ${signal}`
          : `exit code ${code}`;
      done({
        ok: code === 0 && !timedOut,
        exit,
        stdout,
        stderr,
        output: `${stdout}${stderr}`.trim(),
        ms: Date.now() - begin,
      });
    };
    child.on("error", (error) => finish(null, null, error));
    child.on("close", (code, signal) => finish(code, signal));
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const child of children) killGroup(child);
    process.exit(130);
  });
}

/** Runs at most `size` of the returned function's tasks at once (the machine has few cores). */
export function pool(size) {
  let running = 0;
  const queue = [];
  const next = () => {
    if (running >= size || queue.length === 0) return;
    running++;
    const { task, resolve, reject } = queue.shift();
    task()
      .then(resolve, reject)
      .finally(() => {
        running--;
        next();
      });
  };
  return (task) =>
    new Promise((resolve, reject) => {
      queue.push({ task, resolve, reject });
      next();
    });
}
