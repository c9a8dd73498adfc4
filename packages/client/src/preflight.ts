// Checks made before a stored run is continued, so a run that cannot continue here is refused
// with a CheckpointError and nothing changes: no tool runs, no answer is marked applied, and
// (before a claim) no lease is taken, which would count as an attempt of its calls.
import {
  type Checkpoint,
  CheckpointError,
  type ClaimedRun,
  type Message,
  type PendingCall,
  type RequestInfo,
  type Tool,
  type ToolCall,
  ToolChangedError,
} from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { fingerprint } from "./fingerprint.js";
import { type ResolvedCall, renamedTo, resolvePending } from "./redeploy.js";

/**
 * The registered tool a stored call needs (or the one that lists its name in `previousNames`);
 * a worker without it must not touch the run.
 */
export function toolFor(
  config: ResolvedConfig,
  runId: string,
  requestOrCall: string,
  name: string,
): Tool {
  const tool = config.tools.get(name) ?? renamedTo(config, name);
  if (tool === undefined) {
    throw new CheckpointError(
      requestOrCall,
      `tool "${name}" is not registered with this client; register it to continue run ${runId}`,
    );
  }
  return tool;
}

/** The halted call a pending entry re-runs: in the transcript's last turn that has it. */
export function findCall(
  messages: readonly Message[],
  runId: string,
  callId: string,
): { call: ToolCall; messageId: string } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant" || message.toolCalls === undefined) continue;
    const call = message.toolCalls.find((candidate) => candidate.id === callId);
    if (call !== undefined) return { call, messageId: message.id };
  }
  throw new CheckpointError(
    undefined,
    `tool call ${callId} of run ${runId} is not in the transcript`,
  );
}

/**
 * A pending call is the one that halted (its arguments unaltered) and its tool is here, or was
 * renamed or migrated (redeploy.ts): what it runs on now.
 */
export function checkPending(
  config: ResolvedConfig,
  checkpoint: Checkpoint,
  waiting: PendingCall,
): ResolvedCall {
  if (fingerprint(waiting.tool, waiting.args) !== waiting.fingerprint) {
    throw new CheckpointError(
      waiting.request.id,
      `the arguments stored for call ${waiting.callId} do not match its fingerprint; the checkpoint was altered`,
    );
  }
  const resolved = resolvePending(config, checkpoint.runId, waiting);
  findCall(checkpoint.messages, checkpoint.runId, waiting.callId);
  return resolved;
}

/**
 * An answer recorded for a request the stored checkpoint no longer lists (a damaged or edited
 * row) would be marked applied without ever reaching its tool: refuse to continue instead.
 */
export function checkAnswered(checkpoint: Checkpoint, requests: readonly RequestInfo[]): void {
  for (const info of requests) {
    if (info.state !== "answered") continue;
    if (checkpoint.pending.some((waiting) => waiting.request.id === info.request.id)) continue;
    throw new CheckpointError(
      info.request.id,
      `run ${checkpoint.runId} has an answer recorded for this request, but its stored checkpoint no longer lists the request among its pending calls (the row was damaged or edited); the answer is kept and nothing was run`,
    );
  }
}

/**
 * The pending calls one check resolved, by call id: the tool each runs on, and its arguments
 * when a migration rewrote them (else the call's own, from whichever copy of the checkpoint).
 */
export type CheckedCalls = Map<string, { tool: Tool; migrated?: Record<string, unknown> }>;

/** Checks one pending call (see {@link checkPending}) and notes what it resolved to. */
function checkInto(
  checked: CheckedCalls,
  config: ResolvedConfig,
  checkpoint: Checkpoint,
  waiting: PendingCall,
): ResolvedCall {
  const resolved = checkPending(config, checkpoint, waiting);
  checked.set(
    waiting.callId,
    resolved.args === waiting.args
      ? { tool: resolved.tool }
      : { tool: resolved.tool, migrated: resolved.args },
  );
  return resolved;
}

/**
 * What a pending call runs on, from an earlier check of the same halt when it made one (the
 * arguments are then this copy's own, unless a migration rewrote them), else checked now.
 */
export function resolvedCall(
  checked: CheckedCalls | undefined,
  config: ResolvedConfig,
  checkpoint: Checkpoint,
  waiting: PendingCall,
): ResolvedCall {
  const known = checked?.get(waiting.callId);
  if (known !== undefined) return { tool: known.tool, args: known.migrated ?? waiting.args };
  return checkPending(config, checkpoint, waiting);
}

/**
 * Everything that can be checked from the store's copy before claiming a run: an orphaned
 * answer, and each still-open pending call's tool and arguments. Returns what each checked
 * call resolved to: a claim of the same halt reuses it (durable.ts), any other one checks again.
 */
export function checkBeforeClaim(
  config: ResolvedConfig,
  checkpoint: Checkpoint,
  requests: readonly RequestInfo[],
  failed = false,
): CheckedCalls {
  checkAnswered(checkpoint, requests);
  const checked: CheckedCalls = new Map();
  for (const waiting of checkpoint.pending) {
    const state = requests.find((info) => info.request.id === waiting.request.id)?.state;
    // An applied request's call is journaled: its result is reused, its tool not needed. Not in
    // a failed run: its end closed the requests and dropped the journal, so every call runs.
    if (state !== "applied" || failed) checkInto(checked, config, checkpoint, waiting);
  }
  return checked;
}

/**
 * What a worker records (`lastError.code`) when it gives a claimed run back without running
 * anything. The next continuation does not count that claim as an attempt of the run's calls.
 */
export const REFUSED = "continue_refused";

/**
 * The code a refused claim is recorded with: `tool_changed` for a tool a redeploy changed (so an
 * operator sees why), else {@link REFUSED}. Either way the claim ran nothing.
 */
export function refusal(thrown: unknown): string {
  return thrown instanceof ToolChangedError ? thrown.code : REFUSED;
}

/** Whether a recorded error is a refused claim (see {@link refusal}). */
export function isRefusal(code: string | undefined): boolean {
  return code === REFUSED || code === "tool_changed";
}

/**
 * The same checks on a claimed run, before any of its calls starts: an orphaned answer, the
 * halted calls that will run again, or the tools of the in-flight turn's unjournaled calls.
 * `before` is what {@link checkBeforeClaim} resolved on a read of this same halt, with these
 * same `requests`: those calls are not checked twice. Returns what the halted calls run on.
 */
export function checkClaimed(
  config: ResolvedConfig,
  claimed: ClaimedRun,
  requests: readonly RequestInfo[],
  before?: CheckedCalls,
): CheckedCalls | undefined {
  const { checkpoint } = claimed;
  if (before === undefined) checkAnswered(checkpoint, requests);
  const journaled = new Set(claimed.journal.map((entry) => entry.callId));
  if (checkpoint.pending.length > 0) {
    const checked: CheckedCalls = new Map();
    for (const waiting of checkpoint.pending) {
      if (journaled.has(waiting.callId)) continue;
      const known = before?.get(waiting.callId);
      if (known !== undefined) checked.set(waiting.callId, known);
      else checkInto(checked, config, checkpoint, waiting);
    }
    return checked;
  }
  const last = checkpoint.messages[checkpoint.messages.length - 1];
  if (last?.role !== "assistant" || last.toolCalls === undefined) return undefined;
  for (const call of last.toolCalls) {
    if (journaled.has(call.id) || call.argsError !== undefined) continue;
    toolFor(config, checkpoint.runId, call.id, call.name);
  }
  return undefined;
}
