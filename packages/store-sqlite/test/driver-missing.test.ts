import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../src/test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Runs open-store.mjs in a Node whose better-sqlite3 binary cannot be loaded. */
function openWithoutNative(path: string, driver?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: "" };
  delete env.TOOLNEXUS_SQLITE_DRIVER;
  if (driver !== undefined) env.TOOLNEXUS_SQLITE_DRIVER = driver;
  const child = spawnSync(
    process.execPath,
    ["--require", fixture("no-native.cjs"), fixture("open-store.mjs"), path],
    { env, encoding: "utf8", timeout: 60_000 },
  );
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as {
    driver?: string;
    error?: { name: string; code: string; message: string; path: string };
  };
}

// better-sqlite3 is an optional dependency: its native build may fail at install.
describe("without a loadable better-sqlite3", () => {
  it("a store that needs it fails with store_open, saying what to install", () => {
    const path = tmp.file();
    const { error } = openWithoutNative(path, "better-sqlite3");
    expect(error).toMatchObject({ name: "SqliteStoreError", code: "store_open", path });
    expect(error!.message).toContain("better-sqlite3");
    expect(error!.message).toContain("npm install better-sqlite3");
    expect(error!.message).toContain("Node 24 and later use node:sqlite");
  }, 60_000);

  it("the running Node's store needs it below Node 24 only", () => {
    const path = tmp.file();
    const opened = openWithoutNative(path);
    if (Number(process.versions.node.split(".")[0]) >= 24) {
      expect(opened).toEqual({ driver: "node:sqlite" });
      expect(existsSync(path)).toBe(true);
    } else {
      expect(opened.error).toMatchObject({ code: "store_open", path });
      expect(opened.error!.message).toContain("npm install better-sqlite3");
    }
  }, 60_000);
});
