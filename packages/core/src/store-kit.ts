// Checks every RunStore makes on what it is handed (values from other processes, JSON bodies,
// outside the type system), before anything changes, so a bad call leaves no trace. Shared by
// the stores toolnexus ships; a third-party store can use them too.
import {
  assertCheckpoint,
  assertJournalEntry,
  type Checkpoint,
  type JournalEntry,
} from "./checkpoint.js";
import { expandParsedCheckpoint } from "./checkpoint-text.js";
import { CheckpointError, shortId, ToolnexusError } from "./errors.js";
import type { FinishedResult } from "./run-result.js";
import type { Lease, PruneOptions, RunErrorInfo } from "./stores.js";
import type { Answer, Request } from "./wire.js";

/** Throws a TypeError for a lease that is not one (a programming error, not a lost lease). */
export function checkLease(lease: Lease, where: string): void {
  if (
    typeof lease !== "object" ||
    lease === null ||
    typeof lease.runId !== "string" ||
    typeof lease.owner !== "string" ||
    !Number.isInteger(lease.token)
  ) {
    throw new TypeError(`${where}: lease must be { runId, owner, token, expiresAt }`);
  }
}

/** Throws a TypeError unless `leaseMs` is a duration. */
export function checkLeaseMs(leaseMs: number, where: string): void {
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 0) {
    throw new TypeError(`${where}: leaseMs must be zero or more milliseconds`);
  }
}

/** Throws a TypeError unless `owner` names a worker. */
export function checkOwner(owner: string, where: string): void {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`${where}: owner must be a non-empty string`);
  }
}

/** Only what a store records of an error: no stack, no extra fields that could hold secrets. */
export function storedError(error: RunErrorInfo, where: string): RunErrorInfo {
  if (
    typeof error !== "object" ||
    error === null ||
    typeof error.code !== "string" ||
    typeof error.message !== "string"
  ) {
    throw new TypeError(`${where}: the error must be { code, message, at }`);
  }
  const at = typeof error.at === "string" ? error.at : new Date().toISOString();
  return { code: error.code, message: error.message, at };
}

/** The epoch-ms cutoff of `prune({ olderThan })`; a TypeError for one that is not a cutoff. */
export function pruneCutoff(options: PruneOptions, where: string): number {
  const olderThan = (options as Partial<PruneOptions> | undefined)?.olderThan;
  const valid =
    olderThan instanceof Date
      ? !Number.isNaN(olderThan.getTime())
      : typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0;
  if (!valid) {
    throw new TypeError(`${where}: olderThan must be a valid Date or an age of 0 or more ms`);
  }
  return olderThan instanceof Date ? olderThan.getTime() : Date.now() - (olderThan as number);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/**
 * JSON with object keys sorted at every depth: two equal answers give the same text, whatever
 * order their keys came in (how a store tells a repeated answer from a different one).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

// Reading back what a store wrote. A value a worker is about to act on (a checkpoint, a journal
// entry, an answer, a result) fails with a CheckpointError naming the run; what is only read for
// display (an error, a request, an answer in a listing) never fails a whole read.

function corrupt(runId: string, what: string, cause: unknown): never {
  throw new CheckpointError(
    undefined,
    `the stored ${what} of run "${shortId(runId)}" is corrupt: ${(cause as Error).message}`,
    { cause },
  );
}

function parseStored(json: string, runId: string, what: string): unknown {
  try {
    return JSON.parse(json);
  } catch (cause) {
    return corrupt(runId, what, cause);
  }
}

/**
 * A stored checkpoint (the text `encodeCheckpoint` wrote, or version 2 text), parsed, expanded
 * and validated; a `CheckpointError` naming the run otherwise.
 */
export function readStoredCheckpoint(json: string, runId: string): Checkpoint {
  const parsed = parseStored(json, runId, "checkpoint");
  try {
    // Stored format 3 (compact) or version 2 text, which earlier releases wrote.
    const value = expandParsedCheckpoint(parsed);
    assertCheckpoint(value);
    return value;
  } catch (cause) {
    if (!(cause instanceof CheckpointError)) throw cause;
    const problem = cause.message.replace(/^invalid checkpoint: /, "");
    throw new CheckpointError(
      undefined,
      `the stored checkpoint of run "${shortId(runId)}" cannot be used: ${problem}`,
      { cause },
    );
  }
}

/** A stored journal entry, parsed and validated; a `CheckpointError` naming the run otherwise. */
export function readStoredJournalEntry(json: string, runId: string): JournalEntry {
  const value = parseStored(json, runId, "journal entry");
  assertJournalEntry(value, shortId(runId));
  return value;
}

/** A stored answer a worker is about to apply; a `CheckpointError` naming the run otherwise. */
export function readStoredAnswer(json: string, runId: string): Answer {
  const value = parseStored(json, runId, "answer");
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    corrupt(runId, "answer", new Error("it is not an object"));
  }
  return value as Answer;
}

/** A stored result; a `CheckpointError` naming the run otherwise. */
export function readStoredResult(json: string, runId: string): FinishedResult {
  const result = parseStored(json, runId, "result") as FinishedResult;
  // `sessionId` is a required key that may be undefined, which JSON drops: put it back.
  if (typeof result === "object" && result !== null && !Object.hasOwn(result, "sessionId")) {
    result.sessionId = undefined;
  }
  return result;
}

/** A run's recorded error; a damaged one reads as an `unreadable` error, never a failure. */
export function readStoredError(json: string | null): RunErrorInfo | undefined {
  if (json === null) return undefined;
  try {
    const value = JSON.parse(json) as RunErrorInfo;
    if (typeof value === "object" && value !== null && typeof value.code === "string") return value;
  } catch {
    // Fall through.
  }
  return {
    code: "unreadable",
    message: "the stored error cannot be read",
    at: new Date(0).toISOString(),
  };
}

/**
 * A stored request; a damaged JSON column falls back to the fields a store keeps beside it, so a
 * listing never fails on one bad row.
 */
export function readStoredRequest(json: string, fallback: Request): Request {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const request = value as Request;
      return typeof request.id === "string" ? request : { ...request, id: fallback.id };
    }
  } catch {
    // Fall through to the fallback.
  }
  return fallback;
}

/** An answer for a read (getRun, getRequest, list): a damaged one is left out, not a failure. */
export function readStoredAnswerLoosely(json: string | null): Answer | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Answer;
  } catch {
    // Fall through.
  }
  return undefined;
}

// Ids every store keeps exactly. PostgreSQL text cannot hold NUL, and an unpaired UTF-16
// surrogate has no UTF-8 form (SQLite and PostgreSQL would store U+FFFD, so two ids could
// collide or read back altered). Such ids are refused in every store, the in-memory one too, so
// an application sees the same behaviour whichever store it runs on. So is an id past
// MAX_STORE_ID_CHARS: every size has a cap.

/**
 * The longest id (run, request, session, agent, owner), in UTF-16 code units, a store keeps.
 * Ids the library makes are about 40 characters; a sub-agent's run id is its parent's and the
 * call's joined by "/" (about 40 more per level of nesting), so this leaves room for deep nesting
 * while no id can grow a row, an index entry or a log line without bound.
 */
export const MAX_STORE_ID_CHARS = 1024;

/** Thrown by every store for an id it could not keep exactly. Nothing was changed. */
export class InvalidIdError extends ToolnexusError {
  /** Which id: `runId`, `requestId`, `sessionId`, `agent` or `owner` (with where it was found). */
  readonly field: string;
  constructor(field: string, problem: string) {
    // The raw value is not echoed: it may be huge, or hold characters a log cannot show.
    super(
      "invalid_id",
      `${field} cannot be stored: it ${problem}; ids must be text of at most ${MAX_STORE_ID_CHARS} characters, without NUL characters and without unpaired UTF-16 surrogates`,
    );
    this.field = field;
  }
}

/** Why `id` cannot be kept exactly by every store, or undefined when it can. */
// Every character an id can have a problem with; most ids have none, and one native search
// is then all a check costs (it runs on every id of every store call).
// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL is what it looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;

function idProblem(id: string): string | undefined {
  if (id.length > MAX_STORE_ID_CHARS) {
    return `is ${id.length} characters long, over the limit of ${MAX_STORE_ID_CHARS}`;
  }
  if (!SUSPECT.test(id)) return undefined;
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    if (unit === 0) return `contains a NUL character (U+0000) at index ${i}`;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = id.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return `contains an unpaired UTF-16 surrogate at index ${i}`;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      return `contains an unpaired UTF-16 surrogate at index ${i}`;
    }
  }
  return undefined;
}

/**
 * Throws an {@link InvalidIdError} naming `field` when `id` is a string no store can keep
 * exactly (a NUL, an unpaired surrogate) or one longer than {@link MAX_STORE_ID_CHARS}. Anything not a string is left to the caller's type
 * checks.
 */
export function checkId(id: unknown, field: string): void {
  if (typeof id !== "string") return;
  const problem = idProblem(id);
  if (problem !== undefined) throw new InvalidIdError(field, problem);
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;

function checkCheckpointIds(checkpoint: unknown): void {
  checkId(field(checkpoint, "runId"), "checkpoint.runId");
  checkId(field(checkpoint, "sessionId"), "checkpoint.sessionId");
  checkId(field(checkpoint, "agent"), "checkpoint.agent");
  const pending = field(checkpoint, "pending");
  if (!Array.isArray(pending)) return;
  for (let i = 0; i < pending.length; i++) {
    const id = field(field(pending[i], "request"), "id");
    // The field's name is only made for an error.
    if (typeof id === "string" && idProblem(id) !== undefined) {
      checkId(id, `checkpoint.pending[${i}].request.id`);
    }
  }
}

function checkLeaseIds(lease: unknown): void {
  checkId(field(lease, "runId"), "lease.runId");
  checkId(field(lease, "owner"), "lease.owner");
}

/** Where the ids are in the arguments of each store method. */
const ID_CHECKS: Record<string, (args: readonly unknown[]) => void> = {
  halt: ([checkpoint, lease]) => {
    checkCheckpointIds(checkpoint);
    if (lease !== undefined) checkLeaseIds(lease);
  },
  start: ([checkpoint, owner]) => {
    checkCheckpointIds(checkpoint);
    checkId(owner, "owner");
  },
  step: ([lease, checkpoint]) => {
    checkLeaseIds(lease);
    checkCheckpointIds(checkpoint);
  },
  journal: ([lease, entry]) => {
    checkLeaseIds(lease);
    checkId(field(entry, "answered"), "entry.answered");
  },
  renew: ([lease]) => checkLeaseIds(lease),
  release: ([lease]) => checkLeaseIds(lease),
  finish: ([lease]) => checkLeaseIds(lease),
  claim: ([options]) => {
    checkId(field(options, "owner"), "owner");
    checkId(field(options, "runId"), "runId");
    checkId(field(options, "agent"), "agent");
  },
  answer: ([answer, options]) => {
    checkId(field(answer, "id"), "answer.id");
    checkId(field(options, "by"), "by");
  },
  appendEvents: ([lease]) => checkLeaseIds(lease),
  readEvents: ([runId]) => checkId(runId, "runId"),
  // watchEvents is left out: it returns an unsubscribe function, never a promise, and an id no
  // store can hold simply has no events to wake anyone for.
  cancel: ([runId, request]) => {
    checkId(runId, "runId");
    checkId(field(request, "by"), "by");
  },
  getRun: ([runId]) => checkId(runId, "runId"),
  getRequest: ([requestId]) => checkId(requestId, "requestId"),
  list: ([filter]) => {
    checkId(field(filter, "sessionId"), "sessionId");
    checkId(field(filter, "runId"), "runId");
  },
  listRuns: ([filter]) => {
    checkId(field(filter, "sessionId"), "sessionId");
    checkId(field(filter, "agent"), "agent");
  },
  retry: ([runId]) => checkId(runId, "runId"),
  readJournal: ([runId]) => checkId(runId, "runId"),
  save: ([sessionId]) => checkId(sessionId, "sessionId"),
  load: ([sessionId]) => checkId(sessionId, "sessionId"),
  deleteConversation: ([sessionId]) => checkId(sessionId, "sessionId"),
};

/**
 * Checks every id among the arguments of the store method `method` (a {@link RunStore} or
 * conversation-store method name) before the store does anything: an {@link InvalidIdError}
 * for one no store could keep exactly. Unknown methods are not checked.
 */
export function checkStoreIds(method: string, args: readonly unknown[]): void {
  ID_CHECKS[method]?.(args);
}

/**
 * Puts {@link checkStoreIds} in front of every run- and conversation-store method `store` has,
 * in place (other properties, getters and the object's identity are kept), and returns it. With
 * `calls: "async"` (a store whose methods return promises) a refused id is a rejected promise;
 * with `"sync"` it is thrown.
 */
export function guardStoreIds<T extends object>(store: T, calls: "sync" | "async"): T {
  const target = store as Record<string, unknown>;
  for (const method of GUARDED_METHODS) {
    const original = target[method];
    if (typeof original !== "function") continue;
    target[method] = guarded(
      ID_CHECKS[method]!,
      original as (...a: unknown[]) => unknown,
      calls === "async",
    );
  }
  return store;
}

// Made once: every store (a client's default one is made per client) guards the same methods.
const GUARDED_METHODS = Object.keys(ID_CHECKS);

/** `original` behind its id check; a refused id is a rejected promise when `async`. */
function guarded(
  check: (args: readonly unknown[]) => void,
  original: (...a: unknown[]) => unknown,
  async: boolean,
): (...args: unknown[]) => unknown {
  if (!async) {
    return function (this: unknown, ...args: unknown[]) {
      check(args);
      return original.apply(this, args);
    };
  }
  return function (this: unknown, ...args: unknown[]) {
    try {
      check(args);
    } catch (error) {
      return Promise.reject(error);
    }
    return original.apply(this, args);
  };
}
