import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { inheritedEnv } from "./bash-env.js";
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
import { CALL_MARKER_FD, CALL_MARKER_VAR, CallProcesses, openCallMarker } from "./process-tree.js";

/** bash's own default budget when the model gives no `timeout` (the contract's 60 s). */
export const DEFAULT_BASH_TIMEOUT_MS = 60_000;

const POSIX = process.platform !== "win32";

function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

/**
 * `bash`: runs one command with `<shell> -c` in its own process group, in `workdir` (inside the
 * root; default the root). Output is stdout and stderr combined as they arrive, capped. When the
 * command times out or the call is cancelled, every process of the call (see
 * {@link CallProcesses}: on Linux found by a marker variable, an inherited marker descriptor
 * and parent pids whatever group or session it moved to) gets SIGTERM, then SIGKILL after `killGraceMs`; processes the command
 * left behind are stopped the same way when it exits. The call ends then, even if an escaped
 * process still holds the output pipes. The command's environment is `env`, else only the
 * host variables of `BASH_INHERITED_ENV` (no API keys); pass `env: process.env` to give it
 * everything.
 */
export function bashTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
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
          // Read at each call, as process.env was; an explicit `env` is used exactly as given.
          env: options.env ?? inheritedEnv(process.env),
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

/** How long the result waits for output still in the pipes once every process is gone. */
const DRAIN_MS = 1_000;

function runCommand(run: CommandRun): Promise<ToolResult> {
  const { limit } = run;
  return new Promise<ToolResult>((resolve) => {
    if (limit.stopped) {
      limit.dispose();
      resolve(error(`bash: command ${limit.describe()} before it started`));
      return;
    }
    const callId = randomUUID();
    // Linux: a descriptor every process of the call inherits (see process-tree.ts).
    const marker = openCallMarker(callId);
    const stdio: StdioOptions = ["ignore", "pipe", "pipe"];
    if (marker !== undefined) {
      while (stdio.length < CALL_MARKER_FD) stdio.push("ignore"); // left closed in the child
      stdio.push(marker.fd);
    }
    let child: ChildProcess;
    try {
      child = spawn(run.shell, ["-c", run.command], {
        cwd: run.cwd,
        env: { ...run.env, [CALL_MARKER_VAR]: callId },
        detached: POSIX,
        stdio,
        windowsHide: true,
      });
    } catch (thrown) {
      limit.dispose();
      resolve(error(`bash: could not start ${run.shell}: ${(thrown as Error).message}`));
      return;
    } finally {
      marker?.close(); // the child has its own copy
    }
    const output = new HeadTail(run.cap);
    let openStreams = 0;
    let drained: () => void = () => {};
    const collect = (stream: NodeJS.ReadableStream | null) => {
      if (stream === null) return;
      openStreams++;
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (text) output.push(Buffer.from(text, "utf8"));
      });
      const flush = () => {
        const text = decoder.end();
        if (text) output.push(Buffer.from(text, "utf8"));
        if (--openStreams === 0) drained();
      };
      stream.once("end", flush);
      stream.once("error", () => {});
    };
    collect(child.stdout);
    collect(child.stderr);

    const processes =
      child.pid === undefined ? undefined : new CallProcesses(child.pid, callId, marker?.link);
    const stopAll = () => {
      if (!POSIX) child.kill("SIGKILL");
      return processes?.stop(run.graceMs) ?? Promise.resolve();
    };
    let stoppedBy: string | undefined;
    const onStop = () => {
      stoppedBy = limit.describe();
      void stopAll();
    };
    limit.signal.addEventListener("abort", onStop, { once: true });
    child.on("error", (thrown) => {
      if (child.pid !== undefined) return;
      limit.signal.removeEventListener("abort", onStop);
      limit.dispose();
      resolve(error(`bash: could not start ${run.shell}: ${thrown.message}`));
    });
    // The call ends when the shell has exited and every process it started is gone, not when
    // the pipes close: a process that escaped the kill could hold them open for ever.
    child.once("exit", async (code, signal) => {
      // Whatever the shell left running is stopped too.
      await stopAll();
      if (openStreams > 0) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, DRAIN_MS);
          drained = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      limit.signal.removeEventListener("abort", onStop);
      limit.dispose();
      resolve(finish(run, output, limit, stoppedBy, code, signal));
    });
  });
}

function finish(
  run: CommandRun,
  output: HeadTail,
  limit: CallLimit,
  stoppedBy: string | undefined,
  code: number | null,
  signal: NodeJS.Signals | null,
): ToolResult {
  const text = output.text(
    (omitted, total) =>
      `\n\n[output truncated: ${omitted} of ${total} bytes omitted here; the limit is ${run.cap} bytes]\n\n`,
  );
  const metadata: Record<string, unknown> = { exitCode: code };
  if (output.truncated) Object.assign(metadata, { truncated: true, outputBytes: output.total });
  if (stoppedBy !== undefined) {
    const timedOut = limit.reason?.kind === "timeout";
    Object.assign(metadata, { timedOut, cancelled: !timedOut });
    return error(`bash: command ${stoppedBy}\n${text}`, metadata);
  }
  if (code === 0) return ok(text, metadata);
  if (code !== null) return error(`${text}\nbash: command exited with code ${code}`, metadata);
  Object.assign(metadata, { signal });
  return error(`${text}\nbash: command was killed by ${signal}`, metadata);
}
