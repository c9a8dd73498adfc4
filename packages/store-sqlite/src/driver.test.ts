import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Driver } from "./driver.js";
import { betterSqlite3Driver } from "./driver-better-sqlite3.js";
import { nodeSqliteDriver } from "./driver-node-sqlite.js";
import { currentDriver, DRIVER_VARIABLE, driverNameFor } from "./driver-select.js";
import { tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  delete process.env[DRIVER_VARIABLE];
  tmp.cleanup();
});

describe("the driver of each Node", () => {
  it("is node:sqlite from Node 24, better-sqlite3 before", () => {
    expect(driverNameFor("20.19.0")).toBe("better-sqlite3");
    expect(driverNameFor("22.23.3")).toBe("better-sqlite3");
    expect(driverNameFor("v24.0.0")).toBe("node:sqlite");
    expect(driverNameFor("24.21.0")).toBe("node:sqlite");
    expect(driverNameFor("26.1.0")).toBe("node:sqlite");
    expect(currentDriver().name).toBe(driverNameFor(process.versions.node));
  });

  it(`${DRIVER_VARIABLE} overrides the choice; anything but a driver's name is refused`, () => {
    process.env[DRIVER_VARIABLE] = "node:sqlite";
    expect(currentDriver().name).toBe("node:sqlite");
    process.env[DRIVER_VARIABLE] = "better-sqlite3";
    expect(currentDriver().name).toBe("better-sqlite3");
    process.env[DRIVER_VARIABLE] = "sqlite3";
    expect(() => currentDriver()).toThrow(/must be "better-sqlite3" or "node:sqlite"/);
  });
});

// Every driver this Node can run in-process: better-sqlite3 below Node 24 (on 24 it would abort),
// node:sqlite where Node has it (22.13+, with an experimental warning on 22).
const drivers: Driver[] = [
  ...(driverNameFor(process.versions.node) === "better-sqlite3" ? [betterSqlite3Driver] : []),
  ...(process.getBuiltinModule?.("node:sqlite") ? [nodeSqliteDriver] : []),
];

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s", (_name, driver) => {
  const open = () => {
    const db = driver.open(tmp.file(), { timeoutMs: 1000 });
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)");
    return db;
  };

  it("runs, reads rows and plucks first columns, with positional and named parameters", () => {
    const db = open();
    const insert = db.prepare<[number, string, number | null]>("INSERT INTO t VALUES (?, ?, ?)");
    expect(insert.run(1, "a", 1.5).changes).toBe(1);
    insert.run(2, "b", null);
    const named = db.prepare<[{ id: number; name: string }]>(
      "INSERT INTO t (id, name) VALUES (@id, @name)",
    );
    named.run({ id: 3, name: "c" });
    const rows = db.prepare<[], { id: number; name: string }>("SELECT id, name FROM t ORDER BY id");
    expect(rows.all().map((row) => ({ ...row }))).toEqual([
      { id: 1, name: "a" },
      { id: 2, name: "b" },
      { id: 3, name: "c" },
    ]);
    expect({ ...rows.get() }).toEqual({ id: 1, name: "a" });
    const names = db.prepare<[number], string>("SELECT name FROM t WHERE id >= ? ORDER BY id");
    expect(names.pluck().all(2)).toEqual(["b", "c"]);
    expect(names.get(3)).toBe("c");
    expect(names.get(9)).toBeUndefined();
    expect(db.prepare("SELECT score FROM t WHERE id = 1").pluck().get()).toBe(1.5);
    expect(db.prepare<[]>("DELETE FROM t WHERE id > 1").run().changes).toBe(2);
    db.close();
  });

  it("commits a transaction, rolls back one that throws, and nests as a savepoint", () => {
    const db = open();
    const insert = db.prepare<[number, string]>("INSERT INTO t (id, name) VALUES (?, ?)");
    const count = db.prepare<[], number>("SELECT count(*) FROM t").pluck();
    const inner = db.transaction((id: number) => {
      insert.run(id, "inner");
      if (id === 31) throw new Error("inner fails");
    });
    const outer = db.transaction((id: number) => {
      insert.run(id, "outer");
      try {
        inner(id + 1);
      } catch {
        // The savepoint rolled back only the inner insert.
      }
      return count.get();
    });
    expect(outer.immediate(1)).toBe(2); // outer 1, inner 2
    expect(outer(12)).toBe(4); // outer 12, inner 13
    expect(outer(30)).toBe(5); // outer 30, inner 31 rolled back
    expect(() =>
      db.transaction(() => {
        insert.run(40, "gone");
        throw new Error("boom");
      })(),
    ).toThrow("boom");
    expect(count.get()).toBe(5);
    // Nothing left open: a new transaction begins.
    db.transaction(() => insert.run(50, "after")).immediate();
    expect(count.get()).toBe(6);
    db.close();
  });

  it("reads and sets pragmas, backs up, and reports whether it is open", async () => {
    const db = open();
    expect(db.pragma("journal_mode = WAL")).toEqual([
      expect.objectContaining({ journal_mode: "wal" }),
    ]);
    db.pragma("user_version = 7");
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    db.prepare<[number, string]>("INSERT INTO t (id, name) VALUES (?, ?)").run(1, "kept");
    const copy = tmp.file("copy.db");
    await db.backup(copy);
    expect(db.open).toBe(true);
    db.close();
    expect(db.open).toBe(false);
    const restored = driver.open(copy);
    expect(restored.prepare("SELECT name FROM t").pluck().all()).toEqual(["kept"]);
    expect(restored.pragma("user_version", { simple: true })).toBe(7);
    restored.close();
  });

  it("waits for another connection's write lock up to its timeout, then fails", () => {
    const path = tmp.file();
    const holder = driver.open(path, { timeoutMs: 1000 });
    holder.exec("CREATE TABLE t (x)");
    const waiter = driver.open(path, { timeoutMs: 50 });
    holder.exec("BEGIN IMMEDIATE");
    expect(() =>
      waiter.transaction(() => waiter.exec("INSERT INTO t VALUES (1)")).immediate(),
    ).toThrow(/locked|busy/i);
    holder.exec("COMMIT");
    waiter.transaction(() => waiter.exec("INSERT INTO t VALUES (1)")).immediate();
    expect(holder.prepare("SELECT count(*) FROM t").pluck().get()).toBe(1);
    holder.close();
    waiter.close();
  });
});
