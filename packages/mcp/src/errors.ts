// Errors of this package: typed, and saying what to change (in the config or loadMcp's options).

/** The MCP config cannot be used as written (for now: two servers whose tool names collide). */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";

  constructor(
    message: string,
    /** The servers involved, by their config names. */
    readonly servers: readonly string[],
  ) {
    super(message);
  }
}

/** Which limit a server's answer went past: one message (or SSE event), or one SSE stream. */
export type McpResponseLimit = "maxMessageBytes" | "maxStreamBytes";

/**
 * A remote server's response went past a size limit of `loadMcp` (`maxMessageBytes`, or
 * `maxStreamBytes` for an SSE stream): it was not read further. The request it answered fails.
 */
export class McpResponseTooLargeError extends Error {
  override readonly name = "McpResponseTooLargeError";

  constructor(
    /** The option whose limit it went past. */
    readonly limit: McpResponseLimit,
    /** That limit, in bytes. */
    readonly limitBytes: number,
    /** What went past it: the body, one SSE event, or an SSE stream. */
    what: "response body" | "SSE event" | "SSE stream",
  ) {
    super(
      `the server's ${what} is over the ${limitBytes}-byte limit (${limit}); raise it in loadMcp's options if the server is trusted to send that much`,
    );
  }
}
