import type { Message } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { SqliteStoreError } from "./errors.js";
import { type SqliteStore, sqliteStore } from "./store.js";
import { openRaw, storePerTest } from "./test-fixtures.js";

let store: SqliteStore;
let path: string;
storePerTest((opened, file) => {
  store = opened;
  path = file;
});

const transcript: Message[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "hi" },
  {
    role: "assistant",
    id: "msg_1",
    content: "",
    toolCalls: [{ id: "c1", name: "clock", args: {}, rawArgs: "{}" }],
  },
  { role: "tool", callId: "c1", name: "clock", content: "12:00", isError: false },
  { role: "assistant", id: "msg_2", content: "It is noon. ✓" },
];

describe("conversations", () => {
  it("load is undefined for an unknown session", () => {
    expect(store.load("nobody")).toBeUndefined();
  });

  it("round-trips a transcript as plain JSON", () => {
    store.save("s1", transcript);
    const loaded = store.load("s1");
    expect(loaded).toEqual(transcript);
    expect(loaded).not.toBe(transcript);
  });

  it("a later save replaces the transcript", () => {
    store.save("s1", transcript);
    store.save("s1", transcript.slice(0, 2));
    expect(store.load("s1")).toEqual(transcript.slice(0, 2));
  });

  it("sessions are separate", () => {
    store.save("a", transcript.slice(0, 1));
    store.save("b", transcript.slice(0, 2));
    expect(store.load("a")).toHaveLength(1);
    expect(store.load("b")).toHaveLength(2);
  });

  it("another store on the same file sees the transcript", () => {
    store.save("shared", transcript);
    const other = sqliteStore({ path: path });
    expect(other.load("shared")).toEqual(transcript);
    other.save("shared", [...transcript, { role: "user", content: "thanks" }]);
    expect(store.load("shared")).toHaveLength(transcript.length + 1);
    other.close();
  });

  it("deleteConversation forgets a session", () => {
    store.save("s1", transcript);
    expect(store.deleteConversation("s1")).toBe(true);
    expect(store.load("s1")).toBeUndefined();
    expect(store.deleteConversation("s1")).toBe(false);
  });

  it("a corrupt transcript is a typed error naming the session; others still load", () => {
    store.save("good", transcript);
    store.save("bad", transcript);
    store.save("notalist", transcript);
    const db = openRaw(path);
    db.prepare("UPDATE conversations SET json = '[{\"role\":' WHERE session_id = 'bad'").run();
    db.prepare("UPDATE conversations SET json = '{\"a\":1}' WHERE session_id = 'notalist'").run();
    db.close();
    expect(() => store.load("bad")).toThrow(SqliteStoreError);
    expect(() => store.load("bad")).toThrow(/session "bad".*JSON is corrupt/);
    expect(() => store.load("notalist")).toThrow(/session "notalist".*not a list of messages/);
    expect(store.load("good")).toEqual(transcript);
  });
});
