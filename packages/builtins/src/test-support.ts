// Helpers for this package's tests (not part of the build: only src/index.ts is an entry).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ClientOptions, createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Answer, Request, Tool, ToolCallRecord } from "@toolnexus/core";

/** A temp folder with a `root` inside it and an `outside` file next to the root. */
export interface Sandbox {
  /** The parent folder, holding root/ and outside.txt. */
  base: string;
  root: string;
  outside: string;
  outsideDir: string;
  cleanup(): Promise<void>;
}

export const SECRET = "outside secret\n";

export async function sandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "tn-builtins-")));
  const root = path.join(base, "root");
  const outsideDir = path.join(base, "elsewhere");
  await mkdir(root);
  await mkdir(outsideDir);
  const outside = path.join(base, "outside.txt");
  await writeFile(outside, SECRET);
  await writeFile(path.join(outsideDir, "secret.txt"), SECRET);
  return {
    base,
    root,
    outside,
    outsideDir,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** Approves every request (and answers questions with `data`). */
export const approveAll = (request: Request): Answer => ({ id: request.id, ok: true });

export interface ToolRun {
  record: ToolCallRecord;
  output: string;
  isError: boolean;
  requests: Request[];
  /** What the model got back as the tool message. */
  fedBack: string;
}

/**
 * Runs one tool call through the real client loop with a scripted model: the model asks for
 * `name(args)`, then answers "done". `waitFor` defaults to approving everything.
 */
export async function callThroughClient(
  tools: Tool[],
  name: string,
  args: Record<string, unknown>,
  options: Partial<Pick<ClientOptions, "waitFor" | "toolTimeoutMs">> & {
    signal?: AbortSignal;
  } = {},
): Promise<ToolRun> {
  const model = scriptedModel([
    { toolCalls: [{ id: "call-1", name, arguments: args }] },
    { content: "done" },
  ]);
  const requests: Request[] = [];
  const waitFor = options.waitFor ?? approveAll;
  const client = createClient({
    model,
    tools,
    toolTimeoutMs: options.toolTimeoutMs,
    waitFor: (request, info) => {
      requests.push(request);
      return waitFor(request, info);
    },
  });
  const result = await client.run(`call ${name}`, { signal: options.signal });
  const record = result.toolCalls[0];
  if (record === undefined) throw new Error("the tool was not called");
  const last = model.requests[1]?.messages.at(-1);
  return {
    record,
    output: record.result.output,
    isError: record.result.isError,
    requests,
    fedBack: last?.role === "tool" ? (last.content as string) : "",
  };
}

export async function read(file: string): Promise<string> {
  return readFile(file, "utf8");
}

/**
 * True while `pid` is a live process. A zombie counts as dead: it has exited, and only waits for
 * a parent that reaps it (in some sandboxes PID 1 never does).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (existsSync("/proc/self/stat")) {
    try {
      // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const stat = state.stdout.trim();
  return stat !== "" && !stat.startsWith("Z");
}

/** Polls until every pid is dead; returns those still alive after `ms`. */
export async function waitUntilDead(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const living = pids.filter(alive);
    if (living.length === 0 || Date.now() > deadline) return living;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Looks `polls` times, 20 ms apart, until every pid is dead (a zombie counts as dead); returns
 * those still alive after the last look. Bounded by a count of looks, not by a clock.
 */
export async function pollUntilDead(pids: number[], polls = 250): Promise<number[]> {
  for (let look = 1; ; look++) {
    const living = pids.filter(alive);
    if (living.length === 0 || look >= polls) return living;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Live (not zombie) processes whose environment holds `entry` ("NAME=value"); Linux only. */
export function processesCarrying(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (env.includes(entry) && alive(Number(name))) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
