import { ToolnexusError } from "@toolnexus/core";

/** The stable codes of {@link PostgresStoreError}, for `switch`es. */
export type PostgresStoreErrorCode =
  /** The server could not be reached (host, port, server down or starting), or the database is missing. */
  | "store_connect"
  /** The server refused the credentials (wrong password, unknown role, no pg_hba.conf entry). */
  | "store_auth"
  /** The database user lacks a privilege the store needs (CREATE on the schema or database). */
  | "store_permission"
  /** The schema was written by a newer release of this package; upgrade before using it. */
  | "store_schema"
  /** A stored conversation transcript could not be read back. */
  | "conversation_corrupt"
  /** The store was closed with `close()`. */
  | "store_closed";

/**
 * Thrown by the PostgreSQL store for problems with the database itself (rather than with one
 * halted run, which is a `CheckpointError` from `@toolnexus/core`). `target` names the server as
 * `user@host:port/database` (never the password); `schema` is the store's schema.
 */
export class PostgresStoreError extends ToolnexusError {
  declare readonly code: PostgresStoreErrorCode;
  /** The server the store talks to, as `user@host:port/database`, without the password. */
  readonly target: string;
  /** The schema the store keeps its tables in. */
  readonly schema: string;
  constructor(
    code: PostgresStoreErrorCode,
    where: { target: string; schema: string },
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.target = where.target;
    this.schema = where.schema;
  }
}
