/**
 * The few database calls the store makes, as one seam with two implementations: better-sqlite3
 * (Node 20 and 22) and Node's own `node:sqlite` (Node 24 and later). The shape is the subset of
 * better-sqlite3's API the store uses, so that driver is better-sqlite3 itself, unwrapped.
 */

/** Which SQLite binding a store runs on. */
export type SqliteDriverName = "better-sqlite3" | "node:sqlite";

/** What a write statement reports. */
export interface RunResult {
  changes: number;
}

/** A prepared statement; `P` are its parameters, `R` a row (or, after `pluck()`, a value). */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  /** From now on `get` and `all` return each row's first column instead of the row. */
  pluck(): Statement<P, R>;
}

/** A function run in one transaction; `immediate` takes the write lock first. */
// biome-ignore lint/suspicious/noExplicitAny: the shape of better-sqlite3's transaction()
export type Transaction<F extends (...args: any[]) => any> = F & { immediate: F };

/** An open database. */
export interface Db {
  /** Compiles one SQL statement. */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R>;
  /** Runs one or more SQL statements without parameters. */
  exec(sql: string): void;
  /** `PRAGMA source`; with `simple`, the first column of the first row, else every row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /**
   * Wraps `fn` in a transaction (a savepoint when called inside another one): committed when
   * `fn` returns, rolled back when it throws.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the shape of better-sqlite3's transaction()
  transaction<F extends (...args: any[]) => any>(fn: F): Transaction<F>;
  /** SQLite's online backup of the whole database into the file `destination`. */
  backup(destination: string): Promise<unknown>;
  /** Whether `close()` has not been called yet. */
  readonly open: boolean;
  close(): void;
}

/** How a database is opened. */
export interface DriverOpenOptions {
  /** How long a statement waits for another connection's lock, in milliseconds; default 5000. */
  timeoutMs?: number;
}

/** One SQLite binding. */
export interface Driver {
  readonly name: SqliteDriverName;
  open(path: string, options?: DriverOpenOptions): Db;
}
