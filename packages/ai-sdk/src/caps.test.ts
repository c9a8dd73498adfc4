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
