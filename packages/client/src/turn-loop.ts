// The turn loop: call the model, run the tools it asks for, repeat; halt for humans or finish.
// The run's state is in run-state.ts, the model call in model-call.ts, one call's life in
// tool-call.ts, a durable run's journaled calls in journaled-call.ts; continuing a claimed run
// (continue-run.ts) and durable starts (durable.ts) build on this file.
import type { AssistantMessage, FinishedResult, ModelResponse, PendingCall } from "@toolnexus/core";
import { appendAssistant } from "./assistant-turn.js";
import type { Settled } from "./call-outcome.js";
import { compactRun } from "./compact-run.js";
import { modelStep, settleTurnDurably, stepsOf } from "./durable-steps.js";
import { messageOf, RunError } from "./errors.js";
import { settleAll } from "./fan-out.js";
import { callModel, directResponse, modelFailed, plainCall, startDirect } from "./model-call.js";
import type { Run } from "./run-state.js";
import { refuseCall, settleCall } from "./tool-call.js";
import type { DoneResult, RunResult } from "./types.js";

/** The loop: call the model, run the tools it asks for, repeat. */
export async function loop(run: Run): Promise<RunResult> {
  const { maxTurns } = run.config;
  for (;;) {
    if (run.turns >= maxTurns) return finish(run, { status: "incomplete", limit: "maxTurns" });
    const left = run.clock.remaining();
    if (run.outOfTime || (left !== undefined && left <= 0)) {
      return finish(run, { status: "incomplete", limit: "timeout" });
    }
    run.recorder?.beginTurn(run.turns + 1);
    if (run.config.compaction !== undefined) await compactRun(run);
    const steps = stepsOf(run);
    let response: ModelResponse | "timeout";
    if (steps === undefined && plainCall(run)) {
      // A call with nothing around it is awaited here, in the loop's own frame.
      const direct = startDirect(run);
      try {
        response = await direct;
      } catch (thrown) {
        throw modelFailed(run, thrown, run.turns + 1);
      }
      response = directResponse(run, response);
    } else {
      response = await (steps === undefined ? callModel(run) : modelStep(run, steps));
    }
    if (response === "timeout") return finish(run, { status: "incomplete", limit: "timeout" });
    run.turns++;
    const assistant = appendAssistant(run, response);
    const calls = assistant.toolCalls;
    if (calls === undefined) return finish(run, { status: "done" });
    // A durable run writes the turn before its calls start, so a worker that takes it over
    // knows which calls were in flight.
    if (run.journal !== undefined) await run.journal.step(run.checkpoint([]));
    // One call in memory is awaited here too (settleTurn would add an async frame).
    const halted =
      calls.length === 1 && steps === undefined
        ? appendOutcomes(run, [await settleCall(run, calls[0]!, assistant.id)])
        : await settleTurn(run, assistant);
    if (halted !== undefined) return halt(run, halted);
  }
}

/**
 * Runs the calls of a turn (a durable run's as steps: those already recorded are reused), then
 * appends their tool messages in call order. Returns the calls that halted, if any.
 */
export async function settleTurn(
  run: Run,
  assistant: AssistantMessage,
): Promise<PendingCall[] | undefined> {
  const calls = assistant.toolCalls!;
  const { maxConcurrentTools, maxToolCallsPerTurn } = run.config;
  const asked = calls.length;
  let settled: Settled[];
  const steps = stepsOf(run);
  if (steps !== undefined) {
    settled = await settleTurnDurably(run, steps, assistant.id, calls);
  } else {
    settled =
      asked === 1
        ? [await settleCall(run, calls[0]!, assistant.id)]
        : await settleAll(asked, maxConcurrentTools, (i) =>
            i < maxToolCallsPerTurn
              ? settleCall(run, calls[i]!, assistant.id)
              : refuseCall(run, calls[i]!, assistant.id, asked),
          );
  }
  return appendOutcomes(run, settled);
}

/** Appends a turn's tool messages in call order; returns the calls that halted, if any. */
function appendOutcomes(run: Run, settled: Settled[]): PendingCall[] | undefined {
  let halted: PendingCall[] | undefined;
  for (const outcome of settled) {
    const slot = run.messages.push(outcome.message) - 1;
    if (outcome.pending === undefined) continue;
    halted ??= [];
    // A copy (the journal may hold the outcome's own), not a spread: on Node 20 `{ ...p, slot }`
    // takes V8's slow path, about 0.8 µs against 0.15.
    const call = Object.assign({}, outcome.pending) as PendingCall;
    call.slot = slot;
    halted.push(call);
  }
  return halted;
}

/** Save a checkpoint, then report the halt. */
export async function halt(run: Run, calls: PendingCall[]): Promise<RunResult> {
  const checkpoint = run.checkpoint(calls);
  const said =
    run.journal !== undefined
      ? await run.journal.halt(checkpoint)
      : await storeWrite(run, "save the checkpoint of", () => run.config.runs.halt(checkpoint));
  // Cancelled while it worked: nobody is asked anything.
  if (run.journal?.cancel !== undefined) throw run.cancelled();
  // A new run (no lease) is never cancelled; a store of the earlier contract answers a string.
  if (said === "ready" || (typeof said === "object" && said?.state === "ready")) {
    run.readyAfterHalt = true;
  }
  const pendings = calls.map((call) => call.request);
  const first = pendings[0]!;
  const result: RunResult = {
    status: "pending",
    pending: first,
    pendings,
    text: first.prompt,
    messages: run.messages,
    toolCalls: run.records,
    turns: run.turns,
    usage: run.usage,
    model: run.config.model.id,
    runId: run.runId,
    sessionId: run.sessionId,
  };
  if (run.listening) run.emit({ type: "done", result });
  return result;
}

async function storeWrite<T>(run: Run, what: string, write: () => T | Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (thrown) {
    throw new RunError(
      "store_failed",
      `could not ${what} run ${run.runId}: ${messageOf(thrown)}`,
      run.messages,
      run.runId,
      thrown,
    );
  }
}

// Results are written as whole object literals, one per shape. V8 keeps a literal's hidden class
// alive with the code that makes it; fields assigned one by one make a chain of hidden classes
// that a full GC drops while no run is in flight, and the functions optimized for them were
// then thrown away and compiled again (`node --trace-deopt`: "weak objects"). Spreading is no
// answer either: on Node 20 `{ ...end, ...base }` takes V8's slow path.

/** A done result; `stopReason` and `finishReason` only when the model said. */
function doneResult(run: Run, text: string): DoneResult {
  const { stopReason, finishReason } = run;
  if (stopReason !== undefined && finishReason !== undefined) {
    return {
      status: "done",
      stopReason,
      finishReason,
      text,
      messages: run.messages,
      toolCalls: run.records,
      turns: run.turns,
      usage: run.usage,
      model: run.config.model.id,
      runId: run.runId,
      sessionId: run.sessionId,
    };
  }
  if (stopReason !== undefined) {
    return {
      status: "done",
      stopReason,
      text,
      messages: run.messages,
      toolCalls: run.records,
      turns: run.turns,
      usage: run.usage,
      model: run.config.model.id,
      runId: run.runId,
      sessionId: run.sessionId,
    };
  }
  if (finishReason !== undefined) {
    return {
      status: "done",
      finishReason,
      text,
      messages: run.messages,
      toolCalls: run.records,
      turns: run.turns,
      usage: run.usage,
      model: run.config.model.id,
      runId: run.runId,
      sessionId: run.sessionId,
    };
  }
  return {
    status: "done",
    text,
    messages: run.messages,
    toolCalls: run.records,
    turns: run.turns,
    usage: run.usage,
    model: run.config.model.id,
    runId: run.runId,
    sessionId: run.sessionId,
  };
}

/** The run ended (answered, or a limit stopped it): its result, saved first when it must be. */
export function finish(
  run: Run,
  end: { status: "done" } | { status: "incomplete"; limit: "maxTurns" | "timeout" },
): RunResult | Promise<RunResult> {
  let text = "";
  for (let i = run.messages.length - 1; i >= 0; i--) {
    const message = run.messages[i]!;
    if (message.role === "assistant") {
      text = message.content;
      break;
    }
  }
  const result: FinishedResult =
    end.status === "done"
      ? doneResult(run, text)
      : {
          status: "incomplete",
          limit: end.limit,
          text,
          messages: run.messages,
          toolCalls: run.records,
          turns: run.turns,
          usage: run.usage,
          model: run.config.model.id,
          runId: run.runId,
          sessionId: run.sessionId,
        };
  if ((run.conversation && run.sessionId !== undefined) || run.journal !== undefined) {
    return saveThenEnd(run, result);
  }
  if (run.listening) run.emit({ type: "done", result });
  return result;
}

/** `ask` saves the session's transcript, a durable run its result, before reporting the end. */
async function saveThenEnd(run: Run, result: FinishedResult): Promise<RunResult> {
  const { sessionId } = run;
  if (run.conversation && sessionId !== undefined) {
    // A durable conversation writes its final turn first, so a takeover does not ask the
    // model again for an answer the conversation may already hold.
    if (run.journal !== undefined && result.status === "done")
      await run.journal.step(run.checkpoint([]));
    try {
      await run.config.conversations.save(sessionId, run.messages);
    } catch (thrown) {
      throw new RunError(
        "store_failed",
        `could not save the conversation of session ${sessionId}: ${messageOf(thrown)}`,
        run.messages,
        run.runId,
        thrown,
      );
    }
  }
  if (run.journal !== undefined) await run.journal.finish({ state: "done", result });
  if (run.listening) run.emit({ type: "done", result });
  return result;
}
