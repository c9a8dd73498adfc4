// One tool call's life: the approval rule, then an attempt (tool-attempt.ts), then its outcome
// (call-outcome.ts); a suspension goes on in suspension.ts.
import {
  callIdOf,
  error,
  isContextFree,
  pendingOf,
  type Request,
  randomId,
  type Tool,
  type ToolCall,
  type ToolResult,
} from "@toolnexus/core";
import { final, type Settled } from "./call-outcome.js";
import { CallContext } from "./call-signal.js";
import { messageOf } from "./errors.js";
import {
  askRequest,
  type Decided,
  decide,
  decisionOf,
  deniedResult,
  type PolicyRecord,
  policyActor,
  withPolicy,
} from "./policy.js";
import type { Run } from "./run-state.js";
import { suspend } from "./suspension.js";
import { attempt, checked, noRun } from "./tool-attempt.js";

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
    run.config.policies.length === 0 &&
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

function settleDirect(run: Run, call: ToolCall, tool: Tool, messageId: string): Promise<Settled> {
  // Nothing can stop this call, so its context is only for the tool to read: none is built
  // for a tool that never reads it (about a tenth of a one-call run's time).
  const ctx = isContextFree(tool.execute)
    ? undefined
    : run.fill(
        new CallContext(messageId, callIdOf(call), run.runId, run.attemptOf(call)),
        undefined,
      );
  const started = performance.now();
  // Not an async function: the tool's promise is followed with `then`, which costs less than an
  // async function's frame per call. Whatever execute gives or throws is made a promise first,
  // so every outcome arrives later, as `await` would have it.
  let running: Promise<unknown>;
  try {
    // Promise.resolve gives a native promise back as it is, and adopts anything else (a plain
    // value, a thenable, a Promise subclass) in a job, as `await` would: a `then` that throws
    // or a subclass that cannot be built becomes a rejection, not a throw here.
    running = Promise.resolve(tool.execute(call.args, ctx));
  } catch (thrown) {
    running = Promise.reject(thrown);
  }
  return running.then(
    (value) => directOutcome(run, call, tool, messageId, started, resultOf(tool, value)),
    (thrown: unknown) =>
      directOutcome(run, call, tool, messageId, started, error(messageOf(thrown))),
  );
}

/** What a tool resolved to, as a result; a value even the check cannot read is an error too. */
function resultOf(tool: Tool, value: unknown): ToolResult {
  try {
    return checked(tool, value);
  } catch (thrown) {
    return error(messageOf(thrown));
  }
}

/** A direct call's result, timed from `started`: final, or a suspension. */
function directOutcome(
  run: Run,
  call: ToolCall,
  tool: Tool,
  messageId: string,
  started: number,
  result: ToolResult,
): Settled | Promise<Settled> {
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
  const { policies } = run.config;
  const decided =
    policies.length === 0
      ? undefined
      : await decide(policies, tool, call, {
          requester: run.requester,
          extra: run.extra,
          runId: run.runId,
          sessionId: run.sessionId,
          agent: run.config.agent,
        });
  if (decided !== undefined) return settleDecided(run, call, tool, messageId, decided);
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

/** A call a policy decided on: denied (the model reads why), asked for approval, or allowed. */
async function settleDecided(
  run: Run,
  call: ToolCall,
  tool: Tool,
  messageId: string,
  { policy, decision }: Decided,
): Promise<Settled> {
  if (decision.decision === "deny") {
    const result = deniedResult(policy, decision.reason);
    run.decisions.push(decisionOf(call, tool, result.metadata!.policy as PolicyRecord));
    return final(run, call, tool, call.args, messageId, noRun(result, call.args));
  }
  if (decision.decision === "ask") {
    const request = askRequest(policy, decision, approvalPrompt(tool, call), run.requester);
    const rules = decision.waitRules ?? tool.waitRules;
    return suspend(run, call, tool, call.args, messageId, request, true, undefined, 1, rules);
  }
  const first = await attempt(run, tool, call, call.args, messageId, undefined, false);
  const request = pendingOf(first.result);
  if (request !== undefined) {
    return suspend(run, call, tool, first.args, messageId, request, false, first);
  }
  const record: PolicyRecord = { name: policy, decision: "allow", by: policyActor(policy) };
  run.decisions.push(decisionOf(call, tool, record));
  return final(run, call, tool, first.args, messageId, {
    ...first,
    result: withPolicy(first.result, record),
  });
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
    !run.stoppable &&
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
