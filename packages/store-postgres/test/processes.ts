import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A fixture script running in its own Node process, read line by line. */
export interface Fixture {
  child: ChildProcess;
  /** Resolves with the first stdout line that parses as JSON and passes `match`. */
  line<T = Record<string, unknown>>(match?: (value: T) => boolean): Promise<T>;
  /** Writes one line to the child's stdin. */
  send(text: string): void;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Everything the child wrote to stderr so far, for failure messages. */
  stderr(): string;
}

/** Starts `node test/fixtures/<script> ...args`. */
export function startFixture(script: string, args: string[]): Fixture {
  const path = fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  // A fixture that is killed mid-write must not fail the test with EPIPE.
  child.stdin?.on("error", () => {});
  let errors = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(signal ?? code ?? -1));
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
  return {
    child,
    line<T>(match: (value: T) => boolean = () => true): Promise<T> {
      const test = match as (value: unknown) => boolean;
      const index = parsed.findIndex(test);
      if (index !== -1) return Promise.resolve(parsed.splice(index, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        waiters.push({ match: test, resolve: resolve as (value: unknown) => void });
        void exited.then((how) => {
          // Give the last lines a moment to be read before giving up.
          setTimeout(() => {
            reject(new Error(`${script} exited (${how}) without the expected line\n${errors}`));
          }, 50);
        });
      });
    },
    send(text) {
      child.stdin?.write(`${text}\n`);
    },
    exited,
    stderr: () => errors,
  };
}
