// A durable run's calls in the store's journal: each outcome is journaled before the run moves
// on (lease-durability.ts), and a call an earlier worker journaled is replayed from its entry.
import type { JournalEntry, ToolMessage } from "@toolnexus/core";
import { rollUp, type Settled } from "./call-outcome.js";
import type { Run } from "./run-state.js";
import type { ToolCallRecord } from "./types.js";

/** A call's outcome as a journal entry (`answered`: the request whose answer it applied). */
export function entryOf(
  callId: string,
  settled: Settled,
  answered: string | undefined,
): JournalEntry {
  const entry: JournalEntry = {
    callId,
    message: settled.message,
    record: settled.record ?? fallbackRecord(callId, settled.message),
  };
  if (settled.pending !== undefined) entry.pending = settled.pending;
  if (answered !== undefined) entry.answered = answered;
  return entry;
}

/** A call whose outcome was journaled by an earlier worker: reuse it, never run it again. */
export function replay(run: Run, entry: JournalEntry): Settled {
  run.records.push(entry.record);
  // The step this run continues from was written before the call finished: a sub-agent's
  // tokens are not in its usage yet.
  if (run.config.tools.get(entry.record.name)?.source === "agent") rollUp(run, entry.record.result);
  const settled: Settled = { message: entry.message, record: entry.record };
  if (entry.pending !== undefined) settled.pending = entry.pending;
  return settled;
}

/** A record for a journal entry whose call left none (it cannot happen today; kept total). */
function fallbackRecord(callId: string, message: ToolMessage): ToolCallRecord {
  return {
    id: callId,
    name: message.name,
    args: {},
    result: { output: message.content, isError: message.isError },
    status: message.isError ? "error" : "ok",
    timedOut: false,
    durationMs: 0,
  };
}
