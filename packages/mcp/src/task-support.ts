// Shared by the task tests: the Tasks-extension server (fixtures/task-server.mjs) in a child
// process, its control routes, and a model that calls one of its tools and then reports.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { inProcessModel } from "@toolnexus/client";
import type { Model } from "@toolnexus/core";

export const TASK_SERVER = join(import.meta.dirname, "fixtures", "task-server.mjs");

/** What the server counts: tool executions and task requests. */
export interface TaskStats {
  executions: number;
  cancels: number;
  gets: number;
  updates: number;
}

export interface TaskServer {
  url: string;
  stats(): Promise<TaskStats>;
  /** Every working task moves on (completes, or asks for input for `release`). */
  finish(): Promise<void>;
  /** `forget`: every task is forgotten; `down`/`up`: MCP requests fail with 503, or work again. */
  control(what: "forget" | "down" | "up"): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the task server on 127.0.0.1; resolves once it listens. */
export async function startTaskServer(): Promise<TaskServer> {
  const child: ChildProcess = spawn(process.execPath, [TASK_SERVER], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /listening (\S+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the task server exited (${code}): ${seen}`)));
  });
  const origin = new URL(url).origin;
  return {
    url,
    stats: async () => (await (await fetch(`${origin}/control/stats`)).json()) as TaskStats,
    finish: async () => {
      await (await fetch(`${origin}/control/finish`, { method: "POST" })).text();
    },
    control: async (what) => {
      await (await fetch(`${origin}/control/${what}`, { method: "POST" })).text();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** A model whose first turn calls `tool` with the prompt as target; then it reports the result. */
export function taskScript(tool: string): Model {
  return inProcessModel({
    id: "task-script",
    generate: ({ messages }) => {
      if (!messages.some((m) => m.role === "assistant")) {
        const target = messages.find((m) => m.role === "user")?.content ?? "";
        return { toolCalls: [{ id: `t-${target}`, name: tool, arguments: { target } }] };
      }
      return { content: `final: ${messages[messages.length - 1]?.content ?? ""}` };
    },
  });
}

/** Polls `check` until it holds (each check is an event read from a store or a server). */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  limitMs = 30_000,
): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
