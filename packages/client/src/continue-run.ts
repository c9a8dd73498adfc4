// Continuing a claimed durable run: reuse what the journal holds, apply recorded answers and
// expiries to a halted turn, run again the calls that were in flight, then go on looping.
import {
  type Answer,
  CheckpointError,
  type ClaimedRun,
  callIdOf,
  type JournalEntry,
  type PendingCall,
  type Tool,
  type ToolCall,
} from "@toolnexus/core";
import { settleAll } from "./fan-out.js";
import { fingerprint } from "./fingerprint.js";
import type { Run, Settled } from "./run.js";
import { afterAnswer, isExpired } from "./suspension.js";
import type { RunResult } from "./types.js";

/**
 * Continue a claimed durable run: reuse the journaled calls, apply recorded answers and
 * expiries to a halted turn, run again the calls that were in flight, then loop on.
 */
export async function continueFrom(run: Run, claimed: ClaimedRun): Promise<RunResult> {
  const { checkpoint } = claimed;
  const journaled = new Map<string, JournalEntry>();
  for (const entry of claimed.journal) journaled.set(entry.callId, entry);
  // Each claim raises the lease token by one: the claims since this checkpoint was written
  // bound how many times a call of it may have started.
  const since = claimed.lease.token - (checkpoint.leaseToken ?? 0);
  run.attempts = new Map();
  if (checkpoint.pending.length > 0) {
    const answers = new Map(claimed.answers.map((answer) => [answer.id, answer]));
    return continueHalted(run, checkpoint.pending, journaled, answers, since);
  }
  const last = run.messages[run.messages.length - 1];
  if (last?.role === "assistant" && last.toolCalls !== undefined && last.toolCalls.length > 0) {
    // The turn was in flight: its unjournaled calls run again, one attempt further on.
    for (const call of last.toolCalls) {
      if (journaled.has(call.id)) continue;
      if (call.argsError === undefined) toolFor(run, call.id, call.name);
      run.attempts.set(callIdOf(call), since + 1);
    }
    const halted = await run.settleTurn(last, journaled);
    if (halted !== undefined) return run.halt(halted);
    return run.loop();
  }
  // The final turn was written (a conversation): only the end is left to do.
  if (last?.role === "assistant") return run.finish({ status: "done" });
  return run.loop();
}

async function continueHalted(
  run: Run,
  pending: readonly PendingCall[],
  journaled: ReadonlyMap<string, JournalEntry>,
  answers: ReadonlyMap<string, Answer>,
  since: number,
): Promise<RunResult> {
  // Check every call that will run before running any, so a misconfigured worker changes nothing.
  for (const waiting of pending) {
    if (journaled.has(waiting.callId)) continue;
    const tool = toolFor(run, waiting.request.id, waiting.tool);
    if (fingerprint(tool.name, waiting.args) !== waiting.fingerprint) {
      throw new CheckpointError(
        waiting.request.id,
        `the arguments stored for call ${waiting.callId} do not match its fingerprint; the checkpoint was altered`,
      );
    }
    findCall(run, waiting.callId);
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
        settled = run.replay(done);
      } else {
        const given = answers.get(waiting.request.id);
        // An answer recorded in time wins over a deadline that passed since.
        if (given === undefined && !isExpired(waiting.deadline ?? waiting.request.expiresAt)) {
          return waiting;
        }
        const answer: Answer = given ?? { id: waiting.request.id, ok: false, reason: "expired" };
        const { call, messageId } = findCall(run, waiting.callId);
        const tool = run.config.tools.get(waiting.tool) as Tool;
        run.attempts!.set(callIdOf(call), since);
        if (run.listening) {
          run.emit({
            type: "tool_call",
            call,
            messageId,
            ctx: run.context(call, messageId, answer),
          });
        }
        settled = await afterAnswer(
          run,
          call,
          tool,
          waiting.args,
          messageId,
          waiting.request,
          waiting.approval,
          answer,
          waiting.state,
          waiting.round,
        );
        if (run.journal !== undefined) await run.journalCall(call.id, settled, waiting.request.id);
      }
      run.messages[waiting.slot] = settled.message;
      return settled.pending === undefined ? undefined : { ...settled.pending, slot: waiting.slot };
    },
  );
  const still = outcomes.filter((outcome): outcome is PendingCall => outcome !== undefined);
  if (still.length > 0) return run.halt(still);
  return run.loop();
}

/** The registered tool a stored call needs; a worker without it must not touch the run. */
function toolFor(run: Run, requestOrCall: string, name: string): Tool {
  const tool = run.config.tools.get(name);
  if (tool === undefined) {
    throw new CheckpointError(
      requestOrCall,
      `tool "${name}" is not registered with this client; register it to continue run ${run.runId}`,
    );
  }
  return tool;
}

function findCall(run: Run, callId: string): { call: ToolCall; messageId: string } {
  for (let i = run.messages.length - 1; i >= 0; i--) {
    const message = run.messages[i]!;
    if (message.role !== "assistant" || message.toolCalls === undefined) continue;
    const call = message.toolCalls.find((candidate) => candidate.id === callId);
    if (call !== undefined) return { call, messageId: message.id };
  }
  throw new CheckpointError(
    undefined,
    `tool call ${callId} of run ${run.runId} is not in the transcript`,
  );
}
