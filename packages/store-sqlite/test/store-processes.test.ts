import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/store.js";
import { checkpoint, request, tempDir } from "../src/test-fixtures.js";
import { startFixture } from "./processes.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

interface Outcome {
  won: string[];
  lost: string[];
  other: string[];
}

describe("claim across processes (the store alone)", () => {
  it("four processes claiming the same 200 requests at once: each is taken exactly once", async () => {
    const path = tmp.file();
    const store = sqliteStore({ path });
    const ids = Array.from({ length: 200 }, () => request().id);
    for (const id of ids) store.save(checkpoint([{ id, kind: "approval", prompt: "ok?" }]));
    store.close();

    // Each process walks the ids in its own order, so they collide all over the list.
    const orders = [ids, [...ids].reverse(), ids.slice(100).concat(ids.slice(0, 100)), ids];
    const fixtures = orders.map((order) => startFixture("claim-all.mjs", [path, ...order]));
    await Promise.all(fixtures.map((f) => f.line((v) => v.ready === true)));
    for (const f of fixtures) f.send("go");
    const outcomes = await Promise.all(fixtures.map((f) => f.line<Outcome>((v) => "won" in v)));
    await Promise.all(fixtures.map((f) => f.exited));

    const winners = outcomes.flatMap((o) => o.won);
    expect(outcomes.flatMap((o) => o.other)).toEqual([]);
    expect(winners).toHaveLength(ids.length);
    expect(new Set(winners)).toEqual(new Set(ids));
    expect(outcomes.reduce((n, o) => n + o.lost.length, 0)).toBe(ids.length * 3);

    const after = sqliteStore({ path });
    expect(after.list({ state: "resumed" })).toHaveLength(ids.length);
    after.close();
  }, 60_000);

  it("several processes creating a new file at once: one schema, every save kept", async () => {
    const path = tmp.file("fresh.db");
    const ids = ["pnd_1", "pnd_2", "pnd_3", "pnd_4"];
    const fixtures = ids.map((id) => startFixture("open-and-save.mjs", [path, id]));
    await Promise.all(fixtures.map((f) => f.line((v) => v.ready === true)));
    for (const f of fixtures) f.send("go");
    const outcomes = await Promise.all(
      fixtures.map((f) => f.line<{ saved: string | null; error?: string }>((v) => "saved" in v)),
    );
    expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined, undefined, undefined]);
    const store = sqliteStore({ path });
    expect(
      store
        .list()
        .map((s) => s.request.id)
        .sort(),
    ).toEqual(ids);
    store.close();
  }, 60_000);
});
