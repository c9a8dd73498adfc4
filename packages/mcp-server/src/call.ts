// One inbound `tools/call` round: a fresh call runs the tool (after its approval, if it needs
// one); a call that suspends asks the client's person (an `input_required` round, which the SDK
// turns into a 2025 elicitation for clients of that era); the next round applies the answer and
// runs the tool again, from the signed requestState or from the durable run it names. What runs
// the tool, in every round, is `step` (step.ts), as for a Task.
import { error, randomId, type Tool, type ToolResult } from "@toolnexus/core";
import type { DurableRounds, HeldCall } from "./durable.js";
import { type ElicitReply, toAnswer, toElicitation, unaskable } from "./elicitation.js";
import type { CallChannel } from "./run-tool.js";
import { type Outcome, type StepRules, type StepRun, step } from "./step.js";
import { fingerprint, type RoundState, type Suspension } from "./suspension.js";

/** What every round of every call shares (built once per served toolkit). */
export interface CallSetup extends StepRules {
  runs?: DurableRounds;
  timeoutMs: number;
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
  const run: StepRun = { channel: round.channel, budgetMs };
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
    // Every call starts with one step: the limits, the approval, the tool.
    return finish(await step(setup, tool, args, { callId: randomId("call") }, run));
  }
  if (state.tool !== tool.name || state.fp !== fp) {
    return { kind: "result", result: error("this round's requestState belongs to another call") };
  }
  if ("s" in state) {
    const answer = toAnswer(state.s.request, round.reply(state.s.request.id));
    // No reply to the question (a client that retried without it): ask it again.
    if (answer === undefined) return ask(state.s, await setup.mint(state));
    return finish(await step(setup, tool, args, { suspension: state.s, answer }, run));
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
    const outcome = await step(
      setup,
      tool,
      args,
      { suspension: taken.suspension, answer: taken.answer },
      { ...run, runId: state.run },
    );
    return await finish(outcome, taken.lease, taken.suspension.callId);
  } catch (thrown) {
    await runs.release(taken.lease, thrown instanceof Error ? thrown.message : String(thrown));
    throw thrown;
  }
}
