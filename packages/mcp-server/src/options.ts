// What a served toolkit is configured with, and every size limit with its default.
import type { RunStore, Tool } from "@toolnexus/core";

/** One finished inbound `tools/call`, for logs and metrics (never its arguments). */
export interface McpCallInfo {
  name: string;
  source: string;
  /** Wall time of this round, in ms. */
  ms: number;
  isError: boolean;
  /** True when the round ended by asking the client's person (an elicitation). */
  asked: boolean;
}

/** Who calls, as the MCP request tells it. Tools read it from `ctx.extra.mcp`. */
export interface McpCaller {
  /** The OAuth client id of the request's validated token (HTTP with `authenticate`). */
  clientId?: string;
  /** The token's scopes. */
  scopes?: string[];
  /** The MCP session (2025 sessions over HTTP; absent for stateless 2026 requests and stdio). */
  sessionId?: string;
  /** The MCP client's own name and version, as it declared them. */
  client?: { name: string; version: string };
}

/** Options of {@link mcpServerFactory}, {@link serveMcpHttp} and {@link serveMcpStdio}. */
export interface McpServeOptions {
  /** The tools to serve: any toolnexus Tool (native, HTTP, skills, built-ins, sub-agents…). */
  tools: readonly Tool[];
  /** Serve only these tool names; unknown names are ignored. Default: every tool. */
  expose?: readonly string[];
  /** `serverInfo.name`. Default `"toolnexus"`. */
  name?: string;
  /** `serverInfo.version`. Default `"0.1.0"`. */
  version?: string;
  /** Instructions for the client's model, sent at initialization. */
  instructions?: string;
  /** Budget of one call when the tool sets no `timeoutMs`, in ms. Default 120 000. */
  timeoutMs?: number;
  /**
   * Values never to send a client (API keys the tools use, tokens): every text of every result
   * and question has them replaced with `***`. Values shorter than 4 characters are ignored.
   */
  secrets?: Iterable<string>;
  /**
   * Where a call that asks the client's person halts durably: the next round (2026
   * `input_required`) continues it from the store, in whichever process receives it.
   * Without it, the round's state travels, signed, in the `requestState` the client echoes.
   */
  runs?: RunStore;
  /**
   * The HMAC key (at least 32 bytes) that signs `requestState`. Give every process that can
   * receive a round the same key; default: a random key per process.
   */
  stateKey?: string | Uint8Array;
  /** How long a question's round stays valid, in seconds. Default 86 400 (a day). */
  stateTtlSeconds?: number;
  /** Called after each `tools/call` round. */
  onCall?: (info: McpCallInfo) => void;
  /** Largest `arguments` of one call, as JSON, in bytes. Default 1 MiB. */
  maxArgumentBytes?: number;
  /** Most array elements plus object members in one call's `arguments`. Default 10 000. */
  maxArgumentElements?: number;
  /** Longest text a result sends, in characters; the rest is cut with a note. Default 1 000 000. */
  maxOutputChars?: number;
  /** Most questions one call may ask in a row, whatever its tool's `maxSuspensions`. Default 8. */
  maxRounds?: number;
  /** Most calls running at once (Tasks not counted); one more gets an error result. Default 64. */
  maxConcurrentCalls?: number;
  /**
   * Tools that run as 2026 Tasks (the Tasks extension) for clients that support it: the call
   * answers at once with a task the client polls. Tasks live in the process that started them.
   */
  tasks?: McpTaskOptions;
}

/** Which tools run as Tasks, and the limits of the task table. */
export interface McpTaskOptions {
  /** The tools that answer with a task when the client supports Tasks. */
  tools: readonly string[];
  /** Most tasks kept at a time (running or ended, not yet forgotten). Default 1 000. */
  maxTasks?: number;
  /** How long an ended task's result is kept, in ms. Default 1 hour. */
  ttlMs?: number;
  /** A task's time budget, in ms, when its tool sets none. Default 1 hour. */
  timeoutMs?: number;
  /** How often a client is told to poll, in ms. Default 1 000. */
  pollIntervalMs?: number;
}

export const DEFAULTS = {
  name: "toolnexus",
  version: "0.1.0",
  timeoutMs: 120_000,
  stateTtlSeconds: 86_400,
  maxArgumentBytes: 1024 * 1024,
  maxArgumentElements: 10_000,
  maxOutputChars: 1_000_000,
  maxRounds: 8,
  maxConcurrentCalls: 64,
} as const;
