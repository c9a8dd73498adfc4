// The public shapes of loadMcp: its options, a server's state, the toolset it returns.
import type { Answer, Request, RunStore, Tool, ToolCall } from "@toolnexus/core";
import type { McpResponseTooLargeError } from "./errors.js";
import type { McpOAuthOptions } from "./oauth/types.js";
import type { McpServerFingerprint } from "./pinning.js";
import type { McpPinOptions } from "./pinning-policy.js";

/** A server's state: the contract's three. */
export type McpServerStatus = "connected" | "failed" | "disabled";

/** What a host's `waitFor` learns besides the Request (the client's `WaitForInfo` shape). */
export interface McpWaitInfo {
  call: ToolCall;
  tool: string;
  signal: AbortSignal;
  sessionId: string | undefined;
  agent: string | undefined;
}

/** Answers a server's question in-process (the same function as the client's `waitFor` fits). */
export type McpWaitFor = (request: Request, info: McpWaitInfo) => Answer | Promise<Answer>;

/** A server's `sampling/createMessage` request, answered by the host (by a model, never a human). */
export type McpSampling = (
  params: Record<string, unknown>,
  info: { server: string; signal: AbortSignal },
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A root the host exposes to servers (`roots/list`). */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** Options of {@link loadMcp}. */
export interface LoadMcpOptions {
  /** Aborts the load: servers still starting are stopped and `loadMcp` rejects. */
  signal?: AbortSignal;
  /**
   * Answers push-style elicitations (servers of the 2025 protocol, which ask in the middle of a
   * call) in-process, while the call waits. Without it, such a question halts the call and the
   * call is replayed after the answer (see the README). 2026 servers' questions (`input_required`)
   * always go to the client loop, which asks its own `waitFor` or halts the run durably.
   */
  waitFor?: McpWaitFor;
  /**
   * Limit on a human's wait for one push-style elicitation answered by `waitFor`, in ms. When it
   * expires the server hears `cancel` and the `signal` `waitFor` got aborts with a `TimeoutError`.
   */
  waitTimeoutMs?: number;
  /** Answers servers' sampling requests (with a model of the host's choice). Not advertised without it. */
  sampling?: McpSampling;
  /** The roots servers may list. Not advertised without it. */
  roots?: readonly McpRoot[] | (() => readonly McpRoot[] | Promise<readonly McpRoot[]>);
  /** Set false to not advertise elicitation at all (servers then do not ask). Default true. */
  elicitation?: boolean;
  /**
   * How many questions one call may ask one after another (rounds of `input_required`, or of a
   * replayed push-style call): each tool's `maxSuspensions`. Default 8.
   */
  maxRounds?: number;
  /**
   * The environment `${ENV}` placeholders (in headers, URLs and local servers' `env`) are read
   * from, and the host environment `inheritEnv` draws on. Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * What a local server inherits of the host environment besides its own `env`. Default: only
   * `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM` and `USER` (on Windows the SDK's list of system
   * variables), never the host's API keys. An array adds those names; `true` passes the whole
   * environment (the old behaviour; every host secret reaches every server).
   */
  inheritEnv?: boolean | readonly string[];
  /** The name and version this client gives servers. Default `toolnexus`. */
  clientInfo?: { name: string; version: string };
  /** Where a local server's stderr goes: `"pipe"` (default: kept for failure reasons) or `"inherit"`. */
  stderr?: "pipe" | "inherit";
  /**
   * OAuth for remote servers (on for every remote server whose entry does not say
   * `"auth": false`): how a person is sent to approve, and where tokens are kept.
   */
  oauth?: McpOAuthOptions;
  /** Tool pinning: refuse or warn when a server's tool definitions differ from approved ones. */
  pin?: McpPinOptions;
  /**
   * Set false to not declare the Tasks extension (`io.modelcontextprotocol/tasks`): servers then
   * answer every call in place. Default true.
   */
  tasks?: boolean;
  /**
   * How long one call polls a server's task (backing off from 100 ms to 5 s, or the server's
   * `pollIntervalMs`) before the run halts on it with a Request of kind `mcp_task` that
   * {@link McpToolset.watchTasks} answers when the task moves. Default 0: the run halts at once,
   * so the task id is durable before anything else happens (a worker killed while it polled
   * would call the tool again). Raise it for hosts without a watcher.
   */
  taskWaitMs?: number;
  /**
   * The largest single message a server may send, in bytes: a stdio line, a remote server's JSON
   * response body, one event of its SSE stream. A larger one is not read on: the request it
   * answers fails with {@link McpResponseTooLargeError} (on stdio the connection closes, as the
   * rest of the stream cannot be trusted). A remote error response's body (a status other than
   * 2xx) is only quoted, cut at 64 KiB. Default 10 MiB (10 485 760, the MCP SDK's stdio limit).
   */
  maxMessageBytes?: number;
  /**
   * The most bytes one SSE response stream of a remote server may carry in all (a call's
   * progress notifications and its result): past it the stream is stopped and the request fails
   * with {@link McpResponseTooLargeError}. Default 64 MiB (67 108 864).
   */
  maxStreamBytes?: number;
  /**
   * The longest output of one call, in characters: text parts joined, or `structuredContent` as
   * JSON. A longer one is cut with a note (`[cut: …]`) and `metadata.truncated: true`. Default
   * 1 000 000.
   */
  maxOutputChars?: number;
}

/** One server's state, with the reason when it failed. */
export interface McpServerInfo {
  name: string;
  status: McpServerStatus;
  /** Why it failed (header values from the environment never appear in it). */
  reason?: string;
  transport?: "stdio" | "streamable-http";
  /** The protocol generation it speaks: `"2025"` or `"2026-07-28"`. */
  protocol?: string;
  /** Its tools' toolnexus names. */
  tools: string[];
  /** The fingerprint of its offered tools' definitions (with `pin`), for the host to store. */
  fingerprint?: McpServerFingerprint;
}

/**
 * The loaded MCP servers: their tools, their states, and `close()`. It is an `McpSource` for
 * `createToolkit({ mcp })` of `@toolnexus/toolkit`.
 */
export interface McpToolset {
  /** Every connected server's tools, named `sanitize(server)_sanitize(tool)`, `source: "mcp"`. */
  tools(): Tool[];
  /** Each configured server's state by name: `connected`, `failed` or `disabled`. */
  status(): Record<string, McpServerStatus>;
  /** Each configured server's state with details (the failure reason, transport, protocol). */
  servers(): McpServerInfo[];
  /**
   * Watches the servers' tasks that runs of `options.runs` halted on (Requests of kind
   * `mcp_task`): polls each with `tasks/get`, backing off, and answers its Request when the task
   * is no longer working, so a worker (`client.work`) continues the run; cancels the task of a
   * run that was cancelled. Resolves with what it did when `options.signal` aborts.
   */
  watchTasks(options: WatchTasksOptions): Promise<WatchTasksSummary>;
  /**
   * Disconnects every server and stops each local server with everything it started (its
   * process group and every descendant): stdin closed, then SIGTERM, then SIGKILL.
   */
  close(): Promise<void>;
}

/** Options of {@link McpToolset.watchTasks}. */
export interface WatchTasksOptions {
  /** The run store the workers use (`client.runs`). */
  runs: Pick<RunStore, "list" | "answer">;
  /** Stops the watcher. */
  signal: AbortSignal;
  /** How often the store is read, in ms; also each task's first poll interval. Default 1000. */
  pollMs?: number;
  /** The longest a working task goes unpolled, in ms. Default 30 000. */
  maxPollMs?: number;
  /** Told of a poll or an answer that failed (the watcher goes on); nothing secret in it. */
  onError?: (error: Error) => void;
}

/** What a watcher did before it stopped. */
export interface WatchTasksSummary {
  /** `tasks/get` requests sent. */
  polls: number;
  /** Requests answered because their task moved. */
  answered: number;
  /** Tasks cancelled because their run was. */
  cancelled: number;
}
