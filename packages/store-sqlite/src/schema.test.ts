import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStoreError } from "./errors.js";
import { SCHEMA_VERSION } from "./schema.js";
import { sqliteStore } from "./store.js";
import { checkpoint, request, tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const raw = (path: string) => new Database(path);

describe("schema", () => {
  it("is created on first open, versioned, in WAL mode", () => {
    const path = tmp.file();
    sqliteStore({ path }).close();
    const db = raw(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(["checkpoints", "conversations", "requests"]);
    db.close();
  });

  it("reopens an existing file and keeps its rows", () => {
    const path = tmp.file();
    const first = sqliteStore({ path });
    const r = request();
    first.save(checkpoint([r]));
    first.close();
    const second = sqliteStore({ path });
    expect(second.get(r.id)?.pending[0]?.request).toEqual(r);
    second.close();
  });

  it("two processes' worth of stores opening a new file at once both work", () => {
    const path = tmp.file();
    const a = sqliteStore({ path });
    const b = sqliteStore({ path });
    const r = request();
    a.save(checkpoint([r]));
    expect(b.get(r.id)).toBeDefined();
    a.close();
    b.close();
  });

  it("refuses a file written by a newer schema with a clear error, without changing it", () => {
    const path = tmp.file();
    sqliteStore({ path }).close();
    const db = raw(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    let caught: unknown;
    try {
      sqliteStore({ path });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SqliteStoreError);
    const error = caught as SqliteStoreError;
    expect(error.code).toBe("store_schema");
    expect(error.path).toBe(path);
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(error.message).toContain(`up to version ${SCHEMA_VERSION}`);
    expect(error.message).toContain("upgrade @toolnexus/store-sqlite");

    const after = raw(path);
    expect(after.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1);
    after.close();
  });

  it("a file that is not a database is a store_open error naming the path", () => {
    const path = tmp.file("garbage.db");
    writeFileSync(path, "this is not a sqlite database, just text ".repeat(100));
    expect(() => sqliteStore({ path })).toThrow(SqliteStoreError);
    try {
      sqliteStore({ path });
    } catch (error) {
      expect((error as SqliteStoreError).code).toBe("store_open");
      expect((error as Error).message).toContain(path);
    }
  });

  it("a missing folder is a store_open error naming the path", () => {
    const path = join(tmp.dir, "no", "such", "folder", "store.db");
    expect(() => sqliteStore({ path })).toThrow(/cannot open the toolnexus store at ".*store\.db"/);
  });

  it("rejects an empty path", () => {
    expect(() => sqliteStore({ path: "" })).toThrow(TypeError);
  });
});
