// The one way a served tool runs, however its call came: a plain `tools/call` of either protocol
// era, a later round of one (from the signed requestState or a durable run), or a Task and its
// `tasks/update`. Each step checks the arguments against the size limits, asks the tool's
// approval before it first runs, applies the person's answer, caps the questions in a row, and
// scrubs the question it raises. Nothing a tool or its approval rule throws escapes it: a throw
// becomes an error result, which goes out scrubbed like every result.
import {
  type Answer,
  error,
  pendingOf,
  type Request,
  randomId,
  resumeStateOf,
  type Scrubber,
  type Tool,
  type ToolContext,
  type ToolResult,
  thrownError,
} from "@toolnexus/core";
import { type CallChannel, runTool } from "./run-tool.js";
import type { Suspension } from "./suspension.js";

/** What every step of every call is held to (built once per served toolkit). */
export interface StepRules {
  scrub: Scrubber;
  /** Largest `arguments`, as JSON, in bytes. */
  maxArgumentBytes: number;
  /** Most array elements plus object members in `arguments`. */
  maxArgumentElements: number;
  /** Most questions one call may ask in a row, whatever its tool's `maxSuspensions`. */
  maxRounds: number;
}

/** How a step ends: the call's result, or a question for the person (scrubbed). */
export type Outcome = { done: ToolResult } | { suspend: Suspension };

/** Where a step starts: a new call, or the person's answer to the call's last question. */
export type StepFrom = { callId: string } | { suspension: Suspension; answer: Answer };

/** What one step runs with: the MCP side of the call, its time budget, its durable run if any. */
export interface StepRun {
  channel: CallChannel;
  budgetMs: number;
  runId?: string;
}

/** Counts array elements and object members, stopping past `limit`. */
function elementsOver(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null) continue;
    const children = Array.isArray(item) ? item : Object.values(item);
    count += children.length;
    if (count > limit) return true;
    stack.push(...children);
  }
  return false;
}

function tooLarge(args: Record<string, unknown>, rules: StepRules): boolean {
  return (
    JSON.stringify(args).length > rules.maxArgumentBytes ||
    elementsOver(args, rules.maxArgumentElements)
  );
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message || thrown.name : String(thrown);
}

function approvalPrompt(tool: Tool, args: Record<string, unknown>): string {
  try {
    const prompt = tool.approvalPrompt?.(args);
    if (typeof prompt === "string" && prompt.trim() !== "") return prompt;
  } catch {
    // A throwing prompt falls back to the default, as in the client loop.
  }
  return `Allow ${tool.name} to run with ${JSON.stringify(args)}?`;
}

/** True when the tool must be approved first; a rule that throws asks too, as in the client loop. */
async function needsApproval(
  tool: Tool,
  args: Record<string, unknown>,
  callId: string,
  run: StepRun,
): Promise<boolean> {
  const rule = tool.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  const ctx: ToolContext = {
    callId,
    attempt: 1,
    signal: run.channel.signal,
    extra: { mcp: run.channel.caller },
  };
  if (run.channel.sessionId !== undefined) ctx.sessionId = run.channel.sessionId;
  if (run.runId !== undefined) ctx.runId = run.runId;
  try {
    return (await rule(args, ctx)) === true;
  } catch {
    // A broken approval rule must not let the tool run unchecked (and what it threw, which may
    // quote a secret, is not sent anywhere).
    return true;
  }
}

function refusal(answer: Answer, request: Request): ToolResult {
  return error(`${answer.reason ?? "declined"}: ${request.prompt}`);
}

/**
 * Takes one step of a call of `tool` with `args`: from a new call (its approval first, when the
 * tool needs one) or from the person's answer to its question. Resolves to the call's result or
 * to its next question; never rejects.
 */
export async function step(
  rules: StepRules,
  tool: Tool,
  args: Record<string, unknown>,
  from: StepFrom,
  run: StepRun,
): Promise<Outcome> {
  let outcome: Outcome;
  try {
    if (tooLarge(args, rules)) {
      return { done: error(`the arguments of ${tool.name} are larger than this server accepts`) };
    }
    outcome =
      "answer" in from
        ? await resume(rules, tool, args, from, run)
        : await begin(rules, tool, args, from.callId, run);
  } catch (thrown) {
    return { done: thrownError(thrown, `${tool.name} failed: ${messageOf(thrown)}`) };
  }
  if ("done" in outcome) return outcome;
  // The question goes to the client (and, signed but readable, into its requestState).
  return { suspend: { ...outcome.suspend, request: rules.scrub.deep(outcome.suspend.request) } };
}

async function begin(
  rules: StepRules,
  tool: Tool,
  args: Record<string, unknown>,
  callId: string,
  run: StepRun,
): Promise<Outcome> {
  if (await needsApproval(tool, args, callId, run)) {
    const request: Request = {
      id: randomId("apr"),
      kind: "approval",
      prompt: approvalPrompt(tool, args),
    };
    return { suspend: { request, approval: true, round: 0, callId } };
  }
  return after(rules, tool, await execute(tool, args, callId, run), 0, callId);
}

/** Applies the person's answer to the call's question and runs the tool again (or not). */
async function resume(
  rules: StepRules,
  tool: Tool,
  args: Record<string, unknown>,
  { suspension: s, answer }: { suspension: Suspension; answer: Answer },
  run: StepRun,
): Promise<Outcome> {
  const expired = s.request.expiresAt !== undefined && Date.parse(s.request.expiresAt) < Date.now();
  const given: Answer = expired ? { id: s.request.id, ok: false, reason: "expired" } : answer;
  if (s.approval) {
    if (!given.ok) return { done: refusal(given, s.request) };
    return after(rules, tool, await execute(tool, args, s.callId, run), 0, s.callId);
  }
  if (!given.ok && tool.handlesRefusals !== true) return { done: refusal(given, s.request) };
  return after(
    rules,
    tool,
    await execute(tool, args, s.callId, run, given, s.state),
    s.round,
    s.callId,
  );
}

function execute(
  tool: Tool,
  args: Record<string, unknown>,
  callId: string,
  run: StepRun,
  answer?: Answer,
  resumeState?: unknown,
): Promise<ToolResult> {
  return runTool(tool, args, run.channel, {
    callId,
    budgetMs: run.budgetMs,
    ...(run.runId === undefined ? {} : { runId: run.runId }),
    ...(answer === undefined ? {} : { answer }),
    ...(resumeState === undefined ? {} : { resumeState }),
  });
}

/** The result, or the question it raises while the call may still ask one. */
function after(
  rules: StepRules,
  tool: Tool,
  result: ToolResult,
  previous: number,
  callId: string,
): Outcome {
  const request = pendingOf(result);
  if (request === undefined) return { done: result };
  const limit = Math.min(Math.max(tool.maxSuspensions ?? 1, 1), rules.maxRounds);
  if (previous + 1 > limit) return { done: error(`unresolved: ${request.prompt}`) };
  const s: Suspension = { request, approval: false, round: previous + 1, callId };
  const state = resumeStateOf(result);
  if (state !== undefined) s.state = state;
  return { suspend: s };
}
