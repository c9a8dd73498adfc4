// The checkpoint text this store keeps: core's compact stored form (format 3), read back as the
// complete checkpoint; rows written by earlier releases (version 2 text) still read and claim.
import { encodeCheckpoint } from "@toolnexus/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "./store.js";
import { checkpoint, openRaw, request, tempDir } from "./test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  store?.close();
  store = undefined;
  tmp.cleanup();
});

const storedText = (runId: string): string => {
  const db = openRaw(tmp.file());
  try {
    const row = db.prepare("SELECT checkpoint_json FROM runs WHERE run_id = ?").get(runId) as {
      checkpoint_json: string;
    };
    return row.checkpoint_json;
  } finally {
    db.close();
  }
};

describe("stored checkpoint text", () => {
  it("is core's compact form, and reads back as the checkpoint that was halted", () => {
    store = sqliteStore({ path: tmp.file() });
    const asked = request();
    const original = checkpoint([asked], { runId: "run_compact" });
    store.halt(original);
    const text = storedText("run_compact");
    expect(text).toBe(encodeCheckpoint(original));
    expect(text.length).toBeLessThan(JSON.stringify(original).length);
    expect(store.getRun("run_compact")?.checkpoint).toStrictEqual(original);
    store.answer({ id: asked.id, ok: true });
    const claimed = store.claim({ owner: "w", leaseMs: 60_000, runId: "run_compact" });
    expect(claimed?.checkpoint).toStrictEqual(original);
  });

  it("a row an earlier release wrote (version 2 text) reads and claims as before", () => {
    store = sqliteStore({ path: tmp.file() });
    const asked = request();
    const original = checkpoint([asked], { runId: "run_v2" });
    store.halt(original);
    const db = openRaw(tmp.file());
    try {
      db.prepare("UPDATE runs SET checkpoint_json = ? WHERE run_id = 'run_v2'").run(
        JSON.stringify(original),
      );
    } finally {
      db.close();
    }
    expect(store.getRun("run_v2")?.checkpoint).toStrictEqual(original);
    store.answer({ id: asked.id, ok: true });
    const claimed = store.claim({ owner: "w", leaseMs: 60_000, runId: "run_v2" });
    expect(claimed?.checkpoint).toStrictEqual(original);
  });
});
