// What every entry point of the demo shares: where the SQLite file lives, and the one client
// configuration the terminal, the durable path and the browser all use.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import {
  agentTool,
  type Client,
  createClient,
  type RunEvent,
  type WaitFor,
} from "@toolnexus/client";
import {
  type Answer,
  AnswerConflictError,
  CheckpointError,
  type Message,
  type Model,
  type Request,
  type RequestState,
  type RunState,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { NOTES_SYSTEM_PROMPT, NOTES_TOOL, SYSTEM_PROMPT } from "./director.js";
import { changelogTools, type Observe, releaseTools } from "./tools.js";

export const AGENT = "release-assistant";
/** The sub-agent the assistant calls through `write_release_notes`. */
export const NOTES_AGENT = "changelog-writer";

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

/**
 * Opens the demo's SQLite file (loaded on demand: the default demo never touches SQLite). The
 * file holds answers and tool arguments: its folder, when the demo makes it, is the owner's
 * alone (0700), and the store makes the file and its -wal and -shm 0600.
 */
export async function openStore(path: string): Promise<SqliteStore> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
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

/**
 * The changelog writer: a client of its own (its agent, instructions and tools), with no
 * `waitFor`, so its question goes up to whoever runs the release assistant. Its runs live in the
 * same store as the assistant's, under the assistant's run id (`<run>/<call>`).
 */
export function changelogWriter(options: Pick<DemoClientOptions, "model" | "store">): Client {
  return createClient({
    model: options.model,
    tools: changelogTools(),
    agent: NOTES_AGENT,
    systemPrompt: NOTES_SYSTEM_PROMPT,
    maxTurns: 4,
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    ...(options.store === undefined ? {} : { runs: options.store }),
  });
}

/** `write_release_notes`: the changelog writer, as a tool of the release assistant. */
export function notesTool(writer: Client) {
  return agentTool(writer, {
    name: NOTES_TOOL,
    description:
      "Ask the changelog writer (a sub-agent) to draft the release notes of a version from the merged changes. With publish: true it also publishes them, after asking the person.",
    inputSchema: {
      type: "object",
      properties: {
        version: { type: "string", description: "The release, e.g. 2.4.1" },
        publish: {
          type: "boolean",
          description: "Publish the notes too (only when the person asked for it)",
        },
      },
      required: ["version"],
      additionalProperties: false,
    },
    prompt: ({ version, publish }) =>
      `Write the release notes for ${String(version)}${publish === true ? ", then publish them to the public changelog" : ""}.`,
  });
}

/** The release assistant: the real loop, the four tools and the sub-agent, the demo's budgets. */
export function demoClient(options: DemoClientOptions): Client {
  return createClient({
    model: options.model,
    tools: [...releaseTools(options.observe), notesTool(changelogWriter(options))],
    agent: AGENT,
    systemPrompt: SYSTEM_PROMPT,
    maxTurns: 8,
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    timeoutMs: RUN_TIMEOUT_MS,
    waitTimeoutMs: WAIT_TIMEOUT_MS,
    ...(options.waitFor === undefined ? {} : { waitFor: options.waitFor }),
    ...(options.store === undefined ? {} : { runs: options.store, conversations: options.store }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
}

/** A short, readable session id: `rel-` and 8 random hex digits. */
export function newSessionId(): string {
  return `rel-${randomBytes(4).toString("hex")}`;
}

/** A request in the store, with its run: the call it suspended and the transcript so far. */
export interface StoredRequest {
  request: Request;
  runId: string;
  /** `waiting` or `expired` (nobody answered in time); `answered`/`applied` once answered. */
  state: RequestState;
  /** The answer on record, once there is one. */
  answer?: Answer;
  /** The effective deadline: the request's own `expiresAt`, else the client's wait limit. */
  expiresAt?: string;
  /** The run's own state (`done`, `waiting`, …); undefined when the run was pruned. */
  runState?: RunState;
  /** The tool call that suspended, while the run still waits on it. */
  tool?: string;
  args?: Record<string, unknown>;
  sessionId?: string;
  agent?: string;
  /** The run's transcript: its checkpoint's while it waits, its result's once done. */
  messages: Message[];
  /** The tools the run needs to continue: those of its waiting calls. */
  tools: string[];
}

/** The request `id` and its run; `SuspensionNotFoundError` when no run ever raised it. */
export function findRequest(store: SqliteStore, id: string): StoredRequest {
  const info = store.getRequest(id);
  if (info === undefined) throw new SuspensionNotFoundError(id);
  const run = store.getRun(info.runId);
  const checkpoint = run?.checkpoint;
  const found: StoredRequest = {
    request: info.request,
    runId: info.runId,
    state: info.state,
    messages: checkpoint?.messages ?? run?.result?.messages ?? [],
    tools: checkpoint?.pending.map((p) => p.tool) ?? [],
  };
  if (info.answer !== undefined) found.answer = info.answer;
  if (info.expiresAt !== undefined) found.expiresAt = info.expiresAt;
  if (run !== undefined) found.runState = run.state;
  const call = checkpoint?.pending.find((p) => p.request.id === id);
  if (call !== undefined) {
    found.tool = call.tool;
    found.args = call.args;
  }
  const sessionId = run?.sessionId ?? checkpoint?.sessionId;
  if (sessionId !== undefined) found.sessionId = sessionId;
  const agent = run?.agent ?? checkpoint?.agent;
  if (agent !== undefined) found.agent = agent;
  return found;
}

const DEMO_TOOLS = new Set([...releaseTools().map((tool) => tool.name), NOTES_TOOL]);

/**
 * Whether a run is a sub-agent's (agentTool runs it under `<parent run id>/<call id>`). Its
 * questions reach the person through the parent run, as the parent's own requests, so the
 * lists show only those, and answers go there.
 */
export function isSubAgentRun(runId: string): boolean {
  return runId.includes("/");
}

/**
 * Refuses, before anything is recorded, a run this demo could not continue: one that waits on
 * a tool the demo does not have (another agent's run in the same file), or a sub-agent's run,
 * whose question is answered through the assistant's run. Recording the answer first would
 * leave the run answered but stuck, retrying here and failing each time.
 */
export function assertContinuable(found: StoredRequest): void {
  if (isSubAgentRun(found.runId)) {
    const through =
      found.agent === NOTES_AGENT ? ` as request ${found.request.id}:${NOTES_TOOL}` : "";
    throw new CheckpointError(
      found.request.id,
      `request ${found.request.id} was asked inside a sub-agent's run (${found.agent ?? "another agent"}, run ${found.runId}); the assistant passes it on to you${through}: answer that one. Nothing was recorded`,
    );
  }
  const missing = found.tools.find((tool) => !DEMO_TOOLS.has(tool));
  if (missing === undefined) return;
  throw new CheckpointError(
    found.request.id,
    `tool "${missing}" is not registered with this demo (the run belongs to ${found.agent === undefined ? "another agent" : `agent ${found.agent}`}); answer it where that agent's tools run. Nothing was recorded`,
  );
}

/** What recording a person's answer did. */
export type Recorded = "recorded" | "duplicate" | "expired";

/**
 * Records an answer without running anything. The same answer twice is a `duplicate` (nothing
 * changes); an answer past the request's deadline is not recorded (`expired`: the run goes on
 * as if it were declined). A different answer to an answered request throws
 * `AnswerConflictError`, and changes nothing.
 */
export async function recordAnswer(client: Client, answer: Answer): Promise<Recorded> {
  try {
    return (await client.answer(answer)).duplicate ? "duplicate" : "recorded";
  } catch (thrown) {
    if (thrown instanceof AnswerConflictError && thrown.reason === "expired") return "expired";
    throw thrown;
  }
}

/** An answer in a few words: `env=staging, notify=true`, `approved`, `declined`. */
export function describeAnswer(answer: Answer): string {
  if (!answer.ok) return answer.reason ?? "declined";
  const data = Object.entries(answer.data ?? {});
  if (data.length === 0) return "approved";
  return data.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
}
