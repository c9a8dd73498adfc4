// What every entry point of the demo shares: where the SQLite file lives, and the one client
// configuration the terminal, the durable path and the browser all use.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { type Client, createClient, type RunEvent, type WaitFor } from "@toolnexus/client";
import {
  AlreadyResumedError,
  type Message,
  type Model,
  type Request,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { SYSTEM_PROMPT } from "./director.js";
import { type Observe, releaseTools } from "./tools.js";

export const AGENT = "release-assistant";

/** A mistake in how the demo was called: printed with a hint, exit status 2. */
export class UsageError extends Error {}

/** Every tool call's budget unless the tool sets a smaller one (fetch_status does). */
export const TOOL_TIMEOUT_MS = 5000;
/** The run's own budget: model calls and tools, never the time a person takes to answer. */
export const RUN_TIMEOUT_MS = 120_000;
/** How long a person has to answer a request that sets no expiry of its own (approvals). */
export const WAIT_TIMEOUT_MS = 2 * 3600_000;

/** The directory the person ran the command from (pnpm runs scripts in the package folder). */
export function userDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD || process.cwd();
}

/** `--db`, else TOOLNEXUS_DEMO_DB, else `.toolnexus/demo.db` where the command was run. */
export function dbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const given = flag ?? (env.TOOLNEXUS_DEMO_DB || undefined) ?? ".toolnexus/demo.db";
  return isAbsolute(given) ? given : resolve(userDir(env), given);
}

/** A path as the person would type it from where they ran the command. */
export function shownPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const rel = relative(userDir(env), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** Opens the demo's SQLite file (loaded on demand: the default demo never touches SQLite). */
export async function openStore(path: string): Promise<SqliteStore> {
  mkdirSync(dirname(path), { recursive: true });
  const { sqliteStore } = await import("@toolnexus/store-sqlite");
  return sqliteStore({ path });
}

export interface DemoClientOptions {
  model: Model;
  store?: SqliteStore;
  waitFor?: WaitFor;
  onEvent?: (event: RunEvent) => void;
  observe?: Observe;
}

/** The release assistant: the real loop, the four tools, the demo's budgets. */
export function demoClient(options: DemoClientOptions): Client {
  return createClient({
    model: options.model,
    tools: releaseTools(options.observe),
    agent: AGENT,
    systemPrompt: SYSTEM_PROMPT,
    maxTurns: 8,
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    timeoutMs: RUN_TIMEOUT_MS,
    waitTimeoutMs: WAIT_TIMEOUT_MS,
    ...(options.waitFor === undefined ? {} : { waitFor: options.waitFor }),
    ...(options.store === undefined
      ? {}
      : { suspensions: options.store, conversations: options.store }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
}

/** A short, readable session id: `rel-` and 8 random hex digits. */
export function newSessionId(): string {
  return `rel-${randomBytes(4).toString("hex")}`;
}

/** A request that waits in the store, with the call it suspended and the transcript so far. */
export interface WaitingRequest {
  request: Request;
  tool: string;
  args: Record<string, unknown>;
  sessionId?: string;
  messages: Message[];
}

/** The request waiting on `id`; a clear error when it was already answered or never existed. */
export function waitingRequest(store: SqliteStore, id: string): WaitingRequest {
  const checkpoint = store.get(id);
  if (checkpoint === undefined) {
    // Nothing waits on this id. Say why without touching anything: answered before, or unknown.
    if (store.list().some((item) => item.request.id === id && item.state === "resumed")) {
      throw new AlreadyResumedError(id);
    }
    throw new SuspensionNotFoundError(id);
  }
  const call = checkpoint.pending.find((p) => p.request.id === id)!;
  const found: WaitingRequest = {
    request: call.request,
    tool: call.tool,
    args: call.args,
    messages: checkpoint.messages,
  };
  if (checkpoint.sessionId !== undefined) found.sessionId = checkpoint.sessionId;
  return found;
}
