// Runs the built `toolnexus` bin as a child process and collects what it printed.
import { type ChildProcess, spawn } from "node:child_process";
import { inject } from "vitest";

/** The bin built for this test run (test/build-bin.ts). */
export const BIN = inject("cliBin");

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a child gets: no colour settings or store of the developer's shell. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ["NO_COLOR", "FORCE_COLOR", "TOOLNEXUS_DATABASE_URL", "TOOLNEXUS_SCHEMA"]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** A started `toolnexus` process: its output so far, a wait for a text, and its end. */
export interface Started {
  child: ChildProcess;
  stdout(): string;
  /** Resolves once standard output contains `text`. */
  printed(text: string): Promise<void>;
  done: Promise<Finished>;
}

const running = new Set<ChildProcess>();

/** Starts the bin with `args`. Every child still running is killed by {@link killAll}. */
export function start(args: readonly string[], env: NodeJS.ProcessEnv = childEnv()): Started {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const waiter of [...waiters]) {
      if (stdout.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<Finished>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    child,
    stdout: () => stdout,
    printed: (text) =>
      stdout.includes(text)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ text, resolve })),
            done.then((end) => {
              throw new Error(
                `the command ended (${end.code}) before printing "${text}": ${end.stderr}`,
              );
            }),
          ]),
    done,
  };
}

/** Runs the bin to its end. */
export function toolnexus(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  return start(args, env).done;
}

/** Kills every child still running (a test that failed half-way). */
export function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}
