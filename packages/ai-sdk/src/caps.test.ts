// Every stream is bounded: one that outlives maxStreamMs ends (without finish, so useChat can
// resume it), and a start whose run never reaches the store ends with an error chunk.
import { memoryRunStore } from "@toolnexus/client";
import { afterEach, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { serveChat } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ask = (api: string, text: string) =>
  fetch(api, {
    method: "POST",
    headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
    body: JSON.stringify({
      id: "a-caps",
      trigger: "submit-message",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
    }),
  });

const chunksOf = (text: string) =>
  text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: {"))
    .map((frame) => JSON.parse(frame.slice(6)) as { type: string; errorText?: string });

it("ends a stream at maxStreamMs without finish; the chat's run is still there to resume", async () => {
  const store = memoryRunStore();
  const served = await serveChat(store, agentClient(store), { pollMs: 10, maxStreamMs: 300 });
  cleanups.push(() => served.close());
  // The run waits on a question (the stream would stay open): the cap ends it.
  const response = await ask(served.api, "deploy");
  const text = await response.text();
  const chunks = chunksOf(text);
  expect(chunks[0]?.type).toBe("start");
  expect(chunks.map((c) => c.type)).not.toContain("finish");
  expect(text).not.toContain("[DONE]");
  const resumed = await fetch(`${served.api}/a-caps/stream`, {
    headers: { authorization: "Bearer token-alice" },
  });
  expect(resumed.status).toBe(200);
  await resumed.body!.cancel();
});

it("ends a new run's stream with an error when the run never reaches the store", async () => {
  const store = memoryRunStore();
  const served = await serveChat(store, agentClient(store), {
    pollMs: 10,
    startTimeoutMs: 50,
    start: () => ({ runId: "never-stored" }),
  });
  cleanups.push(() => served.close());
  const chunks = chunksOf(await (await ask(served.api, "hello")).text());
  expect(chunks).toEqual([
    { type: "start", messageId: "never-stored" },
    { type: "error", errorText: "the run did not start: it is not in the store" },
    { type: "finish", finishReason: "error" },
  ]);
});

it("refuses a caller's stream past maxStreamsPerCaller with 429, before starting anything", async () => {
  const store = memoryRunStore();
  let starts = 0;
  const served = await serveChat(store, agentClient(store), {
    pollMs: 20,
    maxStreamsPerCaller: 1,
    startTimeoutMs: 600_000,
    // Never stored: each stream waits for its run, holding its slot until the client leaves.
    start: () => ({ runId: `never-stored-${++starts}` }),
  });
  cleanups.push(() => served.close());
  const leave = new AbortController();
  cleanups.push(() => leave.abort());
  const post = (token: string, chatId: string) =>
    fetch(served.api, {
      method: "POST",
      signal: leave.signal,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: chatId,
        trigger: "submit-message",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
      }),
    });
  // A refused request holds no slot: a 404 and a 400 come and go.
  const alice = { authorization: "Bearer token-alice" };
  expect((await fetch(`${served.api}/x/y`, { headers: alice })).status).toBe(404);
  const bad = await fetch(served.api, {
    method: "POST",
    headers: { ...alice, "content-type": "application/json" },
    body: "{}",
  });
  expect(bad.status).toBe(400);

  expect((await post("token-alice", "a-1")).status).toBe(200);
  const second = await post("token-alice", "a-2");
  expect(second.status).toBe(429);
  expect(((await second.json()) as { error: { code: string } }).error.code).toBe(
    "too_many_streams",
  );
  expect(starts).toBe(1); // nothing was started for the refused one
  expect((await post("token-bob", "b-1")).status).toBe(200); // bob's slots are his own
  expect(starts).toBe(2);
});
