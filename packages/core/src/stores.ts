import { CheckpointError } from "./errors.js";
import type { Message, Usage } from "./messages.js";
import type { Request } from "./wire.js";

/** A value or a promise of it: stores may be synchronous (SQLite) or not (a network database). */
export type Awaitable<T> = T | Promise<T>;

/** The checkpoint format version this release writes and reads. */
export const CHECKPOINT_VERSION = 1;

/** One suspended call of a halted turn: what it waits for and exactly which call to re-run. */
export interface PendingCall {
  request: Request;
  /** The tool call's id in the halted assistant turn. */
  callId: string;
  /** The tool to re-execute. */
  tool: string;
  /** The arguments to re-execute with (after any `beforeTool` rewrite). */
  args: Record<string, unknown>;
  /** A fingerprint of tool name and arguments; a resume refuses to run anything else. */
  fingerprint: string;
  /** True when the loop raised the request for `needsApproval` before the tool ever ran. */
  approval: boolean;
  /** Index in `Checkpoint.messages` of this call's placeholder tool message. */
  slot: number;
  /** When the human's time runs out (the Request's `expiresAt`, or the client's `waitTimeoutMs`). */
  deadline?: string;
}

/**
 * A halted run, as plain JSON: everything a fresh process needs to resume it with only the
 * Answer. The transcript is balanced: every tool call of the halted turn has a tool message,
 * a placeholder (the Request's prompt) for each call still pending.
 */
export interface Checkpoint {
  version: typeof CHECKPOINT_VERSION;
  /** Unique per halt; a run that halts again gets a new checkpoint. */
  id: string;
  runId: string;
  sessionId?: string;
  agent?: string;
  /** ISO time of the halt. */
  createdAt: string;
  messages: Message[];
  /** The halted turn's suspended calls, in tool-call order. */
  pending: PendingCall[];
  /** Model turns used so far (counts against `maxTurns`). */
  turns: number;
  usage: Usage;
  /** The run-level `extra`, restored on resume. */
  extra?: Record<string, unknown>;
  /** True when the run came from `client.ask`: the finished transcript is saved under `sessionId`. */
  conversation?: boolean;
}

/** Where a suspension stands: waiting, taken by a resume, or past its deadline. */
export type SuspensionState = "pending" | "resumed" | "expired";

/** One waiting (or finished) request as a host's inbox lists it. */
export interface SuspensionSummary {
  request: Request;
  checkpointId: string;
  runId: string;
  sessionId?: string;
  agent?: string;
  createdAt: string;
  /** The effective deadline (see {@link PendingCall.deadline}). */
  expiresAt?: string;
  state: SuspensionState;
}

/** Filters for {@link SuspensionStore.list}; all given fields must match. */
export interface SuspensionFilter {
  state?: SuspensionState;
  sessionId?: string;
  kind?: string;
}

/**
 * Where halted runs wait for their answers. The client writes a checkpoint before `run`
 * returns `pending`, and `resume` claims it. Implement it for your own database; the client
 * ships an in-memory one and `@toolnexus/store-sqlite` a durable one.
 */
export interface SuspensionStore {
  /** Persist a halted run, indexed by each of its pending request ids. */
  save(checkpoint: Checkpoint): Awaitable<void>;
  /** The checkpoint waiting on `requestId`, without claiming it; `undefined` when none waits. */
  get(requestId: string): Awaitable<Checkpoint | undefined>;
  /**
   * Atomically take the checkpoint waiting on `requestId` and mark it `resumed`. Exactly one
   * caller wins; the others get `AlreadyResumedError`. Unknown ids get `SuspensionNotFoundError`.
   */
  claim(requestId: string): Awaitable<Checkpoint>;
  /** Requests with their state, newest first, for an inbox or an admin page. */
  list(filter?: SuspensionFilter): Awaitable<SuspensionSummary[]>;
}

/** Where `client.ask` keeps each session's transcript between calls. */
export interface ConversationStore {
  load(sessionId: string): Awaitable<Message[] | undefined>;
  save(sessionId: string, messages: readonly Message[]): Awaitable<void>;
}

/**
 * Checks that a value read back from storage is a checkpoint this release can resume, and
 * throws a {@link CheckpointError} naming the request and the problem when it is not.
 */
export function assertCheckpoint(value: unknown, requestId?: string): asserts value is Checkpoint {
  const fail = (problem: string): never => {
    throw new CheckpointError(requestId, problem);
  };
  if (typeof value !== "object" || value === null) fail("it is not an object");
  const c = value as Partial<Checkpoint>;
  if (c.version !== CHECKPOINT_VERSION) {
    fail(
      `it was written with checkpoint version ${JSON.stringify(c.version)}, this release reads version ${CHECKPOINT_VERSION}`,
    );
  }
  if (typeof c.id !== "string" || typeof c.runId !== "string") fail("its id or runId is missing");
  if (typeof c.createdAt !== "string" || Number.isNaN(Date.parse(c.createdAt))) {
    fail("its createdAt is not an ISO 8601 time");
  }
  if (!Array.isArray(c.messages)) fail("its transcript (messages) is missing");
  if (!Array.isArray(c.pending) || c.pending.length === 0) fail("it lists no pending calls");
  for (const call of c.pending ?? []) {
    if (
      typeof call?.request?.id !== "string" ||
      typeof call.request.kind !== "string" ||
      typeof call.request.prompt !== "string" ||
      typeof call.callId !== "string" ||
      typeof call.tool !== "string" ||
      typeof call.slot !== "number"
    ) {
      fail("a pending call is malformed");
    }
  }
  if (typeof c.turns !== "number" || typeof c.usage !== "object" || c.usage === null) {
    fail("its turn count or usage is missing");
  }
}
