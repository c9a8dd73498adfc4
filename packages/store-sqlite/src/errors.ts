import { ToolnexusError } from "@toolnexus/core";

/** The stable codes of {@link SqliteStoreError}, for `switch`es. */
export type SqliteStoreErrorCode =
  /** The file could not be opened as a SQLite database (a folder that cannot be created, not a database, locked, or no SQLite binding for this Node). */
  | "store_open"
  /** `backup` could not create its destination file (or the folder for it). */
  | "store_backup"
  /** The file was written by a newer release of this package; upgrade before opening it. */
  | "store_schema"
  /** A stored conversation transcript could not be read back. */
  | "conversation_corrupt";

/**
 * Thrown by the SQLite store for problems with the file itself (rather than with one halted
 * run, which is a `CheckpointError` from `@toolnexus/core`). `path` is the database file.
 */
export class SqliteStoreError extends ToolnexusError {
  declare readonly code: SqliteStoreErrorCode;
  /** The database file the store was opened on. */
  readonly path: string;
  constructor(
    code: SqliteStoreErrorCode,
    path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.path = path;
  }
}
