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
 * Thrown by `parseRequest` / `parseAnswer` when wire data is malformed. `field` names the first
 * bad field (e.g. `"ok"`), and `issues` lists every problem found.
 */
export class WireFormatError extends ToolnexusError {
  readonly field: string | undefined;
  readonly issues: readonly string[];
  constructor(what: "Request" | "Answer", issues: readonly { field?: string; message: string }[]) {
    const list = issues.map((issue) => issue.message);
    super("wire_format", `invalid ${what}: ${list.join("; ")}`);
    this.field = issues[0]?.field;
    this.issues = list;
  }
}

/** Thrown when an Answer's id matches no halted run waiting for it. Nothing was changed. */
export class SuspensionNotFoundError extends ToolnexusError {
  readonly requestId: string;
  constructor(requestId: string, detail?: string) {
    super(
      "suspension_not_found",
      `no pending request with id "${requestId}"${detail ? `: ${detail}` : ""}; check the Answer's id against the Request the run returned`,
    );
    this.requestId = requestId;
  }
}

/**
 * Thrown when a request was already resumed (possibly by another process). Resuming is
 * exactly-once: the tool behind the request will not run again.
 */
export class AlreadyResumedError extends ToolnexusError {
  readonly requestId: string;
  constructor(requestId: string) {
    super(
      "already_resumed",
      `request "${requestId}" was already resumed; a request can be answered only once`,
    );
    this.requestId = requestId;
  }
}

/**
 * Thrown when a stored checkpoint cannot be used: written by another schema version, corrupted,
 * or pointing at a tool that is no longer registered or whose arguments changed.
 */
export class CheckpointError extends ToolnexusError {
  readonly requestId: string | undefined;
  constructor(requestId: string | undefined, problem: string, options?: { cause?: unknown }) {
    super(
      "checkpoint_invalid",
      requestId === undefined
        ? `invalid checkpoint: ${problem}`
        : `checkpoint for request "${requestId}" cannot be resumed: ${problem}`,
      options,
    );
    this.requestId = requestId;
  }
}
