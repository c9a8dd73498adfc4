// Suspensions: a call that needs a human either waits in-process (`waitFor`) or is marked for
// a durable halt; after the answer, the same call runs again with `ctx.answer`.
import {
  type Answer,
  copyWireData,
  error,
  type PendingCall,
  parseAnswer,
  pendingOf,
  type Request,
  type RequestTimer,
  resumeStateOf,
  type Tool,
  type ToolCall,
  type ToolMessage,
  timersOf,
  type WaitRules,
} from "@toolnexus/core";
import { smallest } from "./budget.js";
import { final, recordCall, type Settled } from "./call-outcome.js";
import { messageOf } from "./errors.js";
import { fingerprint, schemaFingerprint } from "./fingerprint.js";
import { approvedRecord, decisionOf, nextApproval, withPolicy } from "./policy.js";
import type { Run } from "./run-state.js";
import { type Attempt, attempt, CANCELLED, noRun } from "./tool-attempt.js";

export function isExpired(deadline: string | undefined): boolean {
  return deadline !== undefined && Date.parse(deadline) <= Date.now();
}

/**
 * A suspension: ask `waitFor` in-process, or mark the call for a durable halt. `round` counts
 * the tool's own suspensions of this call (bounded by its `maxSuspensions`).
 */
export async function suspend(
  run: Run,
  call: ToolCall,
  tool: Tool,
  args: Record<string, unknown>,
  messageId: string,
  request: Request,
  approval: boolean,
  first: Attempt | undefined,
  round = 1,
  rules: WaitRules | undefined = tool.waitRules,
): Promise<Settled> {
  const state = first === undefined ? undefined : resumeStateOf(first.result);
  if (run.listening) run.emit({ type: "pending", call, request });
  run.trace?.suspended({ call, request });
  if (run.config.waitFor === undefined) {
    const refused = unstorable(request, args, state);
    if (refused !== undefined) {
      return final(run, call, tool, args, messageId, noRun(error(refused), args));
    }
    let timers: RequestTimer[];
    try {
      timers = timersOf(rules, Date.now());
    } catch (thrown) {
      const problem = `cannot halt for a human: ${messageOf(thrown)}`;
      return final(run, call, tool, args, messageId, noRun(error(problem), args));
    }
    // The placeholder the model sees until the answer comes is the prompt, never a url.
    const message: ToolMessage = {
      role: "tool",
      callId: call.id,
      name: call.name,
      content: request.prompt,
      isError: true,
    };
    const record = recordCall(
      run,
      call,
      args,
      first?.result ?? error(request.prompt, { pending: request }),
      "pending",
      first,
    );
    const deadline = deadlineOf(run, request);
    const pending: Omit<PendingCall, "slot"> = {
      request,
      callId: call.id,
      tool: tool.name,
      args,
      fingerprint: fingerprint(tool.name, args),
      // What the call was made against, so a release that changed the tool can tell.
      schema: schemaFingerprint(tool.inputSchema),
      approval,
    };
    if (deadline !== undefined) pending.deadline = deadline;
    if (state !== undefined) pending.state = state;
    if (round > 1) pending.round = round;
    if (rules !== undefined) pending.waitRules = rulesCopy(rules);
    if (timers.length > 0) pending.timers = timers;
    return { message, record, pending };
  }
  const answer = await wait(run, call, tool, request, rules);
  if (!("ok" in answer)) {
    return final(run, call, tool, args, messageId, noRun(error(answer.problem), args));
  }
  return afterAnswer(
    run,
    call,
    tool,
    args,
    messageId,
    request,
    approval,
    answer,
    state,
    round,
    rules,
  );
}

/** The answers `expiryAnswer` made up because a person's time ran out (never a person's answer). */
const expiries = new WeakSet<object>();

/** The rules as plain JSON for the checkpoint (only the fields toolnexus reads). */
function rulesCopy(rules: WaitRules): WaitRules {
  const copy: WaitRules = {};
  if (rules.remindAfterMs !== undefined) copy.remindAfterMs = [...rules.remindAfterMs];
  if (rules.escalate !== undefined) {
    copy.escalate = { afterMs: rules.escalate.afterMs, to: rules.escalate.to };
  }
  if (rules.onExpiry !== undefined) copy.onExpiry = expiryAnswer("", rules);
  return copy;
}

/**
 * What an expired request resolves to: the rules' `onExpiry` (only its `ok`, `data` and a
 * not-ok `reason` are kept), else `{ ok: false, reason: "expired" }`.
 */
export function expiryAnswer(id: string, rules: WaitRules | undefined): Answer {
  const given = rules?.onExpiry;
  if (given === undefined || typeof given.ok !== "boolean") {
    return { id, ok: false, reason: "expired" };
  }
  const answer: Answer = { id, ok: given.ok };
  if (given.data !== undefined) answer.data = given.data;
  if (!given.ok) answer.reason = given.reason ?? "expired";
  expiries.add(answer);
  return answer;
}

/**
 * Why a halt could not be stored, or undefined: a halted call's request, arguments and state
 * are kept as JSON, so a BigInt, a cycle or a 5,000-deep nest there (put by a tool or a
 * `beforeTool` rewrite) becomes an error result the model reads, not a store crash.
 */
function unstorable(request: Request, args: unknown, state: unknown): string | undefined {
  for (const [path, value] of [
    ["request", request],
    ["args", args],
    ["state", state],
  ] as const) {
    const copied = copyWireData(value, path);
    if ("issue" in copied) {
      return `cannot halt for a human: "${copied.issue.path}" ${copied.issue.message}, and a halted call is stored as JSON`;
    }
  }
  return undefined;
}

/** The human's deadline for a request: its own `expiresAt` or the client's wait limit. */
function deadlineOf(run: Run, request: Request): string | undefined {
  const { waitTimeoutMs } = run.config;
  const own = request.expiresAt === undefined ? undefined : Date.parse(request.expiresAt);
  const limit = waitTimeoutMs === undefined ? undefined : Date.now() + waitTimeoutMs;
  const deadline = smallest(own, limit);
  return deadline === undefined ? undefined : new Date(deadline).toISOString();
}

/** Ask `waitFor`, bounded by the human's own limit. The run's clocks are paused meanwhile. */
async function wait(
  run: Run,
  call: ToolCall,
  tool: Tool,
  request: Request,
  rules: WaitRules | undefined,
): Promise<Answer | { problem: string }> {
  const waitFor = run.config.waitFor!;
  const expired = expiryAnswer(request.id, rules);
  // A request already past its own expiresAt is not shown to anyone.
  if (isExpired(request.expiresAt)) return expired;
  const { signal } = run;
  if (signal?.aborted) throw run.cancelled();
  // The wait limit starts now, when the human is asked.
  const limitMs = smallest(
    request.expiresAt === undefined ? undefined : Date.parse(request.expiresAt) - Date.now(),
    run.config.waitTimeoutMs,
  );

  const controller = new AbortController();
  const resumeClock = run.clock.pause();
  const asked = run.trace === undefined ? 0 : performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlink: (() => void) | undefined;
  try {
    const outcome = await new Promise<unknown>((resolve, reject) => {
      if (limitMs !== undefined) {
        timer = setTimeout(() => {
          controller.abort(new DOMException("the wait for an answer expired", "TimeoutError"));
          resolve(expired);
        }, limitMs);
      }
      if (signal !== undefined) {
        const onAbort = () => {
          controller.abort(signal.reason);
          resolve(CANCELLED);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        unlink = () => signal.removeEventListener("abort", onAbort);
      }
      Promise.resolve()
        .then(() =>
          waitFor(request, {
            call,
            tool: tool.name,
            signal: controller.signal,
            sessionId: run.sessionId,
            agent: run.config.agent,
          }),
        )
        .then(resolve, reject);
    });
    if (outcome === CANCELLED) throw run.cancelled();
    const answer = parseAnswer(outcome);
    if (answer.id !== request.id) {
      return { problem: `waitFor answered request "${answer.id}" but was asked "${request.id}"` };
    }
    run.trace?.waited({ call, request, waitedMs: performance.now() - asked, answer });
    return answer;
  } catch (thrown) {
    if (run.isStop(thrown)) throw thrown;
    return { problem: `waitFor failed for "${request.prompt}": ${messageOf(thrown)}` };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    unlink?.();
    resumeClock();
  }
}

/**
 * The second half of a suspension: run again with the answer (and the suspension's `state`), or
 * report the refusal. `round` is the suspension being answered (1 for the first).
 */
export async function afterAnswer(
  run: Run,
  call: ToolCall,
  tool: Tool,
  args: Record<string, unknown>,
  messageId: string,
  request: Request,
  approval: boolean,
  answer: Answer,
  state?: unknown,
  round = 1,
  rules?: WaitRules,
  by?: string,
): Promise<Settled> {
  if (!answer.ok && tool.handlesRefusals !== true) {
    const result = error(`declined/expired: ${request.prompt}`, { answer });
    return final(run, call, tool, args, messageId, noRun(result, args));
  }
  // An expiry's default answer ends a policy's approvals: it is not one more approver.
  if (approval && answer.ok && !expiries.has(answer)) {
    // A policy that asked several people: the next one is asked, never someone who approved.
    const another = nextApproval(request, by);
    if (another !== undefined) {
      return suspend(run, call, tool, args, messageId, another, true, undefined, round, rules);
    }
  }
  let again = await attempt(run, tool, call, args, messageId, answer, true, state, by);
  const next = pendingOf(again.result);
  const approved = approval && answer.ok ? approvedRecord(request, by) : undefined;
  if (next === undefined) {
    if (approved !== undefined) {
      run.decisions.push(decisionOf(call, tool, approved));
      again = { ...again, result: withPolicy(again.result, approved) };
    }
    return final(run, call, tool, again.args, messageId, again);
  }
  // After an approval the tool ran for the first time, so its own question is a new suspension.
  if (approval) return suspend(run, call, tool, again.args, messageId, next, false, again);
  // A tool may ask one new question after another (a sub-agent, an MCP server's rounds), each a
  // suspension of its own, up to its `maxSuspensions`.
  if (next.id !== request.id && round < (tool.maxSuspensions ?? 1)) {
    return suspend(run, call, tool, again.args, messageId, next, false, again, round + 1);
  }
  // Never loop on the same call: a second suspension on the re-execution is an error.
  return final(run, call, tool, again.args, messageId, {
    ...again,
    result: error(`unresolved: ${next.prompt}`),
  });
}
