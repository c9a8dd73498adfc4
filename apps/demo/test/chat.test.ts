// The chat routes of the demo's server, in-process over a real SQLite file, read with the AI
// SDK's own transport and stream reader (as `useChat` reads them): a message starts a run whose
// stream shows the first turn's calls and then deploy's question with its JSON Schema; answering
// it through /api goes on to the rollback's approval. A chat's stream after a reload replays
// the same message. Posts from another origin are refused.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ToolnexusDataParts } from "@toolnexus/ai-sdk";
import { type SqliteStore, sqliteStore } from "@toolnexus/store-sqlite";
import {
  DefaultChatTransport,
  isToolUIPart,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedReleaseModel } from "../src/director.js";
import { handler, Inbox } from "../src/server.js";
import { demoClient } from "../src/setup.js";
import { DEPLOY_ANSWER_SCHEMA } from "../src/tools.js";
import { tempDir } from "./processes.js";

type ChatMessage = UIMessage<unknown, ToolnexusDataParts>;

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
let server: Server;
let base: string;

beforeEach(async () => {
  tmp = tempDir();
  store = sqliteStore({ path: tmp.file("demo.db") });
  const model = scriptedReleaseModel();
  const log = () => {};
  const inbox = new Inbox(store, demoClient({ model, store }), log);
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  // This server continues answered runs itself (serve leaves that to its worker process).
  server.on("request", handler(inbox, store, new Set([`127.0.0.1:${port}`]), log, "tester@here"));
  base = `http://127.0.0.1:${port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  store.close();
  tmp.cleanup();
});

/** Reads a chat stream until `until` holds for the message so far; then stops reading. */
async function readUntil(
  stream: ReadableStream<UIMessageChunk>,
  until: (message: ChatMessage) => boolean,
): Promise<ChatMessage> {
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream })) {
    last = message;
    if (until(message)) break;
  }
  expect(last).toBeDefined();
  return last!;
}

function waitingRequest(message: ChatMessage) {
  for (const part of message.parts) {
    if (part.type === "data-toolnexus-request" && part.data.state === "waiting") return part.data;
  }
  return undefined;
}

describe("the chat routes", () => {
  it("start a run from a message, show its calls and the question's schema, and go on once it is answered", async () => {
    const transport = new DefaultChatTransport<ChatMessage>({ api: `${base}/api/chat` });
    const controller = new AbortController();
    const stream = await transport.sendMessages({
      chatId: "chat-1",
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: controller.signal,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Please ship 2.4.1." }] }],
    });
    const halted = await readUntil(stream, (m) => waitingRequest(m) !== undefined);
    const question = waitingRequest(halted)!;
    expect(question).toMatchObject({
      kind: "input",
      prompt: "Which environment should 2.4.1 go to?",
    });
    expect(question.schema).toEqual(DEPLOY_ANSWER_SCHEMA);
    const calls = halted.parts.filter(isToolUIPart).map((p) => p.type);
    expect(calls).toEqual([
      "tool-whoami",
      "tool-fetch_status",
      "tool-fetch_status",
      "tool-write_release_notes",
      "tool-deploy",
    ]);

    // A reload: the chat's stream is the same message again, from its start.
    const resumed = await transport.reconnectToStream({
      chatId: "chat-1",
      abortSignal: controller.signal,
    });
    expect(resumed).not.toBeNull();
    const again = await readUntil(resumed!, (m) => waitingRequest(m) !== undefined);
    expect(again.id).toBe(halted.id);
    expect(again.parts.map((p) => p.type)).toEqual(halted.parts.map((p) => p.type));

    const answered = await fetch(`${base}/api/requests/${question.requestId}/answer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ok: true, data: { env: "staging" } }),
    });
    expect(answered.status).toBe(200);
    const next = await transport.reconnectToStream({
      chatId: "chat-1",
      abortSignal: controller.signal,
    });
    const approval = await readUntil(next!, (m) =>
      m.parts.some((p) => isToolUIPart(p) && p.state === "approval-requested"),
    );
    const rollback = approval.parts.filter(isToolUIPart).find((p) => p.type === "tool-rollback");
    expect(rollback?.state).toBe("approval-requested");
    controller.abort();
  });

  it("refuse a post from another origin, and say 204 for a chat with no run", async () => {
    const refused = await fetch(`${base}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://attacker.example" },
      body: JSON.stringify({
        id: "chat-2",
        trigger: "submit-message",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "ship it" }] }],
      }),
    });
    expect(refused.status).toBe(403);
    expect(store.list({ limit: 10 })).toEqual([]);
    const none = await fetch(`${base}/api/chat/chat-2/stream`);
    expect(none.status).toBe(204);
  });
});
