// What the chat handler refuses, and how: typed JSON errors as @toolnexus/web gives them,
// before anything is started or recorded; someone else's chat looks like an empty one.
import { memoryRunStore } from "@toolnexus/client";
import { afterEach, describe, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { createChatHandler } from "./handler.js";
import { lastAssistant, serveChat, VERSIONS } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(extra: Parameters<typeof serveChat>[2] = {}) {
  const store = memoryRunStore();
  const served = await serveChat(store, agentClient(store), { pollMs: 20, ...extra });
  cleanups.push(() => served.close());
  return { store, served };
}

const userMessage = (text: string) => ({
  id: "u1",
  role: "user",
  parts: [{ type: "text", text }],
});

function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = { authorization: "Bearer token-alice" },
) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: { code: string; issues?: string[] } };
  return [response.status, body.error.code, body.error.issues];
}

describe("the chat handler refuses", () => {
  it("unknown callers, other sites, wrong routes and methods, malformed and oversized bodies", async () => {
    const { served, store } = await setup({ maxBodyBytes: 2_000 });
    const good = { id: "a-1", trigger: "submit-message", messages: [userMessage("hi")] };
    expect(await errorOf(await post(served.api, good, {}))).toEqual([
      401,
      "unauthenticated",
      undefined,
    ]);
    const foreign = await post(served.api, good, {
      authorization: "Bearer token-alice",
      origin: "https://evil.example",
    });
    expect((await errorOf(foreign)).slice(0, 2)).toEqual([403, "forbidden_origin"]);
    expect((await fetch(`${served.origin}/api/other`)).status).toBe(404);
    const get = await fetch(served.api, { headers: { authorization: "Bearer token-alice" } });
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    expect(await errorOf(await post(served.api, { id: "", trigger: "x", messages: [] }))).toEqual([
      400,
      "bad_request",
      [
        "id: the chat's id, 1 to 256 characters",
        'trigger: "submit-message" or "regenerate-message"',
        "messages: an array of 1 to 1000 messages",
      ],
    ]);
    const huge = { ...good, messages: [userMessage("x".repeat(3_000))] };
    expect((await errorOf(await post(served.api, huge))).slice(0, 2)).toEqual([
      413,
      "payload_too_large",
    ]);
    const regenerate = { ...good, trigger: "regenerate-message" };
    expect((await errorOf(await post(served.api, regenerate))).slice(0, 2)).toEqual([
      400,
      "bad_request",
    ]);
    const empty = { ...good, messages: [{ id: "u1", role: "user", parts: [] }] };
    expect((await errorOf(await post(served.api, empty))).slice(0, 2)).toEqual([
      400,
      "bad_request",
    ]);
    const assistant = { ...good, messages: [{ id: "m1", role: "assistant", parts: [] }] };
    expect((await errorOf(await post(served.api, assistant))).slice(0, 2)).toEqual([
      400,
      "bad_request",
    ]);
    expect(served.runs).toEqual([]); // nothing was started
    expect(await store.list()).toEqual([]);
  });

  it("a start the host does not allow, and a prompt over the cap", async () => {
    const store = memoryRunStore();
    const handler = createChatHandler({
      store,
      identify: () => ({ id: "alice" }),
      allow: () => false,
      start: () => {
        throw new Error("never called");
      },
    });
    const request = (text: string) =>
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id: "a-1",
          trigger: "submit-message",
          messages: [userMessage(text)],
        }),
      });
    expect((await errorOf(await handler(request("hi")))).slice(0, 2)).toEqual([403, "forbidden"]);
    const capped = createChatHandler({
      store,
      identify: () => ({ id: "alice" }),
      allow: () => true,
      maxPromptChars: 5,
      start: () => {
        throw new Error("never called");
      },
    });
    expect((await errorOf(await capped(request("too long")))).slice(0, 2)).toEqual([
      413,
      "payload_too_large",
    ]);
    expect(() => createChatHandler({ store, identify: () => undefined } as never)).toThrow(
      "createChatHandler: start must be a function",
    );
  });

  it("someone else's approval (404) and chat (204: nothing to resume)", async () => {
    const { served, store } = await setup();
    const chat = VERSIONS[0].chat({ api: served.api, chatId: "a-9", token: "token-alice" });
    await chat.sendMessage("roll back");
    const asked = lastAssistant(chat.messages)!;
    const part = asked.parts.find((p) => p.type === "tool-rollback")!;
    const responded = {
      ...asked,
      parts: asked.parts.map((p) =>
        p === part
          ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
          : p,
      ),
    };
    const body = { id: "b-1", trigger: "submit-message", messages: [userMessage("x"), responded] };
    const bob = await post(served.api, body, { authorization: "Bearer token-bob" });
    expect((await errorOf(bob)).slice(0, 2)).toEqual([404, "not_found"]);
    expect((await store.getRequest(part.approval!.id))?.state).toBe("waiting");

    const resume = (token: string, chatId: string) =>
      fetch(`${served.api}/${chatId}/stream`, { headers: { authorization: `Bearer ${token}` } });
    expect((await resume("token-bob", "a-9")).status).toBe(204);
    expect((await resume("token-alice", "a-unknown")).status).toBe(204);
    const mine = await resume("token-alice", "a-9");
    expect([mine.status, mine.headers.get("x-vercel-ai-ui-message-stream")]).toEqual([200, "v1"]);
    expect(await mine.text()).toContain('"type":"tool-approval-request"'); // it ends there
  });
});

describe("the chat index", () => {
  it("keeps each caller's chats apart: a post under another person's chat id never redirects their resume", async () => {
    const store = memoryRunStore();
    const client = agentClient(store);
    const runs: string[] = [];
    const served = await serveChat(store, client, {
      pollMs: 20,
      // Each run in a session of its caller's own, whatever chat id the browser sent.
      start: ({ caller, chatId, prompt }) => {
        const runId = `run-${runs.length + 1}`;
        runs.push(runId);
        const sessionId = `${caller.chats[0]}${chatId}`;
        void client.run(prompt, { durable: true, runId, sessionId }).catch(() => {});
        return { runId };
      },
    });
    cleanups.push(() => served.close());
    const chat = VERSIONS[0].chat({ api: served.api, chatId: "a-7", token: "token-alice" });
    await chat.sendMessage("roll back");
    const alicesRun = runs[0]!;
    // bob reuses alice's chat id (the browser picks it) for a run of his own
    const body = { id: "a-7", trigger: "submit-message", messages: [userMessage("hi")] };
    const bob = await post(served.api, body, { authorization: "Bearer token-bob" });
    expect(bob.status).toBe(200);
    expect(await bob.text()).toContain('"messageId":"run-2"');
    expect(runs).toHaveLength(2);
    const mine = await fetch(`${served.api}/a-7/stream`, {
      headers: { authorization: "Bearer token-alice" },
    });
    expect(mine.status).toBe(200);
    const text = await mine.text();
    expect(text).toContain(`"messageId":"${alicesRun}"`);
    expect(text).toContain('"type":"tool-approval-request"');
  });
});
