// Continuing a claimed durable run: reuse what the journal holds, apply recorded answers and
// expiries to a halted turn, run again the calls that were in flight, then go on looping.
import {
  type Answer,
  approvalOf,
  type Checkpoint,
  type ClaimedRun,
  callIdOf,
  type JournalEntry,
  type PendingCall,
} from "@toolnexus/core";
import type { Settled } from "./call-outcome.js";
import { callStep, stepsOf } from "./durable-steps.js";
import { settleAll } from "./fan-out.js";
import { replay } from "./journaled-call.js";
import { type CheckedCalls, findCall, isRefusal, resolvedCall, toolFor } from "./preflight.js";
import { carryOver, type ResolvedCall } from "./redeploy.js";
import type { Run } from "./run-state.js";
import { afterAnswer, expiryAnswer, isExpired } from "./suspension.js";
import { finish, halt, loop, settleTurn } from "./turn-loop.js";
import type { RunResult } from "./types.js";

/**
 * Continue a claimed durable run: reuse the journaled calls, apply recorded answers and
 * expiries to a halted turn, run again the calls that were in flight, then loop on. `checked`
 * is what the claim's checks resolved the halted calls to (preflight.ts), if they did.
 */
export async function continueFrom(
  run: Run,
  claimed: ClaimedRun,
  checked?: CheckedCalls,
): Promise<RunResult> {
  const { checkpoint } = claimed;
  const journaled = new Map<string, JournalEntry>();
  for (const entry of claimed.journal) journaled.set(entry.callId, entry);
  // Each claim raises the lease token by one: the claims since this checkpoint was written
  // bound how many times a call of it may have started. The last one given back refused ran
  // nothing (earlier refusals may still count: an attempt is never undercounted).
  const refused = isRefusal(claimed.lastError?.code) ? 1 : 0;
  const since = claimed.lease.token - (checkpoint.leaseToken ?? 0) - refused;
  run.attempts = new Map();
  if (checkpoint.pending.length > 0) {
    const answers = new Map(claimed.answers.map((answer) => [answer.id, answer]));
    return continueHalted(run, checkpoint, journaled, answers, since, checked);
  }
  const last = run.messages[run.messages.length - 1];
  if (last?.role === "assistant" && last.toolCalls !== undefined && last.toolCalls.length > 0) {
    // The turn was in flight: its unjournaled calls run again, one attempt further on.
    for (const call of last.toolCalls) {
      if (journaled.has(call.id)) continue;
      if (call.argsError === undefined) {
        // A tool renamed since (`previousNames`): the call runs, and reads, under its new name.
        call.name = toolFor(run.config, run.runId, call.id, call.name).name;
      }
      run.attempts.set(callIdOf(call), since + 1);
    }
    const halted = await settleTurn(run, last);
    if (halted !== undefined) return halt(run, halted);
    return loop(run);
  }
  // The final turn was written (a conversation): only the end is left to do.
  if (last?.role === "assistant") return finish(run, { status: "done" });
  return loop(run);
}

async function continueHalted(
  run: Run,
  checkpoint: Checkpoint,
  journaled: ReadonlyMap<string, JournalEntry>,
  answers: ReadonlyMap<string, Answer>,
  since: number,
  checked: CheckedCalls | undefined,
): Promise<RunResult> {
  const { pending } = checkpoint;
  // Check every call that will run before running any, so a misconfigured worker changes nothing.
  // What each runs on now: a redeploy may have renamed its tool or migrated its arguments. The
  // claim's checks (durable.ts) resolved these calls already: reused, not checked again.
  const now = new Map<string, ResolvedCall>();
  for (const waiting of pending) {
    if (!journaled.has(waiting.callId)) {
      now.set(waiting.callId, resolvedCall(checked, run.config, checkpoint, waiting));
    }
  }
  // Answered calls run again at most `maxConcurrentTools` at a time, like a turn's calls.
  const outcomes = await settleAll(
    pending.length,
    run.config.maxConcurrentTools,
    async (index): Promise<PendingCall | undefined> => {
      const waiting = pending[index]!;
      const done = journaled.get(waiting.callId);
      let settled: Settled;
      if (done !== undefined) {
        settled = replay(run, done);
      } else {
        const given = answers.get(waiting.request.id);
        // An answer recorded in time wins over a deadline that passed since.
        if (given === undefined && !isExpired(waiting.deadline ?? waiting.request.expiresAt)) {
          return waiting;
        }
        const answer: Answer = given ?? expiryAnswer(waiting.request.id, waiting.waitRules);
        // Who answered a policy's approval request (a sub-agent's too, come up through an
        // agentTool): asked of the store, as answers carry no `by`. Distinct approvals need it.
        const by =
          given !== undefined && approvalOf(waiting.request) !== undefined
            ? (await run.config.runs.getRequest(waiting.request.id))?.answeredBy
            : undefined;
        const { call, messageId } = findCall(run.messages, run.runId, waiting.callId);
        const { tool, args } = now.get(waiting.callId)!;
        carryOver(call, now.get(waiting.callId)!, waiting);
        run.attempts!.set(callIdOf(call), since);
        if (run.listening) {
          run.emit({
            type: "tool_call",
            call,
            messageId,
            ctx: run.context(call, messageId, answer),
          });
        }
        const again = () =>
          afterAnswer(
            run,
            call,
            tool,
            args,
            messageId,
            waiting.request,
            waiting.approval,
            answer,
            waiting.state,
            waiting.round,
            waiting.waitRules,
            by,
          );
        const steps = stepsOf(run);
        settled = await (steps === undefined
          ? again()
          : callStep(run, steps, call, waiting.request.id, again));
      }
      run.messages[waiting.slot] = settled.message;
      if (settled.pending === undefined) return undefined;
      // Not a spread: see appendOutcomes (turn-loop.ts).
      const call = Object.assign({}, settled.pending) as PendingCall;
      call.slot = waiting.slot;
      return call;
    },
  );
  const still = outcomes.filter((outcome): outcome is PendingCall => outcome !== undefined);
  if (still.length > 0) return halt(run, still);
  return loop(run);
}
