// Shared by the tests: real MCP peers started on this machine, and a scripted model.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inProcessModel, type SimpleTurn } from "@toolnexus/client";
import type { Model } from "@toolnexus/core";

const require = createRequire(import.meta.url);

/** `node <server-everything>`: the reference server of the MCP project (2025 protocol). */
export const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

/** The 2026-07-28 test server written with `@modelcontextprotocol/server`. */
export const MRTR_SERVER = join(
  dirname(fileURLToPath(import.meta.url)),
  "fixtures",
  "mrtr-server.mjs",
);

/** A stdio server of the process and secret tests (see the file for its settings). */
export const TREE_SERVER = join(
  dirname(fileURLToPath(import.meta.url)),
  "fixtures",
  "tree-server.mjs",
);

/** A stdio server that exits on any request before `initialize` (so on `server/discover`). */
export const DISCOVER_EXITS = join(
  dirname(fileURLToPath(import.meta.url)),
  "fixtures",
  "discover-exits.mjs",
);

/** The pids written one per line to `file` (none when it does not exist yet). */
export function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(Number);
}

/** Whether the process runs: it exists and is not a zombie (an ended process not yet reaped). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Polls until `condition` holds; fails with `what` after `limitMs` (generous: a busy machine). */
export async function until(
  condition: () => boolean,
  what: string,
  limitMs = 30_000,
): Promise<void> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts server-everything over Streamable HTTP on 127.0.0.1; resolves once it listens. */
export async function everythingOverHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`server-everything did not listen: ${seen}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on port/i.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr?.on("data", onData);
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${seen}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * A model that plays `turns` by position: turn n is played when the transcript holds n
 * assistant messages, so a run resumed in another process picks up at the right turn.
 */
export function script(turns: readonly (SimpleTurn | ((last: string) => SimpleTurn))[]): Model {
  return inProcessModel({
    id: "script",
    generate: ({ messages }) => {
      const n = messages.filter((m) => m.role === "assistant").length;
      const turn = turns[Math.min(n, turns.length - 1)]!;
      const last = messages[messages.length - 1]?.content ?? "";
      return typeof turn === "function" ? turn(last) : turn;
    },
  });
}

/**
 * The durability test's model: the first turn deploys the service the prompt names
 * ("deploy svc-3" → ops_deploy {service: "svc-3"}), the second answers with the tool's result.
 */
export function deployScript(): Model {
  return inProcessModel({
    id: "deploy-script",
    generate: ({ messages }) => {
      if (!messages.some((m) => m.role === "assistant")) {
        const prompt = messages.find((m) => m.role === "user")?.content ?? "";
        const service = prompt.replace(/^deploy /, "");
        return {
          toolCalls: [{ id: `d-${service}`, name: "ops_deploy", arguments: { service } }],
        };
      }
      return { content: `final: ${messages[messages.length - 1]?.content ?? ""}` };
    },
  });
}
