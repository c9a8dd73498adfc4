// A client going away mid-stream leaves nothing behind: the follower's store watch ends (counted
// through the store), even while the run sits in a long tool call and records nothing.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { RunStore } from "@toolnexus/core";
import { afterEach, describe, expect, it } from "vitest";
import { createChatHandler } from "./handler.js";
import { allowOwnChats, identifyByToken, newMessage, serveChat } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `store` with its open event watches counted; `idle()` resolves when none is left. */
function countingWatches(store: RunStore) {
  let open = 0;
  let onIdle: (() => void) | undefined;
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== "watchEvents") {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (runId: string, onEvent: () => void) => {
        const unwatch = target.watchEvents!(runId, onEvent);
        open++;
        let done = false;
        return () => {
          if (done) return;
          done = true;
          unwatch();
          if (--open === 0) onIdle?.();
        };
      };
    },
  });
  return {
    store: counted,
    open: () => open,
    idle: () =>
      open === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve)),
  };
}

/** A client whose one tool waits until the test ends, so the run records nothing meanwhile. */
function slowClient(store: RunStore) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  cleanups.push(() => release());
  return createClient({
    model: scriptedModel([
      { content: "working", toolCalls: [{ id: "call_slow", name: "slow" }] },
      { content: "done" },
    ]),
    tools: [
      {
        name: "slow",
        description: "Waits until the test lets it go",
        inputSchema: { type: "object", properties: {} },
        source: "custom",
        execute: async () => {
          await released;
          return { output: "ok", isError: false };
        },
      },
    ],
    runs: store,
  });
}

/** Reads `response` until `text` has come; returns the reader, the rest unread. */
async function readUntil(response: Response, text: string) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended early: ${seen}`);
    seen += value;
  }
  return reader;
}

describe("a client that goes away", () => {
  it("stops the stream's follower while the run waits in a tool", async () => {
    const watches = countingWatches(memoryRunStore());
    const client = slowClient(watches.store);
    const served = await serveChat(watches.store, client, { pollMs: 20 });
    cleanups.push(() => served.close());
    const controller = new AbortController();
    const response = await fetch(served.api, {
      method: "POST",
      signal: controller.signal,
      ...newMessage("a-1", "go"),
    });
    const reader = await readUntil(response, '"type":"tool-input-available"');
    expect(watches.open()).toBe(1);
    controller.abort();
    await reader.cancel().catch(() => {});
    await watches.idle();
    expect(watches.open()).toBe(0);
  });

  it("stops the follower when the host only cancels the body (its request signal never fires)", async () => {
    const watches = countingWatches(memoryRunStore());
    const client = slowClient(watches.store);
    const handler = createChatHandler({
      store: watches.store,
      identify: identifyByToken,
      allow: allowOwnChats,
      pollMs: 20,
      start: ({ chatId, prompt }) => {
        void client.run(prompt, { durable: true, runId: "r1", sessionId: chatId }).catch(() => {});
        return { runId: "r1" };
      },
    });
    const response = await handler(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        ...newMessage("a-1", "go"),
      }),
    );
    const reader = await readUntil(response, '"type":"tool-input-available"');
    expect(watches.open()).toBe(1);
    await reader.cancel();
    await watches.idle();
    expect(watches.open()).toBe(0);
  });
});
