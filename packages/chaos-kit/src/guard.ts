// What must go when the test process goes: worker process groups and servers a test started.
// An `afterAll` stops them when the test ends; this covers the other endings (a test process
// killed by a timeout, by turbo stopping at a failure, by Ctrl-C or SIGKILL). A small watchdog
// process, in its own process group, holds a pipe from the test process: when the pipe closes
// without a word, the test process is gone, and the watchdog ends what was left.
import { type ChildProcess, spawn } from "node:child_process";

/** What to end when the test process dies before releasing it. */
export interface Leftover {
  /** A process group to SIGKILL (a worker started by {@link startWorker}). */
  group?: number;
  /** A command that stops a server, run once (its output and failure ignored). */
  run?: readonly string[];
  /** A path to remove (recursively) after the command ran. */
  remove?: string;
}

// Plain CommonJS for `node -e`: nothing to resolve on disk, whatever bundled this module.
const WATCHDOG = `
const { spawnSync } = require("node:child_process");
const { rmSync } = require("node:fs");
const left = new Map();
let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  for (let i = buffered.indexOf("\\n"); i !== -1; i = buffered.indexOf("\\n")) {
    const message = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    if (message.add !== undefined) left.set(message.id, message.add);
    if (message.done !== undefined) left.delete(message.done);
  }
});
process.stdin.on("close", () => {
  for (const item of [...left.values()].reverse()) {
    if (item.group !== undefined) {
      try { process.kill(-item.group, "SIGKILL"); } catch {}
    }
    if (item.run !== undefined) {
      spawnSync(item.run[0], item.run.slice(1), { stdio: "ignore", timeout: 60000 });
    }
    if (item.remove !== undefined) rmSync(item.remove, { recursive: true, force: true });
  }
});
`;

let watchdog: ChildProcess | undefined;
let nextId = 1;

function send(message: Record<string, unknown>): void {
  if (watchdog === undefined) {
    watchdog = spawn(process.execPath, ["-e", WATCHDOG], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    // Neither the watchdog nor its pipe keeps the test process alive.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
    watchdog.stdin!.on("error", () => {});
  }
  watchdog.stdin!.write(`${JSON.stringify(message)}\n`);
}

/**
 * Hands `leftover` to the watchdog, which ends it if this process dies first. Returns the
 * release to call once the caller has ended it itself.
 */
export function guard(leftover: Leftover): () => void {
  const id = nextId++;
  send({ id, add: leftover });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    send({ done: id });
  };
}
