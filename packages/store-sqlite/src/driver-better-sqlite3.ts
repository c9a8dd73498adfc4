import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { Db, Driver, DriverOpenOptions } from "./driver.js";

let loaded: typeof BetterSqlite3 | undefined;

function load(): typeof BetterSqlite3 {
  // Required on first use, never imported at the top: on Node 24 the store runs on node:sqlite
  // and better-sqlite3's native module must not even be loaded there (better-sqlite3 12 aborts
  // at process exit on Node >= 24.19).
  if (loaded) return loaded;
  try {
    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    // Its native binary loads with the first database: an in-memory one tells a broken install
    // from a problem with the store's file.
    new Database(":memory:").close();
    loaded = Database;
  } catch (cause) {
    // An optional dependency: its native build may have failed, or been skipped, at install.
    throw new Error(
      `better-sqlite3, which the store uses on Node ${process.versions.node} (Node 24 and later use node:sqlite), could not be loaded; install it with \`npm install better-sqlite3\` (a native module: a C++ toolchain is needed where no prebuilt binary exists): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  return loaded;
}

/** better-sqlite3, a native module: the store's SQLite on Node 20 and 22. */
export const betterSqlite3Driver: Driver = {
  name: "better-sqlite3",
  open(path: string, options: DriverOpenOptions = {}): Db {
    const Database = load();
    // The seam is a subset of better-sqlite3's own API; its transaction() type is only wider.
    return new Database(path, { timeout: options.timeoutMs ?? 5000 }) as unknown as Db;
  },
};
