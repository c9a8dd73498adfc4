// One tools/call sent within the call's clocks (idle, reset by progress, and hard), its trace
// context in `_meta`, and what it came to: a result, a 2026 `input_required`, a 2025
// URL-required error (-32042), or a push-style question that halted it (elicit.ts).
import {
  BAGGAGE_META_KEY,
  isInputRequiredResult,
  ProtocolError,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from "@modelcontextprotocol/client";
import { error, type ToolContext, type ToolResult } from "@toolnexus/core";
import { CallState, isTimeout } from "./call-state.js";
import { isObject, messageOf, type ServerConnection as Server } from "./connection.js";
import { type Elicitation, type McpCallResult, toToolResult } from "./mapping.js";
import { capOutput } from "./output-cap.js";
import type { Replayed } from "./state.js";
import { META_KEY, taskOf } from "./task-intercept.js";
import { type McpTask, parseTask } from "./task-wire.js";

/** Longest a timer may be set for; the SDK's own request timeout is set to it (we keep time). */
const FOREVER = 2_147_483_647;

export type InputRequired = { inputRequests?: Record<string, unknown>; requestState?: string };

/** What one tools/call came to. */
export type Outcome =
  | { result: ToolResult }
  | { inputRequired: InputRequired }
  /** A URL-required error (-32042): the links the server wants visited first. */
  | { urlRequired: Elicitation[] }
  /** A push-style question nobody could answer while the call waited. */
  | { halted: { answers: Replayed[]; asking: Elicitation } }
  /** The server made the call a task (Tasks extension): task.ts follows it. */
  | { task: McpTask };

/** Sends one tools/call within the call's clocks. */
export async function send(
  server: Server,
  params: Record<string, unknown>,
  exposed: string,
  args: Record<string, unknown>,
  ctx: ToolContext | undefined,
  idleMs: number,
  hardMs: number,
  replay: Replayed[],
): Promise<Outcome> {
  const tool = params.name as string;
  const meta = { server: server.name, tool };
  const { scrub } = server;
  const client = server.client!;
  const call = new CallState(ctx, exposed, args, idleMs, hardMs, [...replay]);
  server.calls.push(call);
  const halted = (): Outcome => {
    // The answers the replay used before this new question (all of them, normally).
    const used = replay.slice(0, replay.length - call.replay.length);
    return { halted: { answers: used, asking: call.suspendWith! } };
  };
  const carrier = traceMeta(ctx);
  const sent = carrier === undefined ? params : { ...params, _meta: carrier };
  try {
    const result = (await client.callTool(sent as never, {
      signal: call.signal,
      timeout: FOREVER,
      allowInputRequired: true,
      onprogress: (progress) => {
        call.resetIdle();
        const update: { progress: number; total?: number; message?: string } = {
          progress: progress.progress,
        };
        if (typeof progress.total === "number") update.total = progress.total;
        if (typeof progress.message === "string") update.message = scrub.text(progress.message);
        ctx?.progress?.(update);
      },
    })) as unknown;
    if (call.suspendWith !== undefined) return halted();
    if (isInputRequiredResult(result)) {
      const r = result as InputRequired;
      const handle = taskOf(r.requestState);
      if (handle !== undefined) return { task: parseTask(scrub.deep(handle)) };
      const out: InputRequired = {};
      if (r.inputRequests !== undefined) out.inputRequests = r.inputRequests;
      if (r.requestState !== undefined) out.requestState = r.requestState;
      return { inputRequired: out };
    }
    const legacy = taskOf((result as { _meta?: Record<string, unknown> })._meta?.[META_KEY]);
    if (legacy !== undefined) return { task: parseTask(scrub.deep(legacy)) };
    // Everything the server says is scrubbed, not only its errors: any text may echo a secret.
    // Scrubbed before the output is cut too: a cut through a secret would leave a fragment.
    const scrubbed = scrub.deep(result as McpCallResult);
    return { result: scrub.deep(toToolResult(scrubbed, meta, server.limits.maxOutputChars)) };
  } catch (thrown) {
    if (call.suspendWith !== undefined) return halted();
    if (call.timedOut !== undefined) {
      return {
        result: error(`MCP server ${server.name}: ${tool} ${call.timedOut}`, {
          ...meta,
          timedOut: true,
        }),
      };
    }
    if (ctx?.signal?.aborted) {
      // The caller's budget ran out (the client loop records it as timed out) or it cancelled.
      const timedOut = isTimeout(ctx.signal);
      return {
        result: error(
          `MCP server ${server.name}: ${tool} ${timedOut ? "timed out" : "was cancelled"}`,
          timedOut ? { ...meta, timedOut: true } : { ...meta, cancelled: true },
        ),
      };
    }
    // A 2025 server needs the human at a link first (-32042): that is a suspension too.
    if (thrown instanceof ProtocolError && thrown.code === -32042) {
      const list = (thrown.data as { elicitations?: unknown } | undefined)?.elicitations;
      const links = (Array.isArray(list) ? list : [])
        .filter(isObject)
        .map((e) => scrub.deep({ ...(e as Elicitation), mode: "url" }));
      if (links.length > 0) return { urlRequired: links };
    }
    // A JSON-RPC error's message is the server's text too, as long as it likes: cut like output.
    const why = scrub.text(`MCP server ${server.name}: ${tool} failed: ${messageOf(thrown)}`);
    return { result: error(capOutput(why, server.limits.maxOutputChars).text, meta) };
  } finally {
    call.end();
    server.calls.splice(server.calls.indexOf(call), 1);
  }
}

/** The trace context for `_meta`, when the run's instrumentation provides one. */
function traceMeta(ctx: ToolContext | undefined): Record<string, string> | undefined {
  const carrier = ctx?.traceCarrier?.();
  if (carrier === undefined) return undefined;
  const meta: Record<string, string> = {};
  for (const key of [TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY]) {
    const value = carrier[key];
    if (typeof value === "string" && value !== "") meta[key] = value;
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}
