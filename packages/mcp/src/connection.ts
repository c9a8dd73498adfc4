// What a call and a server's question need of the server they belong to, below `server.ts`, so
// that the server (which wires calls and questions in) and the code of a call do not import
// each other.
import type { Client } from "@modelcontextprotocol/client";
import type { CallState } from "./call-state.js";
import type { McpServerSpec } from "./config.js";
import type { McpLimits } from "./limits.js";
import type { Scrubber } from "./scrub.js";
import type { LoadMcpOptions, McpRoot, McpServerStatus } from "./types.js";

/** A server that is started (a local process or a remote endpoint). */
export type ActiveSpec = Extract<McpServerSpec, { kind: "local" | "remote" }>;

/** One configured server as a tool call and an elicitation see it. */
export interface ServerConnection {
  readonly name: string;
  readonly spec: McpServerSpec;
  readonly options: LoadMcpOptions;
  /** Every configured secret value, scrubbed from everything the server says. */
  readonly scrub: Scrubber;
  /** The load's size limits (a call's output is cut at `maxOutputChars`). */
  readonly limits: McpLimits;
  readonly status: McpServerStatus;
  readonly client: Client | undefined;
  /** Calls in flight, newest last: a push-style question belongs to one of them. */
  readonly calls: CallState[];
  roots(): Promise<readonly McpRoot[]>;
  /** Why its tools may not be called any more (their definitions changed and were refused). */
  readonly refused?: Error;
  /** Hears the server's new tool list after it said the list changed (with `pin` only). */
  toolsChanged?(tools: readonly unknown[]): void;
}

export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  return String(thrown);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
