// One attempt at running a tool: `beforeTool`, then the tool itself within its budget (a
// deadline, the run's signal), with a throw or a bad return value turned into an error result.
import {
  type Answer,
  callIdOf,
  error,
  isToolResult,
  jsonCopy,
  type Tool,
  type ToolCall,
  type ToolResult,
} from "@toolnexus/core";
import { smallest, timeoutReason } from "./budget.js";
import { CallContext, stopCall } from "./call-signal.js";
import { copyCall } from "./detached-event.js";
import { messageOf } from "./errors.js";
import { type ToolTraceInfo, thrownResult, withThrown } from "./instrumentation.js";
import type { Run } from "./run-state.js";
import type { Hooks } from "./types.js";

/** One attempt at running a tool: its result and, for the record, how it went. */
export interface Attempt {
  result: ToolResult;
  args: Record<string, unknown>;
  timedOut: boolean;
  durationMs: number;
}

/** What a race against the run's signal resolves to when the run was stopped. */
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
  answeredBy?: string,
): Promise<Attempt> {
  const ctx = run.fill(
    new CallContext(messageId, callIdOf(call), run.runId, run.attemptOf(call)),
    answer,
    state,
    answeredBy,
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
  // The hook's own copies: changing them in place changes what the tool gets (as returning
  // `{ args }` does; not on a re-execution, which runs what was asked), never the transcript.
  const theirs = jsonCopy(givenArgs);
  let args = again ? givenArgs : theirs;
  let decision: unknown;
  try {
    decision = await beforeTool({ call: copyCall(call), tool, args: theirs, ctx });
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
  if (run.aborted) return Promise.reject(run.cancelled());
  const left = run.clock.remaining();
  const raw = smallest(
    tool.timeoutMs,
    run.config.toolTimeoutMs,
    left === undefined ? undefined : Math.max(0, left),
  );
  const budget = raw === undefined ? undefined : Math.max(0, Math.round(raw));
  if (budget === undefined && !run.stoppable) return unbounded(tool, args, ctx);
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
  const stop = new Promise<"timeout" | typeof CANCELLED>((resolve) => {
    if (budget !== undefined) {
      timer = setTimeout(() => {
        stopCall(ctx, timeoutReason(budget));
        resolve("timeout");
      }, budget);
    }
    if (run.stoppable) {
      // Not an abort listener on run.signal: a durable run's signal is made only when read.
      unlink = run.onStop((reason) => {
        stopCall(ctx, reason);
        resolve(CANCELLED);
      });
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

/**
 * A call nothing can stop: await the tool, without racing it. It calls the tool itself, not
 * through {@link invoke}: one async frame fewer per call.
 */
async function unbounded(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<Attempt> {
  const started = performance.now();
  let result: ToolResult;
  try {
    result = checked(tool, await tool.execute(args, ctx));
  } catch (thrown) {
    result = thrownResult(thrown, messageOf(thrown));
  }
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
export function checked(tool: Tool, value: unknown): ToolResult {
  return isToolResult(value)
    ? value
    : error(`tool ${tool.name} returned ${describe(value)} instead of a ToolResult`);
}
