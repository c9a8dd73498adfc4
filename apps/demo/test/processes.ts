// Starts the demo's CLI as a real child process (optionally inside a pseudo-terminal) and
// waits on what it prints, never on fixed delays.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const DEMO_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The environment of every child: no colour unless a test asks, no inherited demo settings. */
function childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("TOOLNEXUS_DEMO_") || key === "FORCE_COLOR" || key === "NO_COLOR") {
      delete env[key];
    }
  }
  delete env.INIT_CWD;
  return { ...env, ...extra };
}

export interface DemoProcess {
  readonly child: ChildProcess;
  /** Everything printed on stdout so far (inside a pseudo-terminal: everything). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or 128 + signal number). */
  readonly exited: Promise<number>;
  /** Resolves when the output matches; rejects with the output so far if the process ends first. */
  waitFor(
    pattern: string | RegExp | ((text: string) => boolean),
    timeoutMs?: number,
  ): Promise<RegExpMatchArray>;
  /** Resolves when `text` has been printed `count` times (e.g. a prompt asked again). */
  waitForCount(text: string, count: number, timeoutMs?: number): Promise<void>;
  write(text: string): void;
  stop(): Promise<number>;
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `node --import tsx src/cli.ts ...args` in apps/demo. With `tty: true` the command runs
 * under util-linux `script`, so its standard input and output are a real pseudo-terminal.
 */
export function startDemo(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; tty?: boolean } = {},
): DemoProcess {
  const command = [process.execPath, "--import", "tsx", "src/cli.ts", ...args];
  const env = childEnv(options.env ?? {});
  const child = options.tty
    ? spawn("script", ["-qfec", command.map(shellQuote).join(" "), "/dev/null"], {
        cwd: DEMO_DIR,
        env: { ...env, TERM: "xterm-256color", COLUMNS: "160", LINES: "50" },
        stdio: ["pipe", "pipe", "pipe"],
      })
    : spawn(command[0]!, command.slice(1), {
        cwd: DEMO_DIR,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    poke();
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
    poke();
  });
  let done = false;
  const exited = new Promise<number>((resolve) => {
    child.on("close", (code, signal) => {
      done = true;
      poke();
      resolve(code ?? 128 + (signal === "SIGTERM" ? 15 : signal === "SIGINT" ? 2 : 9));
    });
  });

  const proc: DemoProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const text = out + err;
          const match =
            typeof pattern === "function"
              ? pattern(text)
                ? ([text] as RegExpMatchArray)
                : null
              : typeof pattern === "string"
                ? text.includes(pattern)
                  ? ([pattern] as RegExpMatchArray)
                  : null
                : text.match(pattern);
          if (match !== null) {
            cleanup();
            resolve(match);
          } else if (done) {
            cleanup();
            reject(new Error(`the process ended before printing ${String(pattern)}:\n${text}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no ${String(pattern)} after ${timeoutMs}ms; output so far:\n${out}${err}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async waitForCount(text, count, timeoutMs = 60_000) {
      await proc.waitFor((all) => all.split(text).length - 1 >= count, timeoutMs);
    },
    write(text) {
      child.stdin?.write(text);
    },
    async stop() {
      if (!done) child.kill("SIGTERM");
      return exited;
    },
  };
  return proc;
}

/** Runs the CLI to its end and returns what it printed and its exit code. */
export async function runDemo(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = startDemo(args, options);
  proc.child.stdin?.end();
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** A fresh directory for one test's SQLite file and artefacts. */
export function tempDir(): { path: string; file(name: string): string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), "toolnexus-demo-"));
  return {
    path,
    file: (name) => join(path, name),
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

const ESC = String.fromCharCode(27);

/** Colour and style codes (SGR), as opposed to the cursor moves a line editor prints. */
export const COLOUR_CODE = new RegExp(`${ESC}\\[[0-9;]*m`);

/** The text without terminal escape codes and carriage returns. */
export function stripAnsi(text: string): string {
  return text.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g"), "").replace(/\r/g, "");
}
