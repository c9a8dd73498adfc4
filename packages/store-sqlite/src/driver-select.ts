import type { Driver, SqliteDriverName } from "./driver.js";
import { betterSqlite3Driver } from "./driver-better-sqlite3.js";
import { nodeSqliteDriver } from "./driver-node-sqlite.js";

/**
 * The driver for a Node version: `node:sqlite` from Node 24 (stable there, no warning, and
 * better-sqlite3 12 aborts at exit on Node >= 24.19), better-sqlite3 before (Node 20 has no
 * `node:sqlite`; Node 22's prints an experimental warning).
 */
export function driverNameFor(nodeVersion: string): SqliteDriverName {
  const major = Number(nodeVersion.replace(/^v/, "").split(".")[0]);
  return major >= 24 ? "node:sqlite" : "better-sqlite3";
}

/** The variable that overrides the choice (to measure one binding against the other). */
export const DRIVER_VARIABLE = "TOOLNEXUS_SQLITE_DRIVER";

/**
 * The driver of the running Node, or the one `TOOLNEXUS_SQLITE_DRIVER` names. Read at each open,
 * so a bench can compare both in one process.
 */
export function currentDriver(): Driver {
  const forced = process.env[DRIVER_VARIABLE];
  if (
    forced !== undefined &&
    forced !== "" &&
    forced !== "better-sqlite3" &&
    forced !== "node:sqlite"
  ) {
    throw new Error(
      `${DRIVER_VARIABLE} must be "better-sqlite3" or "node:sqlite" (or unset), not "${forced}"`,
    );
  }
  const name = forced || driverNameFor(process.versions.node);
  return name === "node:sqlite" ? nodeSqliteDriver : betterSqlite3Driver;
}
