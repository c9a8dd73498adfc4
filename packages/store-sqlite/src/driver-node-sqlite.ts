import type { Db, Driver, DriverOpenOptions, RunResult, Statement, Transaction } from "./driver.js";

// The part of `node:sqlite` used here (the @types/node of Node 20 has none of it).
interface NodeStatement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  setReturnArrays(enabled: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}
interface NodeSqlite {
  DatabaseSync: new (path: string, options?: { timeout?: number }) => NodeDatabase;
  backup(source: NodeDatabase, destination: string): Promise<number>;
}

function load(): NodeSqlite {
  // Loaded on first use only: Node 20 has no such module, and Node 22 warns that it is experimental.
  const sqlite = process.getBuiltinModule?.("node:sqlite") as NodeSqlite | undefined;
  if (sqlite === undefined) {
    throw new Error(`node:sqlite is not available on Node ${process.versions.node}`);
  }
  return sqlite;
}

function statement<P extends unknown[], R>(inner: NodeStatement): Statement<P, R> {
  let plucked = false;
  const wrapper: Statement<P, R> = {
    run: (...params) => inner.run(...params),
    get: (...params) => {
      const row = inner.get(...params) as R | unknown[] | undefined;
      return (plucked && row !== undefined ? (row as unknown[])[0] : row) as R | undefined;
    },
    all: (...params) => {
      const rows = inner.all(...params);
      return (plucked ? rows.map((row) => (row as unknown[])[0]) : rows) as R[];
    },
    pluck() {
      // Rows as arrays: the first column without building an object per row.
      inner.setReturnArrays(true);
      plucked = true;
      return wrapper;
    },
  };
  return wrapper;
}

let savepoints = 0;

function transaction<F extends (...args: never[]) => unknown>(
  db: NodeDatabase,
  fn: F,
  begin: string,
): F {
  return ((...args: Parameters<F>) => {
    // Nested: a savepoint inside the outer transaction, as better-sqlite3 does.
    if (db.isTransaction) {
      const name = `toolnexus_${++savepoints}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = fn(...args);
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        db.exec(`ROLLBACK TO ${name}`);
        db.exec(`RELEASE ${name}`);
        throw error;
      }
    }
    db.exec(begin);
    try {
      const result = fn(...args);
      db.exec("COMMIT");
      return result;
    } catch (error) {
      // A failed COMMIT (SQLITE_BUSY past the timeout) can leave the transaction open.
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }) as F;
}

function wrap(sqlite: NodeSqlite, db: NodeDatabase): Db {
  return {
    prepare: <P extends unknown[], R>(sql: string) => statement<P, R>(db.prepare(sql)),
    exec: (sql) => db.exec(sql),
    pragma(source, options) {
      const query = db.prepare(`PRAGMA ${source}`);
      if (!options?.simple) return query.all();
      query.setReturnArrays(true);
      return (query.get() as unknown[] | undefined)?.[0];
    },
    // biome-ignore lint/suspicious/noExplicitAny: the shape of better-sqlite3's transaction()
    transaction<F extends (...args: any[]) => any>(fn: F): Transaction<F> {
      const deferred = transaction(db, fn, "BEGIN");
      return Object.assign(deferred, { immediate: transaction(db, fn, "BEGIN IMMEDIATE") });
    },
    backup: (destination) => sqlite.backup(db, destination),
    get open() {
      return db.isOpen;
    },
    close: () => db.close(),
  };
}

/** Node's own SQLite (`node:sqlite`), stable and warning-free from Node 24. */
export const nodeSqliteDriver: Driver = {
  name: "node:sqlite",
  open(path: string, options: DriverOpenOptions = {}): Db {
    const sqlite = load();
    return wrap(sqlite, new sqlite.DatabaseSync(path, { timeout: options.timeoutMs ?? 5000 }));
  },
};
