import { MAX_STORE_ID_CHARS, type Message } from "@toolnexus/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { key } from "./connection.js";
import { type PostgresStore, postgresStore } from "./index.js";

let store: PostgresStore;
let url: string;
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "conversations");
  store = postgresStore({ connectionString: url });
});
afterAll(() => store.close());

describe("conversations", () => {
  it("saves, loads, replaces and deletes a session's transcript", async () => {
    expect(await store.load("s1")).toBeUndefined();
    const messages: Message[] = [
      { role: "user", content: "hi \u0000 there" },
      { role: "assistant", id: "m1", content: "hello" },
    ];
    const saving = store.save("s1", messages);
    messages.push({ role: "user", content: "changed before the save finished" });
    await saving;
    expect(await store.load("s1")).toEqual(messages.slice(0, 2));
    await store.save("s1", [{ role: "user", content: "again" }]);
    expect(await store.load("s1")).toEqual([{ role: "user", content: "again" }]);
    const huge = `s_${"x".repeat(MAX_STORE_ID_CHARS - 2)}`;
    await store.save(huge, []);
    expect(await store.load(huge)).toEqual([]);
    expect(await store.deleteConversation("s1")).toBe(true);
    expect(await store.deleteConversation("s1")).toBe(false);
    expect(await store.load("s1")).toBeUndefined();
  });

  it("a corrupt transcript is a conversation_corrupt error naming the session", async () => {
    await store.save("s2", []);
    const admin = new pg.Client(url);
    await admin.connect();
    await admin.query("UPDATE toolnexus.conversations SET json = '{' WHERE session_key = $1", [
      key("s2"),
    ]);
    await admin.end();
    await expect(store.load("s2")).rejects.toMatchObject({
      name: "PostgresStoreError",
      code: "conversation_corrupt",
      message: expect.stringContaining('session "s2"'),
    });
  });
});
