import { CheckpointError } from "./errors.js";
import type { Message, ToolMessage, Usage } from "./messages.js";
import type { StopReason } from "./model.js";
import { checkParts } from "./parts.js";
import type { ToolCallRecord } from "./run-result.js";
import type { RequestTimer, WaitRules } from "./waiting.js";
import type { Request } from "./wire.js";

/**
 * The checkpoint format version this release writes and reads. Version 2 (durable runs) added
 * `attempts`, the journal and lease-based continuation; version 1 rows are migrated by the stores.
 */
export const CHECKPOINT_VERSION = 2;

/** One suspended call of a halted turn: what it waits for and exactly which call to re-run. */
export interface PendingCall {
  request: Request;
  /** The tool call's id in the halted assistant turn. */
  callId: string;
  /** The tool to re-execute. */
  tool: string;
  /** The arguments to re-execute with (after any `beforeTool` rewrite), exactly. */
  args: Record<string, unknown>;
  /** A fingerprint of tool name and arguments; a resume refuses to run anything else. */
  fingerprint: string;
  /**
   * A short fingerprint (16 hex digits) of the tool's input schema when the call halted, so a
   * release that changed the schema can tell (`ToolChangedError`, or the tool's `migrate`).
   * Absent in checkpoints written before it: such a call continues unchecked, as before.
   */
  schema?: string;
  /** True when the loop raised the request for `needsApproval` before the tool ever ran. */
  approval: boolean;
  /** Index in `Checkpoint.messages` of this call's placeholder tool message. */
  slot: number;
  /** When the human's time runs out (the Request's `expiresAt`, or the client's `waitTimeoutMs`). */
  deadline?: string;
  /** The suspension's `state` (`pending({ state })`), handed back as `ctx.resumeState`; never shown to the model. */
  state?: unknown;
  /** Which suspension of this call this is (1, 2, … up to the tool's `maxSuspensions`); absent means 1. */
  round?: number;
  /** Reminders and an escalation while the request waits (from `waitRules`), soonest first. */
  timers?: RequestTimer[];
  /**
   * The rules the timers came from (a policy's ask, else the tool's `waitRules`): its `onExpiry`
   * is what the call gets if the request expires unanswered, and a policy's next approval
   * request is timed by it too.
   */
  waitRules?: WaitRules;
}

/** The most policy decisions a checkpoint keeps (the newest). */
export const MAX_POLICY_DECISIONS = 100;

/** One approval policy's decision on one call, as a checkpoint keeps it. */
export interface PolicyDecisionRecord {
  callId: string;
  tool: string;
  /** The policy's name. */
  policy: string;
  decision: "allow" | "deny" | "ask";
  /** `policy:<name>`: the policy as who answered. */
  by: string;
  /** A deny's reason. */
  reason?: string;
  /** An ask's approvers, once the call ran. */
  approvedBy?: string[];
}

/**
 * A durable run's state at its last step, as plain JSON: everything a fresh process needs to
 * continue it. The transcript ends either balanced (every tool call has a tool message, a
 * placeholder for each pending call) or with an assistant turn whose calls are in flight; the
 * journal then holds the calls of that turn that finished.
 */
export interface Checkpoint {
  version: typeof CHECKPOINT_VERSION;
  runId: string;
  sessionId?: string;
  agent?: string;
  /** ISO time the run started. */
  createdAt: string;
  messages: Message[];
  /** The halted turn's suspended calls, in tool-call order; empty while the run is not halted. */
  pending: PendingCall[];
  /** Model turns used so far (counts against `maxTurns`). */
  turns: number;
  usage: Usage;
  /** The run-level `extra`, restored on resume. */
  extra?: Record<string, unknown>;
  /** Who started the run (`RunOptions.requester`): approval policies see it, and it may not approve. */
  requester?: string;
  /**
   * The approval policies' decisions on this run's calls so far, oldest first (at most
   * {@link MAX_POLICY_DECISIONS}, the newest kept), so a halted run's `getRun` shows them.
   */
  decisions?: PolicyDecisionRecord[];
  /** True when the run came from `client.ask`: the finished transcript is saved under `sessionId`. */
  conversation?: boolean;
  /**
   * The lease token this checkpoint was written under (0 for a run halted without a lease). A
   * worker that claims the run with a higher token counts a call's `ctx.attempt` from it.
   */
  leaseToken?: number;
  /**
   * Opaque strings an instrumentation stored with the run (a trace context), handed back when
   * the run is continued, in any process, so the continuation's trace links to this one.
   */
  trace?: Record<string, string>;
  /**
   * Why the model stopped on the last turn in `messages` (normalized, and as the provider sent
   * it), so a run finished from this checkpoint reports it on its result.
   */
  stopReason?: StopReason;
  finishReason?: string;
}

/**
 * One finished call of a durable run's current step, written before the run moves on, so a
 * worker that takes the run over never runs it again.
 */
export interface JournalEntry {
  callId: string;
  /** The call's tool message: its final result, or a suspension's placeholder (its prompt). */
  message: ToolMessage;
  /** The call as the run's `toolCalls` reports it. */
  record: ToolCallRecord;
  /** Set when the call suspended (without `waitFor`): the run will halt on this request. */
  pending?: Omit<PendingCall, "slot">;
  /** Set when this result applied the human's answer to that request id. */
  answered?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** The first problem with a transcript, or undefined when every message is well formed. */
function transcriptProblem(messages: unknown[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isObject(message) || !ROLES.has(message.role as string)) {
      return `message ${i} is not a system, user, assistant or tool message`;
    }
    if (typeof message.content !== "string") return `message ${i} has no text content`;
    if (message.role === "assistant") {
      if (message.providerData !== undefined && !isObject(message.providerData)) {
        return `message ${i} has providerData that is not an object`;
      }
      if (message.toolCalls === undefined) continue;
      if (!Array.isArray(message.toolCalls)) return `message ${i} has toolCalls that is not a list`;
      for (const call of message.toolCalls as unknown[]) {
        if (!isObject(call) || typeof call.id !== "string" || typeof call.name !== "string") {
          return `message ${i} has a malformed tool call`;
        }
        if (!isObject(call.args)) return `message ${i} has a tool call without object args`;
      }
    } else if (message.role === "tool") {
      if (typeof message.callId !== "string")
        return `message ${i} is a tool message without callId`;
      if (message.parts !== undefined) {
        try {
          checkParts(message.parts);
        } catch (thrown) {
          return `message ${i} has content parts that are malformed (${(thrown as Error).message})`;
        }
      }
    }
  }
  return undefined;
}

/** Whether a pending call before the `k`th (already checked) points at `slot` too. */
function slotTaken(pending: unknown[], k: number, slot: number): boolean {
  for (let j = 0; j < k; j++) if ((pending[j] as PendingCall).slot === slot) return true;
  return false;
}

// The last createdAt found to be a time: a run's checkpoint is checked at every write and read
// with the same one.
let lastTime = "";

function isTime(text: string): boolean {
  if (text === lastTime) return true;
  if (Number.isNaN(Date.parse(text))) return false;
  lastTime = text;
  return true;
}

/**
 * Checks that a value read back from storage is a checkpoint this release can continue, and
 * throws a {@link CheckpointError} naming the request and the problem when it is not.
 */
export function assertCheckpoint(value: unknown, requestId?: string): asserts value is Checkpoint {
  // Every checkpoint written or read is checked (three times per suspend-and-resume cycle): a
  // few pending calls are told apart without a Set, and the time parsed last is not parsed again.
  const fail = (problem: string): never => {
    throw new CheckpointError(requestId, problem);
  };
  if (!isObject(value)) fail("it is not an object");
  const c = value as Partial<Checkpoint>;
  if (c.version !== CHECKPOINT_VERSION) {
    fail(
      `it was written with checkpoint version ${JSON.stringify(c.version)}, this release reads version ${CHECKPOINT_VERSION}`,
    );
  }
  if (typeof c.runId !== "string" || c.runId === "") fail("its runId is missing");
  if (typeof c.createdAt !== "string" || !isTime(c.createdAt)) {
    fail("its createdAt is not an ISO 8601 time");
  }
  if (!Array.isArray(c.messages)) fail("its transcript (messages) is missing");
  const problem = transcriptProblem(c.messages as unknown[]);
  if (problem !== undefined) fail(`its transcript is malformed: ${problem}`);
  if (!Array.isArray(c.pending)) fail("its pending calls are missing");
  const messages = c.messages as Message[];
  const pending = c.pending as unknown[];
  // Past a few calls a Set, so a damaged checkpoint with many cannot cost quadratic time.
  const slots = pending.length > 16 ? new Set<number>() : undefined;
  for (let k = 0; k < pending.length; k++) {
    const p = pending[k] as Partial<PendingCall> | null;
    if (
      !isObject(p) ||
      !isObject(p.request) ||
      typeof p.request.id !== "string" ||
      typeof p.request.kind !== "string" ||
      typeof p.request.prompt !== "string" ||
      typeof p.callId !== "string" ||
      typeof p.tool !== "string" ||
      !isObject(p.args) ||
      typeof p.fingerprint !== "string"
    ) {
      fail("a pending call is malformed");
    }
    const pc = p as PendingCall;
    const slot = pc.slot;
    if (
      !Number.isInteger(slot) ||
      slot < 0 ||
      slot >= messages.length ||
      (slots === undefined ? slotTaken(pending, k, slot) : slots.has(slot))
    ) {
      fail(
        `pending call ${pc.callId} points at slot ${String(slot)}, which is not a message of its own`,
      );
    }
    const placeholder = messages[slot]!;
    if (placeholder.role !== "tool" || placeholder.callId !== pc.callId) {
      fail(`pending call ${pc.callId} points at slot ${slot}, which is not its tool message`);
    }
    if (pc.schema !== undefined && (typeof pc.schema !== "string" || pc.schema.length > 64)) {
      fail(`pending call ${pc.callId} has a schema fingerprint that is not a short string`);
    }
    if (pc.round !== undefined && (!Number.isInteger(pc.round) || pc.round < 1)) {
      fail(`pending call ${pc.callId} has a round that is not a positive whole number`);
    }
    slots?.add(slot);
  }
  if (typeof c.turns !== "number" || !isObject(c.usage)) {
    fail("its turn count or usage is missing");
  }
  if (
    c.trace !== undefined &&
    (!isObject(c.trace) || Object.values(c.trace).some((v) => typeof v !== "string"))
  ) {
    fail("its trace is not a map of strings");
  }
  if (c.leaseToken !== undefined && !Number.isInteger(c.leaseToken)) {
    fail("its leaseToken is not a whole number");
  }
  if (
    (c.stopReason !== undefined && typeof c.stopReason !== "string") ||
    (c.finishReason !== undefined && typeof c.finishReason !== "string")
  ) {
    fail("its stopReason or finishReason is not a string");
  }
}

/** The same check for a journal entry read back from storage. */
export function assertJournalEntry(value: unknown, runId?: string): asserts value is JournalEntry {
  const e = value as Partial<JournalEntry> | null;
  if (
    !isObject(e) ||
    typeof e.callId !== "string" ||
    !isObject(e.message) ||
    e.message.role !== "tool" ||
    !isObject(e.record)
  ) {
    throw new CheckpointError(undefined, `a journal entry of run ${runId ?? "?"} is malformed`);
  }
}
