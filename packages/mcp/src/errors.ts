// Errors loadMcp throws: typed, and saying what to change in the config.

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
