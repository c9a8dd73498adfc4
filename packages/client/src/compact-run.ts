// Compaction applied to a run (compaction.ts has the rule): before a model call, at a point where
// every tool call of the transcript has its result and no call waits for a human, so a halt
// after it checkpoints the compacted transcript with valid slots, and a resume continues it.
import { callIdOf } from "@toolnexus/core";
import { compactWith } from "./compaction.js";
import { messageOf, RunError } from "./errors.js";
import type { Run } from "./run-state.js";

/** Compacts the run's transcript when it is over the budget; emits a `compaction` event. */
export async function compactRun(run: Run): Promise<void> {
  const options = run.config.compaction;
  if (options === undefined) return;
  let compacted: Awaited<ReturnType<typeof compactWith>>;
  try {
    const signal = run.signal;
    const info = signal === undefined ? { runId: run.runId } : { runId: run.runId, signal };
    compacted = await compactWith(run.messages, options, info);
  } catch (thrown) {
    if (run.aborted) throw run.cancelled();
    throw new RunError(
      "compaction_failed",
      `compacting the transcript of run ${run.runId} failed: ${messageOf(thrown)}`,
      run.messages,
      run.runId,
      thrown,
    );
  }
  if (compacted === undefined) return;
  rememberCallIds(run);
  // A new array, never an edit: whoever holds the old transcript (a recorded request) keeps it.
  run.messages = compacted.messages;
  run.scannedTo = run.messages.length;
  if (run.listening) {
    run.emit({
      type: "compaction",
      turn: run.turns + 1,
      before: compacted.before,
      after: compacted.after,
      summarized: compacted.summarized,
    });
  }
}

/**
 * The ids of the run's own calls stay known after their messages are summarized away, so a
 * provider that repeats an id later still gets a distinct `ctx.callId` (assistant-turn.ts).
 */
function rememberCallIds(run: Run): void {
  run.callIds ??= new Set();
  const ids = run.callIds;
  const { messages } = run;
  for (let i = run.scannedTo; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "assistant" || message.toolCalls === undefined) continue;
    for (const call of message.toolCalls) ids.add(callIdOf(call));
  }
}
