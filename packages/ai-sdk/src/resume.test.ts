// useChat's resume at the transport level (`reconnectToStream`, what a reload calls): the
// resumed stream replays the run's message from its start with the same ids, so the chat's
// reset-and-replay gives the message once, nothing lost and nothing repeated, whatever the
// page kept. Read by each `ai` version's own transport and stream reader.
import { memoryRunStore } from "@toolnexus/client";
import { afterEach, describe, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { serveChat, VERSIONS } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Chunk {
  type: string;
  id?: string;
  toolCallId?: string;
  messageId?: string;
  data?: { state?: string; requestId?: string };
}

/** Reads chunks until `until` holds for one (that one included), leaving the reader open. */
async function readUntil(
  reader: ReadableStreamDefaultReader<unknown>,
  into: Chunk[],
  until: (chunk: Chunk) => boolean,
): Promise<void> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before the awaited chunk: ${JSON.stringify(into)}`);
    into.push(value as Chunk);
    if (until(value as Chunk)) return;
  }
}

async function readToEnd(reader: ReadableStreamDefaultReader<unknown>, into: Chunk[]) {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    into.push(value as Chunk);
  }
}

describe.each(VERSIONS)("reconnectToStream with $name", ({ mod }) => {
  it("replays the message mid-run with the same ids, then the rest, each part once", async () => {
    const store = memoryRunStore();
    const client = agentClient(store);
    const worker = new AbortController();
    const working = client.work({ signal: worker.signal, pollMs: 20 });
    cleanups.push(async () => {
      worker.abort();
      await working;
    });
    const served = await serveChat(store, client, { pollMs: 20 });
    cleanups.push(() => served.close());
    const Transport = mod.DefaultChatTransport as typeof import("ai").DefaultChatTransport;
    const transport = new Transport({
      api: served.api,
      headers: { authorization: "Bearer token-alice" },
    });
    const chatId = "a-resume";

    // The first stream, cut once the run waits on its question (the page goes away).
    const cut = new AbortController();
    const first = await transport.sendMessages({
      chatId,
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: cut.signal,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "deploy" }] }],
    });
    const seen: Chunk[] = [];
    const firstReader = first.getReader();
    await readUntil(firstReader, seen, (c) => c.type === "data-toolnexus-request");
    await firstReader.cancel();
    cut.abort();

    // The reload: the resumed stream starts with the same chunks, then goes on with the rest.
    const resumed = await transport.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    const replay: Chunk[] = [];
    const reader = resumed!.getReader();
    await readUntil(reader, replay, (c) => c.type === "data-toolnexus-request");
    expect(replay).toEqual(seen);
    const question = replay.at(-1)!.data!;
    const answer = await fetch(`${served.web}/requests/${question.requestId}/answer`, {
      method: "POST",
      headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
      body: JSON.stringify({ ok: true, data: { env: "staging" } }),
    });
    expect(answer.status).toBe(200);
    await readToEnd(reader, replay);

    // Each part starts once and ends once; each call is announced once and ends once.
    const count = (type: string, key: (c: Chunk) => string | undefined) => {
      const counts = new Map<string, number>();
      for (const c of replay) {
        if (c.type === type) counts.set(key(c)!, (counts.get(key(c)!) ?? 0) + 1);
      }
      return [...counts.values()];
    };
    expect(count("text-start", (c) => c.id)).toEqual([1, 1]);
    expect(count("text-end", (c) => c.id)).toEqual([1, 1]);
    expect(count("tool-input-available", (c) => c.toolCallId)).toEqual([1]);
    expect(count("tool-output-available", (c) => c.toolCallId)).toEqual([1]);
    expect(replay.filter((c) => c.type === "start").map((c) => c.messageId)).toEqual([
      served.runs[0],
    ]);
    expect(replay.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    // The AI SDK's own reader builds the message from the resumed stream alone.
    let message:
      | { id: string; parts: { type: string; text?: string; output?: unknown }[] }
      | undefined;
    const chunks = new ReadableStream({
      start(controller) {
        for (const c of replay) controller.enqueue(c);
        controller.close();
      },
    });
    const read = mod.readUIMessageStream as typeof import("ai").readUIMessageStream;
    for await (const snapshot of read({ stream: chunks as never })) message = snapshot as never;
    expect(message?.id).toBe(served.runs[0]);
    expect(
      message?.parts
        .filter((p) => p.type !== "step-start" && p.type !== "data-toolnexus-run")
        .map((p) => `${p.type} ${String(p.text ?? p.output ?? "")}`.trim()),
    ).toEqual([
      "text Checking.",
      "tool-deploy deployed to staging",
      "data-toolnexus-request",
      "text Done: deployed to staging",
    ]);

    // Once the run ended there is nothing to resume: 204, which the transport reads as null.
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
  });
});
