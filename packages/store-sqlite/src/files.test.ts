import { chmodSync, chownSync, existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStoreError } from "./errors.js";
import { sqliteStore } from "./store.js";
import { checkpoint, request, tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
let umask: number;
beforeEach(() => {
  tmp = tempDir();
  // The usual umask, under which SQLite alone creates 0644 files, readable by every user.
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  tmp.cleanup();
});

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Opens a store on `path` and writes to it, so that SQLite has its -wal and -shm beside it. */
function openAndWrite(path: string, fileMode?: number) {
  const store = sqliteStore({ path, ...(fileMode === undefined ? {} : { fileMode }) });
  store.halt(checkpoint([request()]));
  store.save("session-1", [{ role: "user", content: "a secret" }]);
  expect(existsSync(`${path}-wal`)).toBe(true);
  expect(existsSync(`${path}-shm`)).toBe(true);
  return store;
}

describe("file permissions", () => {
  it("creates the database, its -wal and -shm owner-only (0600) under umask 022", () => {
    const path = tmp.file();
    const store = openAndWrite(path);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    expect(modeOf(`${path}-shm`)).toBe(0o600);
    store.close();
    expect(modeOf(path)).toBe(0o600);
  });

  it("narrows a world-readable database and its leftover -wal and -shm to 0600", () => {
    const path = tmp.file();
    openAndWrite(path).close();
    // As an older release left them under umask 022 (a crash keeps -wal and -shm).
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, "");
    writeFileSync(`${path}-shm`, "");
    chmodSync(`${path}-wal`, 0o644);
    chmodSync(`${path}-shm`, 0o666);
    const store = sqliteStore({ path });
    expect(store.getRun(store.list()[0]!.runId)).toBeDefined();
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    expect(modeOf(`${path}-shm`)).toBe(0o600);
    store.close();
  });

  it("never widens an existing file", () => {
    const path = tmp.file();
    openAndWrite(path).close();
    chmodSync(path, 0o600);
    sqliteStore({ path, fileMode: 0o660 }).close();
    expect(modeOf(path)).toBe(0o600);
  });

  it("leaves alone a file another user owns (only its owner may change it)", () => {
    const path = tmp.file();
    openAndWrite(path).close();
    chmodSync(path, 0o666);
    if (process.getuid?.() !== 0) {
      // Without root no file of another user can be made here; ours is narrowed instead.
      sqliteStore({ path }).close();
      expect(modeOf(path)).toBe(0o600);
      return;
    }
    chownSync(path, 65534, 65534);
    sqliteStore({ path }).close();
    expect(modeOf(path)).toBe(0o666);
  });

  it("fileMode is applied exactly, whatever the umask, and SQLite's side files follow it", () => {
    const path = tmp.file();
    const store = openAndWrite(path, 0o660);
    expect(modeOf(path)).toBe(0o660);
    expect(modeOf(`${path}-wal`)).toBe(0o660);
    expect(modeOf(`${path}-shm`)).toBe(0o660);
    store.close();
  });

  it("refuses a fileMode that would lock the owner out or is not a mode", () => {
    for (const fileMode of [0o400, 0o200, 0o1777, -1, 1.5, "0600"]) {
      expect(() => sqliteStore({ path: tmp.file(), fileMode: fileMode as number })).toThrow(
        /fileMode must be a permission mode from 0o600 to 0o777/,
      );
    }
    expect(existsSync(tmp.file())).toBe(false);
  });

  it("a backup is created owner-only too", async () => {
    const store = openAndWrite(tmp.file());
    const copy = join(tmp.dir, "copies", "backup.db");
    await store.backup(copy);
    expect(modeOf(copy)).toBe(0o600);
    expect(modeOf(join(tmp.dir, "copies"))).toBe(0o700);
    const reopened = sqliteStore({ path: copy });
    expect(reopened.load("session-1")).toEqual([{ role: "user", content: "a secret" }]);
    reopened.close();
    store.close();
  });

  it("a backup whose folder cannot be created is a store_backup error naming it", async () => {
    const store = openAndWrite(tmp.file());
    writeFileSync(join(tmp.dir, "a-file"), "");
    const copy = join(tmp.dir, "a-file", "sub", "backup.db");
    const thrown = await store.backup(copy).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(SqliteStoreError);
    expect((thrown as SqliteStoreError).code).toBe("store_backup");
    expect((thrown as Error).message).toContain(join(tmp.dir, "a-file", "sub"));
    store.close();
  });
});

describe("the folder", () => {
  it("a missing folder is created, with its missing parents, owner-only (0700)", () => {
    const path = join(tmp.dir, "data", "deeper", "store.db");
    openAndWrite(path).close();
    expect(modeOf(join(tmp.dir, "data"))).toBe(0o700);
    expect(modeOf(join(tmp.dir, "data", "deeper"))).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
  });

  it("an existing folder keeps its permissions", () => {
    chmodSync(tmp.dir, 0o755);
    openAndWrite(tmp.file()).close();
    expect(modeOf(tmp.dir)).toBe(0o755);
  });

  it("a folder that cannot be created is a store_open error naming it", () => {
    writeFileSync(join(tmp.dir, "a-file"), "");
    const folder = join(tmp.dir, "a-file", "sub");
    const path = join(folder, "store.db");
    let thrown: unknown;
    try {
      sqliteStore({ path });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SqliteStoreError);
    expect((thrown as SqliteStoreError).code).toBe("store_open");
    expect((thrown as SqliteStoreError).path).toBe(path);
    expect((thrown as Error).message).toContain(`cannot create the folder "${folder}"`);
  });

  it("a path that is itself a folder is a store_open error", () => {
    expect(() => sqliteStore({ path: tmp.dir })).toThrow(SqliteStoreError);
  });
});
