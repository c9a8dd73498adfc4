import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { isRefusal, Root } from "./confine.js";
import {
  type Args,
  defineBuiltin,
  optionalPositive,
  optionalString,
  requiredString,
} from "./define.js";
import { CallLimit } from "./limit.js";
import {
  type BuiltinToolOptions,
  DEFAULT_KILL_GRACE_MS,
  maxOutputBytes,
  positiveOption,
} from "./options.js";
import { HeadTail } from "./output.js";

/** bash's own default budget when the model gives no `timeout` (the contract's 60 s). */
export const DEFAULT_BASH_TIMEOUT_MS = 60_000;

const POSIX = process.platform !== "win32";

function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

/**
 * `bash`: runs one command with `<shell> -c` in its own process group, in `workdir` (inside the
 * root; default the root). Output is stdout and stderr combined as they arrive, capped. When the
 * command times out or the call is cancelled, the whole group gets SIGTERM, then SIGKILL after
 * `killGraceMs`; processes the command left behind are stopped the same way when it exits.
 */
export function bashTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root);
  const cap = maxOutputBytes(options);
  const graceMs = positiveOption(options.killGraceMs, "killGraceMs") ?? DEFAULT_KILL_GRACE_MS;
  const shell = options.shell ?? defaultShell();
  return defineBuiltin(
    {
      name: "bash",
      description:
        "Run a shell command and return its combined stdout+stderr. Non-zero exit is an error.",
      inputSchema: {
        type: "object",
        properties: {
          command: { type: "string", description: "The shell command to run" },
          workdir: { type: "string", description: "Working directory (default: process cwd)" },
          timeout: { type: "number", description: "Timeout in milliseconds (default 60000)" },
          description: {
            type: "string",
            description: "Human-readable description of the command",
          },
        },
        required: ["command"],
        additionalProperties: false,
      },
      async run(args: Args, ctx: ToolContext): Promise<ToolResult> {
        const command = requiredString(args, "command");
        const workdirArg = optionalString(args, "workdir");
        optionalString(args, "description");
        const timeoutMs = Math.round(optionalPositive(args, "timeout") ?? DEFAULT_BASH_TIMEOUT_MS);
        let cwd: string;
        if (workdirArg === undefined) cwd = await root.real();
        else {
          const resolved = await root.resolve("bash", workdirArg);
          if (isRefusal(resolved)) return resolved.refused;
          cwd = resolved.real;
          const stats = await stat(cwd).catch(() => undefined);
          if (!stats?.isDirectory()) {
            return error(`bash: workdir ${JSON.stringify(workdirArg)} is not a folder`);
          }
        }
        return runCommand({
          command,
          cwd,
          shell,
          env: options.env ?? process.env,
          cap,
          graceMs,
          limit: new CallLimit(ctx, timeoutMs),
        });
      },
    },
    options,
  );
}

interface CommandRun {
  command: string;
  cwd: string;
  shell: string;
  env: Record<string, string | undefined>;
  cap: number;
  graceMs: number;
  limit: CallLimit;
}

function runCommand(run: CommandRun): Promise<ToolResult> {
  const { limit } = run;
  return new Promise<ToolResult>((resolve) => {
    if (limit.stopped) {
      limit.dispose();
      resolve(error(`bash: command ${limit.describe()} before it started`));
      return;
    }
    let child: ChildProcess;
    try {
      child = spawn(run.shell, ["-c", run.command], {
        cwd: run.cwd,
        env: run.env,
        detached: POSIX,
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (thrown) {
      limit.dispose();
      resolve(error(`bash: could not start ${run.shell}: ${(thrown as Error).message}`));
      return;
    }
    const output = new HeadTail(run.cap);
    const collect = (stream: NodeJS.ReadableStream | null) => {
      if (stream === null) return;
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (text) output.push(Buffer.from(text, "utf8"));
      });
      stream.on("end", () => {
        const text = decoder.end();
        if (text) output.push(Buffer.from(text, "utf8"));
      });
    };
    collect(child.stdout);
    collect(child.stderr);

    const group = new ProcessGroup(child, run.graceMs);
    let stoppedBy: string | undefined;
    const onStop = () => {
      stoppedBy = limit.describe();
      group.stop();
    };
    limit.signal.addEventListener("abort", onStop, { once: true });
    child.on("error", (thrown) => {
      if (child.pid !== undefined) return;
      limit.signal.removeEventListener("abort", onStop);
      limit.dispose();
      resolve(error(`bash: could not start ${run.shell}: ${thrown.message}`));
    });
    // The shell is done: whatever it left running in its group is stopped too.
    child.on("exit", () => group.stop());
    child.on("close", (code, signal) => {
      limit.signal.removeEventListener("abort", onStop);
      limit.dispose();
      const text = output.text(
        (omitted, total) =>
          `\n\n[output truncated: ${omitted} of ${total} bytes omitted here; the limit is ${run.cap} bytes]\n\n`,
      );
      const metadata: Record<string, unknown> = { exitCode: code };
      if (output.truncated) Object.assign(metadata, { truncated: true, outputBytes: output.total });
      if (stoppedBy !== undefined) {
        const timedOut = limit.reason?.kind === "timeout";
        Object.assign(metadata, { timedOut, cancelled: !timedOut });
        resolve(error(`bash: command ${stoppedBy}\n${text}`, metadata));
      } else if (code === 0) {
        resolve(ok(text, metadata));
      } else if (code !== null) {
        resolve(error(`${text}\nbash: command exited with code ${code}`, metadata));
      } else {
        Object.assign(metadata, { signal });
        resolve(error(`${text}\nbash: command was killed by ${signal}`, metadata));
      }
    });
  });
}

/**
 * The command's process group (its pid is the group id, as it was spawned detached). `stop`
 * sends SIGTERM to the whole group and SIGKILL after the grace period, so a process that ignores
 * SIGTERM, or one of many children, still dies.
 */
class ProcessGroup {
  readonly #child: ChildProcess;
  readonly #graceMs: number;
  #stopping = false;

  constructor(child: ChildProcess, graceMs: number) {
    this.#child = child;
    this.#graceMs = graceMs;
  }

  stop(): void {
    if (this.#stopping) return;
    this.#stopping = true;
    if (!this.#signal("SIGTERM")) return;
    // Not unref'd: a process that ignores SIGTERM must still get its SIGKILL.
    setTimeout(() => this.#signal("SIGKILL"), this.#graceMs);
  }

  /** False when nothing was left to signal. */
  #signal(name: NodeJS.Signals): boolean {
    const pid = this.#child.pid;
    if (pid === undefined) return false;
    try {
      if (POSIX) process.kill(-pid, name);
      else this.#child.kill(name);
      return true;
    } catch {
      return false; // ESRCH: the group is already gone
    }
  }
}
