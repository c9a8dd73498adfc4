// The Tasks extension's requests (io.modelcontextprotocol/tasks, SEP-2663, on the 2026-07-28
// protocol): `tasks/get` to poll, `tasks/update` to answer a task's input requests, and
// `tasks/cancel`. The SDK sends them with the `Mcp-Name` header the spec asks for.
import type { StandardSchemaV1 } from "@modelcontextprotocol/client";
import { isObject, type ServerConnection as Server } from "./connection.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A task's status, as the spec lists them. */
export type McpTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as `tasks/get` (or the handle of `tools/call`) describes it. */
export interface McpTask {
  taskId: string;
  status: McpTaskStatus;
  statusMessage?: string;
  createdAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** With `input_required`: the server's requests, by key (the multi-round-trip shape). */
  inputRequests?: Record<string, unknown>;
  /** With `completed`: the result of the call (a `CallToolResult`). */
  result?: Record<string, unknown>;
  /** With `failed`: the JSON-RPC error. */
  error?: { code?: number; message?: string };
}

const STATUSES: readonly string[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];

/** Thrown when a server's answer is not a task: the call cannot be followed. */
export class McpTaskError extends Error {
  override name = "McpTaskError";
}

/** Reads a task out of what a server sent; throws {@link McpTaskError} when it is not one. */
export function parseTask(value: unknown): McpTask {
  if (!isObject(value) || typeof value.taskId !== "string" || value.taskId === "") {
    throw new McpTaskError("the server's task has no taskId");
  }
  if (typeof value.status !== "string" || !STATUSES.includes(value.status)) {
    throw new McpTaskError(`the server's task has an unknown status: ${String(value.status)}`);
  }
  const task: McpTask = { taskId: value.taskId, status: value.status as McpTaskStatus };
  if (typeof value.statusMessage === "string") task.statusMessage = value.statusMessage;
  if (typeof value.createdAt === "string") task.createdAt = value.createdAt;
  // 2025 servers name them `ttl` and `pollInterval`.
  const ttl = value.ttlMs !== undefined ? value.ttlMs : value.ttl;
  if (typeof ttl === "number" || ttl === null) task.ttlMs = ttl;
  const poll = value.pollIntervalMs ?? value.pollInterval;
  if (typeof poll === "number" && poll >= 0) task.pollIntervalMs = poll;
  if (isObject(value.inputRequests)) task.inputRequests = value.inputRequests;
  if (isObject(value.result)) task.result = value.result;
  if (isObject(value.error)) task.error = value.error as McpTask["error"];
  return task;
}

/** Any JSON result, as is (the task is read by `parseTask`). */
const anyResult: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": {
    version: 1,
    vendor: "toolnexus",
    validate: (value) =>
      isObject(value) ? { value } : { issues: [{ message: "the result is not an object" }] },
  },
};

function requireClient(server: Server) {
  if (server.client === undefined || server.status !== "connected") {
    throw new McpTaskError(`MCP server ${server.name} is not connected`);
  }
  return server.client;
}

interface Options {
  signal?: AbortSignal;
  timeout: number;
}

/** `tasks/get`: the task now. */
export async function getTask(server: Server, taskId: string, options: Options): Promise<McpTask> {
  const result = await requireClient(server).request(
    { method: "tasks/get", params: { taskId } } as never,
    anyResult,
    options,
  );
  return parseTask(server.scrub.deep(result));
}

/** `tasks/update`: answers the task's input requests (keyed as the server keyed them). */
export async function updateTask(
  server: Server,
  taskId: string,
  inputResponses: Record<string, unknown>,
  options: Options,
): Promise<void> {
  await requireClient(server).request(
    { method: "tasks/update", params: { taskId, inputResponses } } as never,
    anyResult,
    options,
  );
}

/**
 * `tasks/result` (2025 servers): waits for the task to end and gives the call's result. Its
 * questions (`input_required`) reach the client meanwhile as push-style elicitations.
 */
export async function getTaskResult(
  server: Server,
  taskId: string,
  options: Options,
): Promise<Record<string, unknown>> {
  const result = await requireClient(server).request(
    { method: "tasks/result", params: { taskId } } as never,
    anyResult,
    options,
  );
  return server.scrub.deep(result) as Record<string, unknown>;
}

/** True when the server speaks the 2025 protocol, whose tasks keep their result apart. */
export function isLegacy(server: Server): boolean {
  return server.client !== undefined && server.client.getProtocolEra() !== "modern";
}

/** `tasks/cancel`: asks the server to stop the task (cooperative; errors are the caller's to ignore). */
export async function cancelTask(server: Server, taskId: string, options: Options): Promise<void> {
  await requireClient(server).request(
    { method: "tasks/cancel", params: { taskId } } as never,
    anyResult,
    options,
  );
}
