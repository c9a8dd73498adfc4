// The typed error of an authorization that cannot go on. Its message never holds a token,
// a code or a secret: only the server's name and what the host can do.

/** A remote server needs authorization that cannot be had (no person to ask, refused, timed out). */
export class McpAuthorizationError extends Error {
  override readonly name = "McpAuthorizationError";

  constructor(
    message: string,
    /** The server's config name. */
    readonly server: string,
  ) {
    super(message);
  }
}
