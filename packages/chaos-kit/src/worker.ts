// A worker: a Node script in a child process of its own process group, read line by line. Every
// worker is guarded (see guard.ts) and listed, so `stopWorkers()` in an `afterAll` ends the
// ones a failing test left, and the watchdog ends them if the test process dies first.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { guard } from "./guard.js";

/** A script running in its own Node process, read line by line. */
export interface Worker {
  child: ChildProcess;
  /** Resolves with the first stdout line that parses as JSON and passes `match`. */
  line<T = Record<string, unknown>>(match?: (value: T) => boolean): Promise<T>;
  /** Writes one line to the child's stdin. */
  send(text: string): void;
  /** Signals the worker's whole process group (SIGKILL by default); resolves once it exited. */
  kill(signal?: NodeJS.Signals): Promise<number | string>;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Everything the child wrote to stderr so far, for failure messages. */
  stderr(): string;
}

export interface WorkerOptions {
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

const live = new Set<Worker>();

/** Starts `node <script> ...args` in a process group of its own. */
export function startWorker(
  script: string,
  args: readonly string[],
  options: WorkerOptions = {},
): Worker {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    env: options.env ?? process.env,
  });
  const release = child.pid === undefined ? () => {} : guard({ group: child.pid });
  // A worker killed mid-write must not fail the test with EPIPE.
  child.stdin?.on("error", () => {});
  let errors = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(signal ?? code ?? -1));
    // A script that could not start at all (no pid) ends here too.
    child.on("error", () => resolve(-1));
  });
  const parsed: unknown[] = [];
  const waiters: { match: (value: unknown) => boolean; resolve: (value: unknown) => void }[] = [];
  const reader = createInterface({ input: child.stdout! });
  reader.on("line", (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const index = waiters.findIndex((waiter) => waiter.match(value));
    if (index === -1) parsed.push(value);
    else waiters.splice(index, 1)[0]!.resolve(value);
  });
  // Every line is read once stdout closes: a waiter still waiting then will never be answered.
  const drained = new Promise<void>((resolve) => reader.once("close", resolve));
  const worker: Worker = {
    child,
    line<T>(match: (value: T) => boolean = () => true): Promise<T> {
      const test = match as (value: unknown) => boolean;
      const index = parsed.findIndex(test);
      if (index !== -1) return Promise.resolve(parsed.splice(index, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const waiter = { match: test, resolve: resolve as (value: unknown) => void };
        waiters.push(waiter);
        void Promise.all([exited, drained]).then(([how]) => {
          if (!waiters.includes(waiter)) return;
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${script} exited (${how}) without the expected line\n${errors}`));
        });
      });
    },
    send(text) {
      child.stdin?.write(`${text}\n`);
    },
    async kill(signal = "SIGKILL") {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // The group is gone already.
        }
      }
      return exited;
    },
    exited,
    stderr: () => errors,
  };
  live.add(worker);
  void exited.then(() => {
    live.delete(worker);
    // Whatever the worker started in its group goes with it.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Nothing left in the group.
      }
    }
    release();
  });
  return worker;
}

/** SIGKILLs every worker still running (with its process group) and waits for them to exit. */
export async function stopWorkers(): Promise<void> {
  await Promise.all([...live].map((worker) => worker.kill("SIGKILL")));
}
