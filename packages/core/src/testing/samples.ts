// Builders of valid store inputs (checkpoints, journal entries, results, errors) for store
// tests, and the small timing helpers the contract suites share.
import { CHECKPOINT_VERSION, type Checkpoint, type JournalEntry } from "../checkpoint.js";
import { emptyUsage, type Message, type ToolCall } from "../messages.js";
import type { DoneResult } from "../run-result.js";
import type { RunErrorInfo } from "../stores.js";
import type { Request } from "../wire.js";

/** One pending request of a {@link sampleCheckpoint}: its id, and what to set besides. */
export interface SamplePending {
  id: string;
  /** Default `"input"`. */
  kind?: string;
  /** Default `"question <n>"`. */
  prompt?: string;
  /** The Request's own deadline. */
  expiresAt?: string;
  /** The PendingCall's deadline, which wins over `expiresAt`. */
  deadline?: string;
}

/** Options of {@link sampleCheckpoint}. */
export interface SampleCheckpointOptions {
  /** Default `"run_1"`. */
  runId?: string;
  sessionId?: string;
  agent?: string;
  /** The requests the halted turn waits for (ids, or more); none: a run between steps. */
  pending?: readonly (string | SamplePending)[];
  /** Default 1. */
  turns?: number;
}

/**
 * A valid version-2 checkpoint: a user message, and when `pending` is given, an assistant turn
 * calling the tool `ask` once per request with each call's placeholder tool message.
 */
export function sampleCheckpoint(options: SampleCheckpointOptions = {}): Checkpoint {
  const runId = options.runId ?? "run_1";
  const pending = (options.pending ?? []).map((p) => (typeof p === "string" ? { id: p } : p));
  const calls: ToolCall[] = pending.map((_, i) => ({
    id: `call_${i + 1}`,
    name: "ask",
    args: { n: i + 1 },
    rawArgs: JSON.stringify({ n: i + 1 }),
  }));
  const messages: Message[] = [{ role: "user", content: "start" }];
  if (calls.length > 0) {
    messages.push({ role: "assistant", id: "msg_1", content: "", toolCalls: calls });
  }
  const checkpoint: Checkpoint = {
    version: CHECKPOINT_VERSION,
    runId,
    createdAt: new Date().toISOString(),
    messages,
    pending: pending.map((p, i) => {
      const request: Request = {
        id: p.id,
        kind: p.kind ?? "input",
        prompt: p.prompt ?? `question ${i + 1}`,
      };
      if (p.expiresAt !== undefined) request.expiresAt = p.expiresAt;
      const call = calls[i]!;
      messages.push({
        role: "tool",
        callId: call.id,
        name: call.name,
        content: request.prompt,
        isError: false,
      });
      return {
        request,
        callId: call.id,
        tool: call.name,
        args: call.args,
        fingerprint: `fp_${i + 1}`,
        approval: false,
        slot: 2 + i,
        ...(p.deadline === undefined ? {} : { deadline: p.deadline }),
      };
    }),
    turns: options.turns ?? 1,
    usage: emptyUsage(),
  };
  if (options.sessionId !== undefined) checkpoint.sessionId = options.sessionId;
  if (options.agent !== undefined) checkpoint.agent = options.agent;
  return checkpoint;
}

/** A journal entry for one finished call; `answered` marks the request it applied. */
export function sampleJournalEntry(
  callId: string,
  options: { answered?: string; output?: string } = {},
): JournalEntry {
  const output = options.output ?? `result of ${callId}`;
  const entry: JournalEntry = {
    callId,
    message: { role: "tool", callId, name: "ask", content: output, isError: false },
    record: {
      id: callId,
      name: "ask",
      args: {},
      result: { output, isError: false },
      status: "ok",
      timedOut: false,
      durationMs: 1,
    },
  };
  if (options.answered !== undefined) entry.answered = options.answered;
  return entry;
}

/** A `done` result for {@link RunStore.finish}. */
export function sampleResult(runId: string, text = "all done"): DoneResult {
  return {
    status: "done",
    text,
    messages: [
      { role: "user", content: "start" },
      { role: "assistant", id: "msg_2", content: text },
    ],
    toolCalls: [],
    turns: 2,
    usage: emptyUsage(),
    model: "sample",
    runId,
    sessionId: undefined,
  };
}

/** A run error as a worker records it. */
export function sampleError(code = "model_failed", message = "the model is down"): RunErrorInfo {
  return { code, message, at: new Date().toISOString() };
}

/** An ISO time `ms` from now (negative: in the past). */
export function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error `action` throws (sync or async); fails the test when it throws nothing. */
export async function failure(action: () => unknown): Promise<Record<string, unknown>> {
  try {
    await action();
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected the call to throw");
}

// Short leases and deadlines the tests let run out, waited for with a wide margin: CI machines
// are busy, and no test asserts how long anything took.
export const SHORT_MS = 1000;
export const LAPSE_MS = 1300;
// A lease or deadline that cannot run out during a test.
export const LONG_MS = 10 * 60_000;
