// One inbound `tools/call` round: a fresh call runs the tool (after its approval, if it needs
// one); a call that suspends asks the client's person (an `input_required` round, which the SDK
// turns into a 2025 elicitation for clients of that era); the next round applies the answer and
// runs the tool again, from the signed requestState or from the durable run it names.
import {
  type Answer,
  error,
  pendingOf,
  type Request,
  randomId,
  resumeStateOf,
  type Scrubber,
  type Tool,
  type ToolResult,
} from "@toolnexus/core";
import type { DurableRounds, HeldCall } from "./durable.js";
import { type ElicitReply, toAnswer, toElicitation, unaskable } from "./elicitation.js";
import { type CallChannel, runTool } from "./run-tool.js";
import { fingerprint, type RoundState, type Suspension } from "./suspension.js";

/** What every round of every call shares (built once per served toolkit). */
export interface CallSetup {
  scrub: Scrubber;
  runs?: DurableRounds;
  timeoutMs: number;
  maxRounds: number;
  /** Signs a round's state into the `requestState` string. */
  mint: (state: RoundState) => Promise<string>;
}

/** The round as the MCP request gives it. */
export interface Round {
  channel: CallChannel;
  /** The verified `requestState` payload, when this round continues a call. */
  state?: RoundState;
  /** The client's reply to a question (keyed by its Request id), when this round continues a call. */
  reply: (key: string) => ElicitReply;
  /** The client's declared capabilities (can it ask its person, and how). */
  capabilities: unknown;
  /** True for a 2026-07-28 request: a capability it lacks is a protocol error, not a result. */
  modern: boolean;
}

/** How a round ends: a result for the client, or a question for its person. */
export type RoundEnd =
  | { kind: "result"; result: ToolResult }
  /**
   * A 2026 client lacks the capability the question takes: the question is returned without
   * state, and the SDK answers it with the protocol's MissingRequiredClientCapability (-32021).
   */
  | { kind: "missing"; key: string; elicitation: ReturnType<typeof toElicitation> }
  | {
      kind: "ask";
      /** The input request's key: the Request's id. */
      key: string;
      elicitation: ReturnType<typeof toElicitation>;
      requestState: string;
    };

type Outcome = { done: ToolResult } | { suspend: Suspension };

function approvalPrompt(tool: Tool, args: Record<string, unknown>): string {
  try {
    const prompt = tool.approvalPrompt?.(args);
    if (typeof prompt === "string" && prompt !== "") return prompt;
  } catch {
    // A throwing prompt falls back to the default, as in the client loop.
  }
  return `Allow ${tool.name} to run with ${JSON.stringify(args)}?`;
}

async function needsApproval(tool: Tool, args: Record<string, unknown>): Promise<boolean> {
  const rule = tool.needsApproval;
  if (typeof rule === "function") return (await rule(args, {})) === true;
  return rule === true;
}

function refusal(answer: Answer, request: Request): ToolResult {
  return error(`${answer.reason ?? "declined"}: ${request.prompt}`);
}

/** Runs one round of a call of `tool` with `args`. */
export async function callRound(
  setup: CallSetup,
  tool: Tool,
  args: Record<string, unknown>,
  round: Round,
): Promise<RoundEnd> {
  const budgetMs = tool.timeoutMs ?? setup.timeoutMs;
  const call: HeldCall = { tool: tool.name, args };
  const fp = fingerprint(tool.name, args);
  const limit = Math.min(Math.max(tool.maxSuspensions ?? 1, 1), setup.maxRounds);

  const after = (result: ToolResult, previous: number, callId: string): Outcome => {
    const request = pendingOf(result);
    if (request === undefined) return { done: result };
    if (previous + 1 > limit) return { done: error(`unresolved: ${request.prompt}`) };
    const s: Suspension = { request, approval: false, round: previous + 1, callId };
    const state = resumeStateOf(result);
    if (state !== undefined) s.state = state;
    return { suspend: s };
  };

  const execute = (callId: string, runId?: string, answer?: Answer, resumeState?: unknown) =>
    runTool(tool, args, round.channel, { callId, runId, answer, resumeState, budgetMs });

  /** Applies the person's answer to the suspension and runs the tool again (or not). */
  const proceed = async (s: Suspension, answer: Answer, runId?: string): Promise<Outcome> => {
    const expired =
      s.request.expiresAt !== undefined && Date.parse(s.request.expiresAt) < Date.now();
    const given: Answer = expired ? { id: s.request.id, ok: false, reason: "expired" } : answer;
    if (s.approval) {
      if (!given.ok) return { done: refusal(given, s.request) };
      return after(await execute(s.callId, runId), 0, s.callId);
    }
    if (!given.ok && tool.handlesRefusals !== true) return { done: refusal(given, s.request) };
    return after(await execute(s.callId, runId, given, s.state), s.round, s.callId);
  };

  /** Ends the round on an outcome: the result, or a question (halted durably with `runs`). */
  const finish = async (
    outcome: Outcome,
    lease?: Parameters<DurableRounds["finish"]>[0],
    callId = "",
  ): Promise<RoundEnd> => {
    const runs = setup.runs;
    if ("suspend" in outcome) {
      const s = outcome.suspend;
      const cannot = unaskable(s.request, round.capabilities);
      if (cannot === undefined) {
        const requestState =
          runs === undefined
            ? await setup.mint({ v: 1, tool: tool.name, fp, s })
            : await setup.mint({ v: 1, tool: tool.name, fp, run: await runs.halt(call, s, lease) });
        return ask(s, requestState);
      }
      outcome = { done: error(`${tool.name} ${cannot}`) };
      if (round.modern) {
        if (lease !== undefined && runs !== undefined)
          await runs.finish(lease, call, callId, outcome.done);
        return {
          kind: "missing",
          key: s.request.id,
          elicitation: toElicitation(setup.scrub.deep(s.request)),
        };
      }
    }
    if (lease !== undefined && runs !== undefined) {
      await runs.finish(lease, call, callId, outcome.done);
    }
    return { kind: "result", result: outcome.done } satisfies RoundEnd;
  };

  const ask = (s: Suspension, requestState: string): RoundEnd => ({
    kind: "ask",
    key: s.request.id,
    elicitation: toElicitation(setup.scrub.deep(s.request)),
    requestState,
  });

  const state = round.state;
  if (state === undefined) {
    const callId = randomId("call");
    if (await needsApproval(tool, args)) {
      const request: Request = {
        id: randomId("apr"),
        kind: "approval",
        prompt: approvalPrompt(tool, args),
      };
      return finish({ suspend: { request, approval: true, round: 0, callId } });
    }
    return finish(after(await execute(callId), 0, callId));
  }
  if (state.tool !== tool.name || state.fp !== fp) {
    return { kind: "result", result: error("this round's requestState belongs to another call") };
  }
  if ("s" in state) {
    const answer = toAnswer(state.s.request, round.reply(state.s.request.id));
    // No reply to the question (a client that retried without it): ask it again.
    if (answer === undefined) return ask(state.s, await setup.mint(state));
    return finish(await proceed(state.s, answer));
  }
  const runs = setup.runs;
  if (runs === undefined) {
    return { kind: "result", result: error("this server keeps no durable runs to continue") };
  }
  const held = await runs.waiting(state.run);
  if ("kind" in held) {
    if (held.kind === "done") return { kind: "result", result: held.result };
    return {
      kind: "result",
      result: error(`this call cannot continue: ${"why" in held ? held.why : ""}`),
    };
  }
  const answer = toAnswer(held.suspension.request, round.reply(held.suspension.request.id));
  if (answer === undefined) return ask(held.suspension, await setup.mint(state));
  const taken = await runs.take(
    state.run,
    answer,
    budgetMs + 30_000,
    round.channel.caller.clientId,
  );
  if (taken.kind === "done") return { kind: "result", result: taken.result };
  if (taken.kind === "unavailable") {
    return { kind: "result", result: error(`this call cannot continue: ${taken.why}`) };
  }
  try {
    const outcome = await proceed(taken.suspension, taken.answer, state.run);
    return await finish(outcome, taken.lease, taken.suspension.callId);
  } catch (thrown) {
    await runs.release(taken.lease, thrown instanceof Error ? thrown.message : String(thrown));
    throw thrown;
  }
}
