/**
 * The base class of every error toolnexus throws on purpose. `code` is stable and meant for
 * `switch`es; `message` is written for the person who has to fix the problem.
 */
export class ToolnexusError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * Thrown by `parseRequest` / `parseAnswer` (and so by `client.answer`, `client.resume` and every
 * store's `answer`) when wire data is malformed, and by a durable run whose `extra` is not JSON. `field` names the first bad field (e.g.
 * `"ok"`), `path` the bad value inside it when it is nested (e.g. `"data.items[2]"`: a cycle, a
 * BigInt, a Symbol, a function, a getter that throws, NaN, nesting deeper than 64 levels), and
 * `issues` lists the problems found.
 */
export class WireFormatError extends ToolnexusError {
  readonly field: string | undefined;
  readonly path: string | undefined;
  readonly issues: readonly string[];
  constructor(
    what: "Request" | "Answer" | "extra" | "event" | "options",
    issues: readonly { field?: string; message: string; path?: string }[],
  ) {
    const list = issues.map((issue) => issue.message);
    super("wire_format", `invalid ${what}: ${list.join("; ")}`);
    this.field = issues[0]?.field;
    this.path = issues[0]?.path ?? issues[0]?.field;
    this.issues = list;
  }
}

/** Cuts an id for a message: a huge id must not make a huge error. */
export function shortId(id: string): string {
  const text = String(id);
  return text.length <= 80 ? text : `${text.slice(0, 60)}…(${text.length} chars)`;
}

/** Thrown when an Answer's id matches no request of any stored run. Nothing was changed. */
export class SuspensionNotFoundError extends ToolnexusError {
  readonly requestId: string;
  constructor(requestId: string, detail?: string) {
    super(
      "suspension_not_found",
      `no request with id "${shortId(requestId)}"${detail ? `: ${detail}` : ""}; check the Answer's id against the Request the run returned`,
    );
    this.requestId = requestId;
  }
}

/**
 * Thrown when an answer cannot be recorded: the request already has a different answer, or
 * its deadline passed (the run continues as if it were declined). The same answer twice is
 * not an error. Nothing was changed.
 */
export class AnswerConflictError extends ToolnexusError {
  readonly requestId: string;
  readonly reason: "answered" | "expired" | "cancelled";
  constructor(requestId: string, reason: "answered" | "expired" | "cancelled", detail?: string) {
    super(
      "answer_conflict",
      reason === "answered"
        ? `request "${shortId(requestId)}" already has a different answer; an answer cannot be changed once recorded`
        : reason === "cancelled"
          ? `request "${shortId(requestId)}" belongs to a cancelled run${detail ? ` (${detail})` : ""}; nothing is waiting for its answer`
          : `request "${shortId(requestId)}" expired${detail ? ` at ${detail}` : ""}; its run continues as if it were declined`,
    );
    this.requestId = requestId;
    this.reason = reason;
  }
}

/**
 * Thrown when a feature needs an optional `RunStore` member the store lacks (a store written
 * before run events and cancel): `member` names it, e.g. `"readEvents"` or `"cancel"`.
 */
export class StoreUnsupportedError extends ToolnexusError {
  readonly member: string;
  constructor(member: string, feature: string) {
    super(
      "store_unsupported",
      `${feature} needs the run store's ${member}(), which this store does not have; use a store toolnexus ships (memory, SQLite, PostgreSQL) or add it (runStoreContract from @toolnexus/core/testing checks it)`,
    );
    this.member = member;
  }
}

/** Thrown when no stored run has this id. */
export class RunNotFoundError extends ToolnexusError {
  readonly runId: string;
  constructor(runId: string) {
    super("run_not_found", `no durable run with id "${shortId(runId)}" is in the store`);
    this.runId = runId;
  }
}

/**
 * Thrown by a store when a worker writes with a lease it no longer holds: the lease ran out
 * and another worker took the run over. The worker must stop working on the run.
 */
export class LeaseLostError extends ToolnexusError {
  readonly runId: string;
  constructor(runId: string, detail?: string) {
    super(
      "lease_lost",
      `the lease on run "${shortId(runId)}" was lost${detail ? ` (${detail})` : ""}; another worker has taken the run over`,
    );
    this.runId = runId;
  }
}

/**
 * Thrown when a stored checkpoint cannot be used: written by another schema version, corrupted,
 * or pointing at a tool that is no longer registered or whose arguments changed.
 */
export class CheckpointError extends ToolnexusError {
  readonly requestId: string | undefined;
  constructor(
    requestId: string | undefined,
    problem: string,
    // `code`: a subclass's own (ToolChangedError's "tool_changed"); "checkpoint_invalid" else.
    options?: { cause?: unknown; code?: string },
  ) {
    super(
      options?.code ?? "checkpoint_invalid",
      requestId === undefined
        ? `invalid checkpoint: ${problem}`
        : `checkpoint for request "${shortId(requestId)}" cannot be resumed: ${problem}`,
      options,
    );
    this.requestId = requestId;
  }
}
