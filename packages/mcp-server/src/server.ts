// The MCP server of a list of toolnexus tools: one factory, used per HTTP request (2026),
// per legacy session (2025 over HTTP) and per stdio connection.

import { randomBytes } from "node:crypto";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  fromJsonSchema,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
  type McpServerFactory,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { error, Scrubber, type Tool, type ToolResult } from "@toolnexus/core";
import { type CallSetup, callRound, type RoundEnd } from "./call.js";
import { DurableRounds } from "./durable.js";
import type { ElicitReply } from "./elicitation.js";
import { DEFAULTS, type McpCaller, type McpServeOptions } from "./options.js";
import type { StepRules } from "./step.js";
import { type RoundState, roundStateOf } from "./suspension.js";
import { TASKS_EXTENSION, TaskTable } from "./tasks.js";

/** The tools `options` serves, by name (the `expose` filter applied). */
export function servedTools(options: McpServeOptions): Map<string, Tool> {
  const only = options.expose === undefined ? undefined : new Set(options.expose);
  const tools = new Map<string, Tool>();
  for (const tool of options.tools) {
    if (only !== undefined && !only.has(tool.name)) continue;
    if (tools.has(tool.name)) throw new TypeError(`two tools are named ${tool.name}`);
    tools.set(tool.name, tool);
  }
  return tools;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function callerOf(ctx: ServerContext, server: McpServer): McpCaller {
  const caller: McpCaller = {};
  const auth = ctx.http?.authInfo;
  // Identity only: the token itself never reaches a tool.
  if (auth?.clientId !== undefined) caller.clientId = auth.clientId;
  if (auth?.scopes !== undefined) caller.scopes = [...auth.scopes];
  if (ctx.sessionId !== undefined) caller.sessionId = ctx.sessionId;
  const info = server.server.getClientVersion();
  if (info !== undefined) caller.client = { name: info.name, version: info.version };
  return caller;
}

/** The capabilities the client declared: on the 2026 request, or at the 2025 initialize. */
function clientCapabilities(ctx: ServerContext, server: McpServer): unknown {
  return (
    ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] ??
    server.server.getClientCapabilities()
  );
}

const byTask = fromJsonSchema<{ taskId: string }>({
  type: "object",
  properties: { taskId: { type: "string", maxLength: 200 } },
  required: ["taskId"],
});

/** The Tasks extension's requests, for the tasks of `table`. */
function serveTasks(server: McpServer, table: TaskTable): void {
  const unknown = () => new ProtocolError(ProtocolErrorCode.InvalidParams, "unknown task");
  // A client that did not declare the extension has no tasks to ask about (-32021).
  const negotiated = (ctx: ServerContext) => {
    const capabilities = clientCapabilities(ctx, server);
    const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
    if (isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined) return;
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      "tasks need the client to declare the tasks extension",
    );
  };
  const low = server.server;
  low.setRequestHandler("tasks/get", { params: byTask }, async ({ taskId }, ctx) => {
    negotiated(ctx);
    const view = table.get(String(taskId), callerOf(ctx, server).clientId ?? "");
    if (view === undefined) throw unknown();
    return { resultType: "complete", ...view } as never;
  });
  low.setRequestHandler("tasks/update", { params: byTask }, async ({ taskId }, ctx) => {
    negotiated(ctx);
    const caller = callerOf(ctx, server);
    const reply = (key: string) => inputResponse(ctx.mcpReq.inputResponses, key) as ElicitReply;
    if (!table.update(String(taskId), caller.clientId ?? "", reply, caller)) throw unknown();
    return { resultType: "complete" } as never;
  });
  low.setRequestHandler("tasks/cancel", { params: byTask }, async ({ taskId }, ctx) => {
    negotiated(ctx);
    if (!table.cancel(String(taskId), callerOf(ctx, server).clientId ?? "")) throw unknown();
    return { resultType: "complete" } as never;
  });
}

/** Text for the client: secrets scrubbed, cut at the limit. */
function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[cut: the result was ${text.length} characters, the limit is ${maxChars}]`;
}

type Content = CallToolResult["content"][number];

/** A result's content parts beyond its text (`ToolResult.parts`: images, resources) as MCP content. */
function partsOf(result: ToolResult, scrub: Scrubber, maxChars: number): Content[] {
  const parts = (result as { parts?: unknown }).parts;
  if (!Array.isArray(parts)) return [];
  const content: Content[] = [];
  for (const part of parts as Record<string, unknown>[]) {
    if (!isObject(part)) continue;
    if (part.type === "text" && typeof part.text === "string") {
      content.push({ type: "text", text: cut(scrub.text(part.text), maxChars) });
    } else if (
      part.type === "image" &&
      typeof part.data === "string" &&
      typeof part.mimeType === "string"
    ) {
      content.push({ type: "image", data: part.data, mimeType: scrub.text(part.mimeType) });
    } else if (part.type === "resource" && typeof part.uri === "string") {
      // A resource's address may carry a key (`?api_key=…`): scrubbed like its text.
      const uri = scrub.text(part.uri);
      const resource: Record<string, unknown> = { uri };
      if (typeof part.mimeType === "string") resource.mimeType = scrub.text(part.mimeType);
      // A resource without text is sent as a link to it.
      if (typeof part.text === "string") {
        resource.text = cut(scrub.text(part.text), maxChars);
        content.push({ type: "resource", resource } as Content);
      } else {
        content.push({ type: "resource_link", name: uri, ...resource } as Content);
      }
    }
  }
  return content;
}

/**
 * A tool's input schema for the SDK: arguments are checked against it as the tool gave it, and
 * `tools/list` sends it with the secrets scrubbed (a `default`, an `example`, a description).
 */
function inputSchemaOf(tool: Tool, scrub: Scrubber): ReturnType<typeof fromJsonSchema> {
  const checked = fromJsonSchema(tool.inputSchema as Parameters<typeof fromJsonSchema>[0]);
  if (scrub.empty) return checked;
  const listed = scrub.deep(tool.inputSchema);
  const standard = checked["~standard"];
  return {
    "~standard": { ...standard, jsonSchema: { input: () => listed, output: () => listed } },
  } as ReturnType<typeof fromJsonSchema>;
}

function toCallToolResult(result: ToolResult, scrub: Scrubber, maxChars: number): CallToolResult {
  const parts = partsOf(result, scrub, maxChars);
  const text = cut(scrub.text(result.output), maxChars);
  // With parts, the text goes first only when there is some: the parts may carry it all.
  const content: Content[] =
    parts.length > 0 && text === "" ? parts : [{ type: "text", text }, ...parts];
  return { content, isError: result.isError };
}

/**
 * A factory of MCP servers that serve `options.tools`: give it to the SDK's serving entries
 * (`createMcpHandler`, `serveStdio`) or call it yourself and connect the server to any transport.
 */
export function mcpServerFactory(options: McpServeOptions): McpServerFactory {
  const tools = servedTools(options);
  const scrub = new Scrubber(options.secrets ?? []);
  const codec = createRequestStateCodec<RoundState>({
    key: options.stateKey ?? randomBytes(32),
    ttlSeconds: options.stateTtlSeconds ?? DEFAULTS.stateTtlSeconds,
    // A round's state is good only for the client it was given to.
    bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ""}`,
  });
  const maxArgumentElements = options.maxArgumentElements ?? DEFAULTS.maxArgumentElements;
  // What every step of every call is held to, plain or Task (step.ts).
  const rules: StepRules = {
    scrub,
    maxArgumentBytes: options.maxArgumentBytes ?? DEFAULTS.maxArgumentBytes,
    maxArgumentElements,
    maxRounds: options.maxRounds ?? DEFAULTS.maxRounds,
  };
  const maxOutputChars = options.maxOutputChars ?? DEFAULTS.maxOutputChars;
  const maxConcurrentCalls = options.maxConcurrentCalls ?? DEFAULTS.maxConcurrentCalls;
  // Calls in flight across every server this factory built (one per request or session).
  let running = 0;
  const runs = options.runs === undefined ? undefined : new DurableRounds(options.runs);
  const tasks =
    options.tasks === undefined
      ? undefined
      : new TaskTable(options.tasks, rules, (result) =>
          toCallToolResult(result, scrub, maxOutputChars),
        );
  const schemas = new Map(
    [...tools.values()].map((tool) => [tool.name, inputSchemaOf(tool, scrub)] as const),
  );
  const instructions =
    options.instructions === undefined ? undefined : scrub.text(options.instructions);

  return () => {
    const server = new McpServer(
      { name: options.name ?? DEFAULTS.name, version: options.version ?? DEFAULTS.version },
      {
        capabilities: {
          tools: {},
          ...(tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
        },
        ...(instructions === undefined ? {} : { instructions }),
        maxToolInputElements: maxArgumentElements,
        requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
      },
    );
    for (const tool of tools.values()) {
      server.registerTool(
        tool.name,
        { description: scrub.text(tool.description), inputSchema: schemas.get(tool.name) },
        async (args: unknown, ctx: ServerContext) => {
          const task = startTask(tool, isObject(args) ? args : {}, ctx, server);
          if (task !== undefined) return task as never;
          if (running >= maxConcurrentCalls) {
            return toCallToolResult(
              {
                output: "this server is running as many calls as it allows; try again later",
                isError: true,
              },
              scrub,
              maxOutputChars,
            );
          }
          const started = Date.now();
          running++;
          let end: RoundEnd;
          try {
            end = await serveRound(tool, isObject(args) ? args : {}, ctx, server);
          } catch (thrown) {
            // A round that throws (a run store that fails) would reach the client through the
            // SDK's own error result, unscrubbed: it goes out as an error result of ours.
            const message =
              thrown instanceof Error ? thrown.message || thrown.name : String(thrown);
            end = { kind: "result", result: error(message) };
          } finally {
            running--;
          }
          options.onCall?.({
            name: tool.name,
            source: tool.source,
            ms: Date.now() - started,
            isError: end.kind === "result" && end.result.isError,
            asked: end.kind === "ask",
          });
          return toMcp(end);
        },
      );
    }
    if (tasks !== undefined) serveTasks(server, tasks);
    return server;
  };

  /** A task handle when `tool` runs as a Task for this client, else undefined. */
  function startTask(
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ServerContext,
    server: McpServer,
  ): Record<string, unknown> | undefined {
    if (tasks === undefined || !tasks.tools.has(tool.name)) return undefined;
    const capabilities = clientCapabilities(ctx, server);
    const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
    if (!isObject(extensions) || extensions[TASKS_EXTENSION] === undefined) return undefined;
    const caller = callerOf(ctx, server);
    const view = tasks.start(tool, args, caller.clientId ?? "", caller);
    if (view === undefined) {
      return toCallToolResult(
        { output: "this server runs as many tasks as it allows; try again later", isError: true },
        scrub,
        maxOutputChars,
      );
    }
    options.onCall?.({ name: tool.name, source: tool.source, ms: 0, isError: false, asked: false });
    return { resultType: "task", ...view };
  }

  async function serveRound(
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ServerContext,
    server: McpServer,
  ): Promise<RoundEnd> {
    const raw = ctx.mcpReq.requestState<unknown>();
    const state = raw === undefined ? undefined : roundStateOf(raw);
    if (raw !== undefined && state === undefined) {
      return {
        kind: "result",
        result: { output: "this round's requestState is not this server's", isError: true },
      };
    }
    const token = ctx.mcpReq._meta?.progressToken;
    const notify = ctx.mcpReq.notify;
    const setup: CallSetup = {
      ...rules,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      mint: (payload) => codec.mint(payload, ctx),
      ...(runs === undefined ? {} : { runs }),
    };
    const capabilities = clientCapabilities(ctx, server);
    let sent: Promise<unknown> = Promise.resolve();
    const end = await callRound(setup, tool, args, {
      channel: {
        signal: ctx.mcpReq.signal,
        caller: callerOf(ctx, server),
        ...(ctx.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
        ...(token === undefined
          ? {}
          : {
              progress: (progress: number, total?: number, message?: string) => {
                const params: Record<string, unknown> = { progressToken: token, progress };
                if (total !== undefined) params.total = total;
                if (message !== undefined) params.message = scrub.text(message);
                // Chained, so they go out in order and all before the result.
                sent = sent.then(() =>
                  notify({ method: "notifications/progress", params } as never).catch(() => {}),
                );
              },
            }),
      },
      ...(state === undefined ? {} : { state }),
      modern: ctx.mcpReq.envelope !== undefined,
      reply: (key) => inputResponse(ctx.mcpReq.inputResponses, key) as ElicitReply,
      capabilities,
    });
    await sent;
    return end;
  }

  function toMcp(end: RoundEnd): CallToolResult | InputRequiredResult {
    if (end.kind === "result") return toCallToolResult(end.result, scrub, maxOutputChars);
    const e = end.elicitation;
    const request =
      e.mode === "url"
        ? inputRequired.elicitUrl({ message: e.message, url: e.url })
        : inputRequired.elicit({ message: e.message, requestedSchema: e.requestedSchema as never });
    return inputRequired({
      inputRequests: { [end.key]: request },
      ...(end.kind === "ask" ? { requestState: end.requestState } : {}),
    });
  }
}
