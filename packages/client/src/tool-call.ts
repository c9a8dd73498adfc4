// One tool call's life: the approval rule, `beforeTool`, the tool itself within its budget,
// `afterTool`, and the record. A suspension goes on in suspension.ts.
import {
  type Answer,
  addUsage,
  callIdOf,
  error,
  isToolResult,
  pendingOf,
  type Request,
  randomId,
  type Tool,
  type ToolCall,
  type ToolResult,
  type Usage,
} from "@toolnexus/core";
import { smallest, timeoutReason } from "./budget.js";
import { CallContext, stopCall } from "./call-signal.js";
import { messageOf } from "./errors.js";
import { type ToolTraceInfo, thrownResult, withThrown } from "./instrumentation.js";
import type { Run, Settled } from "./run.js";
import { suspend } from "./suspension.js";
import type { Hooks, ToolCallRecord } from "./types.js";

/** One attempt at running a tool: its result and, for the record, how it went. */
export interface Attempt {
  result: ToolResult;
  args: Record<string, unknown>;
  timedOut: boolean;
  durationMs: number;
}

export const CANCELLED = Symbol("cancelled");

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without output/isError" : `a ${typeof value}`;
}

/** An attempt that never ran the tool (bad arguments, unknown tool, a hook's own result). */
export function noRun(result: ToolResult, args: Record<string, unknown>): Attempt {
  return { result, args, timedOut: false, durationMs: 0 };
}

/**
 * Run one call of a turn to its end: a result, or a suspension resolved or halted. The
 * common call (no approval rule, no beforeTool hook, no budget, no run signal) goes through
 * one small async frame; every other call through the general path.
 */
export function settleCall(
  run: Run,
  call: ToolCall,
  messageId: string,
): Settled | Promise<Settled> {
  if (run.listening) {
    run.emit({ type: "tool_call", call, messageId, ctx: run.context(call, messageId) });
  }
  if (call.argsError !== undefined) {
    const result = error(`invalid arguments for ${call.name}: ${call.argsError}`);
    return final(run, call, undefined, call.args, messageId, noRun(result, call.args));
  }
  const tool = run.config.tools.get(call.name);
  if (tool === undefined) {
    const result = error(`unknown tool: ${call.name}`);
    return final(run, call, undefined, call.args, messageId, noRun(result, call.args));
  }
  if (
    tool.needsApproval === undefined &&
    run.config.hooks.beforeTool === undefined &&
    unstoppable(run, tool)
  ) {
    return settleDirect(run, call, tool, messageId);
  }
  return settleGeneral(run, call, tool, messageId);
}

/**
 * A call past the turn's `maxToolCallsPerTurn`: not run; the model reads why, and the run goes
 * on with the calls that fit.
 */
export function refuseCall(
  run: Run,
  call: ToolCall,
  messageId: string,
  asked: number,
): Settled | Promise<Settled> {
  if (run.listening) {
    run.emit({ type: "tool_call", call, messageId, ctx: run.context(call, messageId) });
  }
  const limit = run.config.maxToolCallsPerTurn;
  const result = error(
    `not run: this turn asked for ${asked} tool calls and at most ${limit} are run per turn (maxToolCallsPerTurn); ask for the rest in a later turn`,
  );
  return final(run, call, undefined, call.args, messageId, noRun(result, call.args));
}

async function settleDirect(
  run: Run,
  call: ToolCall,
  tool: Tool,
  messageId: string,
): Promise<Settled> {
  const ctx = run.fill(
    new CallContext(messageId, callIdOf(call), run.runId, run.attemptOf(call)),
    undefined,
  );
  const started = performance.now();
  let result: ToolResult;
  try {
    result = checked(tool, await tool.execute(call.args, ctx));
  } catch (thrown) {
    result = error(messageOf(thrown));
  }
  const first = {
    result,
    args: call.args,
    timedOut: false,
    durationMs: performance.now() - started,
  };
  const request = pendingOf(result);
  if (request === undefined) return final(run, call, tool, call.args, messageId, first);
  return suspend(run, call, tool, call.args, messageId, request, false, first);
}

async function settleGeneral(
  run: Run,
  call: ToolCall,
  tool: Tool,
  messageId: string,
): Promise<Settled> {
  if (tool.needsApproval !== undefined && (await needsApproval(run, tool, call, messageId))) {
    const request: Request = {
      id: randomId("pnd"),
      kind: "approval",
      prompt: approvalPrompt(tool, call),
    };
    return suspend(run, call, tool, call.args, messageId, request, true, undefined);
  }
  const first = await attempt(run, tool, call, call.args, messageId, undefined, false);
  const request = pendingOf(first.result);
  if (request === undefined) return final(run, call, tool, first.args, messageId, first);
  return suspend(run, call, tool, first.args, messageId, request, false, first);
}

/** The tool's own approval prompt when it has one that works, else the arguments as JSON. */
function approvalPrompt(tool: Tool, call: ToolCall): string {
  if (tool.approvalPrompt !== undefined) {
    try {
      const prompt = tool.approvalPrompt(call.args);
      if (typeof prompt === "string" && prompt.trim() !== "") return prompt;
    } catch {
      // A broken prompt must not keep the human from being asked: fall back to the default.
    }
  }
  return `Allow ${tool.name} to run with ${call.rawArgs || JSON.stringify(call.args)}?`;
}

/** True when no budget and no run signal can stop a call of this tool. */
function unstoppable(run: Run, tool: Tool): boolean {
  return (
    run.signal === undefined &&
    run.trace === undefined &&
    tool.timeoutMs === undefined &&
    run.config.toolTimeoutMs === undefined &&
    run.config.timeoutMs === undefined
  );
}

async function needsApproval(
  run: Run,
  tool: Tool,
  call: ToolCall,
  messageId: string,
): Promise<boolean> {
  const rule = tool.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  try {
    return (await rule(call.args, run.context(call, messageId))) === true;
  } catch {
    // A broken approval rule must not let the tool run unchecked.
    return true;
  }
}

/**
 * `beforeTool`, then the tool itself within its budget. `again` marks the re-execution after a
 * suspension: it runs exactly the arguments that were checkpointed, so the hook may answer or
 * suspend but its argument rewrite (already applied the first time) is not applied twice.
 */
export function attempt(
  run: Run,
  tool: Tool,
  call: ToolCall,
  args: Record<string, unknown>,
  messageId: string,
  answer: Answer | undefined,
  again: boolean,
  state?: unknown,
): Promise<Attempt> {
  const ctx = run.fill(
    new CallContext(messageId, callIdOf(call), run.runId, run.attemptOf(call)),
    answer,
    state,
  );
  const { beforeTool } = run.config.hooks;
  if (beforeTool === undefined) return execute(run, tool, call, args, ctx);
  return hookedAttempt(run, beforeTool, tool, call, args, ctx, again);
}

/** `beforeTool` may rewrite the arguments, answer in the tool's place, or let it run. */
async function hookedAttempt(
  run: Run,
  beforeTool: NonNullable<Hooks["beforeTool"]>,
  tool: Tool,
  call: ToolCall,
  givenArgs: Record<string, unknown>,
  ctx: CallContext,
  again: boolean,
): Promise<Attempt> {
  let args = givenArgs;
  let decision: unknown;
  try {
    decision = await beforeTool({ call, tool, args, ctx });
  } catch (thrown) {
    return noRun(error(`beforeTool hook failed: ${messageOf(thrown)}`), args);
  }
  if (isToolResult(decision)) return noRun(decision, args);
  if (typeof decision === "object" && decision !== null) {
    const { result, args: rewritten } = decision as { result?: unknown; args?: unknown };
    if (isToolResult(result)) return noRun(result, args);
    if (!again && typeof rewritten === "object" && rewritten !== null) {
      args = rewritten as Record<string, unknown>;
    }
  }
  return execute(run, tool, call, args, ctx);
}

/**
 * Run the tool with its budget enforced: at the deadline the result is a timeout, whatever
 * the tool does. Not async itself: a call that nothing can stop takes a small async frame,
 * and only a call with a budget or a run signal pays for the race.
 */
function execute(
  run: Run,
  tool: Tool,
  call: ToolCall,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<Attempt> {
  const { trace } = run;
  if (trace === undefined) return budgeted(run, tool, args, ctx);
  const info: ToolTraceInfo = {
    call,
    tool: tool.name,
    messageId: ctx.messageId,
    args,
    attempt: ctx.attempt,
  };
  if (ctx.answer !== undefined) info.answer = ctx.answer;
  return trace.tool(info, () =>
    budgeted(run, tool, args, ctx).then(withThrown),
  ) as Promise<Attempt>;
}

function budgeted(
  run: Run,
  tool: Tool,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<Attempt> {
  if (run.signal?.aborted) return Promise.reject(run.cancelled());
  const left = run.clock.remaining();
  const raw = smallest(
    tool.timeoutMs,
    run.config.toolTimeoutMs,
    left === undefined ? undefined : Math.max(0, left),
  );
  const budget = raw === undefined ? undefined : Math.max(0, Math.round(raw));
  if (budget === undefined && run.signal === undefined) return unbounded(tool, args, ctx);
  return bounded(run, tool, args, ctx, budget, left);
}

async function bounded(
  run: Run,
  tool: Tool,
  args: Record<string, unknown>,
  ctx: CallContext,
  budget: number | undefined,
  left: number | undefined,
): Promise<Attempt> {
  if (budget !== undefined) ctx.timeout = budget;
  const started = performance.now();
  const work = invoke(tool, args, ctx);

  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlink: (() => void) | undefined;
  const { signal } = run;
  const stop = new Promise<"timeout" | typeof CANCELLED>((resolve) => {
    if (budget !== undefined) {
      timer = setTimeout(() => {
        stopCall(ctx, timeoutReason(budget));
        resolve("timeout");
      }, budget);
    }
    if (signal !== undefined) {
      const onAbort = () => {
        stopCall(ctx, signal.reason);
        resolve(CANCELLED);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      unlink = () => signal.removeEventListener("abort", onAbort);
    }
  });
  try {
    const winner = await Promise.race([work, stop]);
    const durationMs = performance.now() - started;
    if (winner === CANCELLED) throw run.cancelled();
    if (winner === "timeout") {
      if (left !== undefined && budget === Math.max(0, Math.round(left))) run.outOfTime = true;
      // The tool may still finish later; its result is dropped.
      return { result: error(`timed out after ${budget}ms`), args, timedOut: true, durationMs };
    }
    return { result: winner, args, timedOut: false, durationMs };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    unlink?.();
  }
}

/** A call's final result: through `afterTool`, into the record and the transcript. */
export function final(
  run: Run,
  call: ToolCall,
  tool: Tool | undefined,
  args: Record<string, unknown>,
  messageId: string,
  attempt: Attempt,
): Settled | Promise<Settled> {
  // A sub-agent's tokens are the parent run's too.
  if (tool?.source === "agent") rollUp(run, attempt.result);
  const { afterTool } = run.config.hooks;
  if (afterTool === undefined) return settled(run, call, args, attempt.result, attempt);
  return afterToolHook(run, afterTool, call, tool, args, messageId, attempt);
}

export function rollUp(run: Run, result: ToolResult): void {
  const usage = result.metadata?.usage as Usage | undefined;
  if (typeof usage?.totalTokens !== "number" || typeof usage.promptTokens !== "number") return;
  run.usage = addUsage(run.usage, usage);
  if (run.listening) run.emit({ type: "usage", usage, total: run.usage });
}

/** `afterTool` may replace the result; a throw becomes an error result. */
async function afterToolHook(
  run: Run,
  afterTool: NonNullable<Hooks["afterTool"]>,
  call: ToolCall,
  tool: Tool | undefined,
  args: Record<string, unknown>,
  messageId: string,
  attempt: Attempt,
): Promise<Settled> {
  let result = attempt.result;
  try {
    const replaced = await afterTool({
      call,
      tool,
      args,
      result,
      ctx: run.context(call, messageId),
    });
    if (isToolResult(replaced)) result = replaced;
  } catch (thrown) {
    result = error(`afterTool hook failed: ${messageOf(thrown)}`);
  }
  return settled(run, call, args, result, attempt);
}

/** Records the call's final result and makes its tool message. */
function settled(
  run: Run,
  call: ToolCall,
  args: Record<string, unknown>,
  result: ToolResult,
  attempt: Attempt,
): Settled {
  const record = recordCall(run, call, args, result, result.isError ? "error" : "ok", attempt);
  return {
    message: {
      role: "tool",
      callId: call.id,
      name: call.name,
      content: result.output,
      isError: result.isError,
    },
    record,
  };
}

export function recordCall(
  run: Run,
  call: ToolCall,
  args: Record<string, unknown>,
  result: ToolResult,
  status: ToolCallRecord["status"],
  attempt: Attempt | undefined,
): ToolCallRecord {
  const record: ToolCallRecord = {
    id: call.id,
    name: call.name,
    args,
    result,
    status,
    timedOut: attempt?.timedOut ?? false,
    durationMs: attempt?.durationMs ?? 0,
  };
  if (run.journal !== undefined) record.attempt = run.attemptOf(call);
  run.records.push(record);
  if (run.listening) {
    run.emit({
      type: "tool_result",
      call,
      record,
      isError: status === "error",
      pending: status === "pending",
    });
  }
  return record;
}

/** A call nothing can stop: await the tool, without racing it. */
async function unbounded(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<Attempt> {
  const started = performance.now();
  const result = await invoke(tool, args, ctx);
  return { result, args, timedOut: false, durationMs: performance.now() - started };
}

/** Calls the tool; a throw, a rejection or a value that is not a ToolResult becomes an error result. */
async function invoke(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<ToolResult> {
  try {
    return checked(tool, await tool.execute(args, ctx));
  } catch (thrown) {
    return thrownResult(thrown, messageOf(thrown));
  }
}

/** A tool's return value, or an error result when it is not a ToolResult. */
function checked(tool: Tool, value: unknown): ToolResult {
  return isToolResult(value)
    ? value
    : error(`tool ${tool.name} returned ${describe(value)} instead of a ToolResult`);
}
