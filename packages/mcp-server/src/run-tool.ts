// Running one toolnexus tool for an MCP request: the call's context from the request (the
// client's cancellation, a time budget, progress notifications, who calls), and a result for
// every way it can end (a throw, a timeout, a cancel), so a tool never takes the server down.
// Only `step` (step.ts) calls it: that is where the limits and the approval are applied first.
import {
  type Answer,
  error,
  isToolResult,
  type Tool,
  type ToolContext,
  type ToolResult,
  thrownError,
} from "@toolnexus/core";
import type { McpCaller } from "./options.js";

/** What the MCP side gives a call: its abort signal and a way to send progress. */
export interface CallChannel {
  signal: AbortSignal;
  /** Set when the request carried a progress token. */
  progress?: (progress: number, total?: number, message?: string) => void;
  caller: McpCaller;
  sessionId?: string;
}

/** What one execution is: which call, which run, and on a re-execution the person's answer. */
export interface Execution {
  callId: string;
  runId?: string;
  answer?: Answer;
  resumeState?: unknown;
  budgetMs: number;
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message || thrown.name : String(thrown);
}

/** Runs `tool` once; resolves to its result, or to an error result when it throws or overruns. */
export async function runTool(
  tool: Tool,
  args: Record<string, unknown>,
  channel: CallChannel,
  execution: Execution,
): Promise<ToolResult> {
  const timer = new AbortController();
  const budget = setTimeout(
    () => timer.abort(new DOMException("the call's time budget ran out", "TimeoutError")),
    execution.budgetMs,
  );
  const signal = AbortSignal.any([channel.signal, timer.signal]);
  const ctx: ToolContext = {
    callId: execution.callId,
    attempt: 1,
    timeout: execution.budgetMs,
    signal,
    extra: { mcp: channel.caller },
  };
  if (channel.sessionId !== undefined) ctx.sessionId = channel.sessionId;
  if (execution.runId !== undefined) ctx.runId = execution.runId;
  if (execution.answer !== undefined) ctx.answer = execution.answer;
  if (execution.resumeState !== undefined) ctx.resumeState = execution.resumeState;
  const report = channel.progress;
  if (report !== undefined) {
    ctx.progress = (update) => {
      if (!signal.aborted) report(update.progress, update.total, update.message);
    };
  }
  // A tool that ignores its signal still gets answered for when the budget or the client ends it.
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<"stopped">((resolve) => {
    onAbort = () => resolve("stopped");
    if (signal.aborted) resolve("stopped");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([
      Promise.resolve().then(() => tool.execute(args, ctx)),
      stopped,
    ]);
    if (outcome === "stopped") return stoppedResult(tool, timer.signal.aborted, execution.budgetMs);
    if (!isToolResult(outcome))
      return error(`${tool.name} returned something that is not a result`);
    return outcome;
  } catch (thrown) {
    if (signal.aborted) return stoppedResult(tool, timer.signal.aborted, execution.budgetMs);
    // Marked as thrown (core's `thrownOf`): a Task reports it as failed, not as a tool's error.
    return thrownError(thrown, `${tool.name} failed: ${messageOf(thrown)}`);
  } finally {
    clearTimeout(budget);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}

function stoppedResult(tool: Tool, timedOut: boolean, budgetMs: number): ToolResult {
  return timedOut
    ? error(`${tool.name} timed out after ${budgetMs} ms`)
    : error(`${tool.name} was cancelled by the client`);
}
