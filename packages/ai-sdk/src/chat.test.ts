// useChat's path end to end, read by the `ai` package's own chat (7 and 6): a real HTTP server,
// a memory store, the run started by the handler's host and continued by a worker.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type Tool } from "@toolnexus/core";
import { afterEach, describe, expect, it } from "vitest";
import { lastAssistant, type Part, serveChat, VERSIONS, visibleParts } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tool = (name: string, execute: Tool["execute"], extra: Partial<Tool> = {}): Tool => ({
  name,
  description: name,
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  execute,
  ...extra,
});

/** A client over a fresh memory store with a worker running, and the handler served. */
async function setup(tools: Tool[], turns: Parameters<typeof scriptedModel>[0]) {
  const store = memoryRunStore();
  const client = createClient({ model: scriptedModel(turns), tools, runs: store });
  const worker = new AbortController();
  const working = client.work({ signal: worker.signal, pollMs: 20 });
  cleanups.push(async () => {
    worker.abort();
    await working;
  });
  const served = await serveChat(store, client);
  cleanups.push(() => served.close());
  return { store, client, served };
}

const typesOf = (parts: Part[]) => parts.map((p) => `${p.type}${p.state ? `:${p.state}` : ""}`);

describe.each(VERSIONS)("useChat through $name", ({ chat: makeChat }) => {
  it("shows reasoning, text, a tool's output and the final text of one run as one message", async () => {
    const lookup = tool("lookup", async () => ({ output: "42", isError: false }));
    const { served } = await setup(
      [lookup],
      [
        {
          reasoning: "The user wants a number.",
          content: "Let me look.",
          toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "answer" } }],
        },
        { content: "It is 42." },
      ],
    );
    const chat = makeChat({ api: served.api, chatId: "a-1", token: "token-alice" });
    await chat.sendMessage("What is the answer?");
    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe("ready");
    const message = lastAssistant(chat.messages)!;
    expect(message.id).toBe(served.runs[0]);
    const parts = visibleParts(message).filter((p) => p.type !== "data-toolnexus-run");
    expect(typesOf(parts)).toEqual([
      "reasoning:done",
      "text:done",
      "tool-lookup:output-available",
      "text:done",
    ]);
    expect(parts.map((p) => p.text ?? p.output)).toEqual([
      "The user wants a number.",
      "Let me look.",
      "42",
      "It is 42.",
    ]);
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    const run = message.parts.find((p) => p.type === "data-toolnexus-run");
    expect(run?.data).toEqual({ runId: served.runs[0], state: "done" });
  });

  it("shows a tool's failure as a tool error and goes on", async () => {
    const flaky = tool("flaky", async () => {
      throw new Error("disk full");
    });
    const { served } = await setup(
      [flaky],
      [{ toolCalls: [{ id: "c1", name: "flaky" }] }, { content: "The tool failed." }],
    );
    const chat = makeChat({ api: served.api, chatId: "a-2", token: "token-alice" });
    await chat.sendMessage("Try it");
    const parts = visibleParts(lastAssistant(chat.messages)).filter(
      (p) => p.type !== "data-toolnexus-run",
    );
    expect(typesOf(parts)).toEqual(["tool-flaky:output-error", "text:done"]);
    expect(parts[0]!.errorText).toContain("disk full");
  });

  it("turns a toolnexus approval into the tool's approval request; approving runs it", async () => {
    let ran = 0;
    const rollback = tool(
      "rollback",
      async () => {
        ran += 1;
        return { output: "rolled back v2", isError: false };
      },
      { needsApproval: true },
    );
    const { served, store } = await setup(
      [rollback],
      [
        { toolCalls: [{ id: "c1", name: "rollback", arguments: { release: "v2" } }] },
        { content: "Rolled back." },
      ],
    );
    const chat = makeChat({ api: served.api, chatId: "a-3", token: "token-alice" });
    await chat.sendMessage("Roll back v2");
    const asked = lastAssistant(chat.messages)!;
    const part = asked.parts.find((p) => p.type === "tool-rollback")!;
    expect(part.state).toBe("approval-requested");
    expect(chat.status).toBe("ready");

    const finished = chat.nextFinish();
    await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
    expect(await finished).toEqual({ isError: false, isAbort: false });
    expect(ran).toBe(1);
    const message = lastAssistant(chat.messages)!;
    expect(message.id).toBe(asked.id);
    expect(chat.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
    const parts = visibleParts(message).filter((p) => p.type !== "data-toolnexus-run");
    expect(typesOf(parts)).toEqual(["tool-rollback:output-available", "text:done"]);
    expect(parts.map((p) => p.output ?? p.text)).toEqual(["rolled back v2", "Rolled back."]);
    const recorded = await store.getRequest(part.approval!.id);
    expect([recorded?.answer?.ok, recorded?.answeredBy]).toEqual([true, "alice"]);
  });

  it("declining an approval with a reason records it and shows the tool as denied", async () => {
    let ran = 0;
    const rollback = tool(
      "rollback",
      async () => {
        ran += 1;
        return { output: "rolled back", isError: false };
      },
      { needsApproval: true },
    );
    const { served, store } = await setup(
      [rollback],
      [{ toolCalls: [{ id: "c1", name: "rollback" }] }, { content: "I did not roll back." }],
    );
    const chat = makeChat({ api: served.api, chatId: "a-4", token: "token-alice" });
    await chat.sendMessage("Roll back");
    const part = lastAssistant(chat.messages)!.parts.find((p) => p.type === "tool-rollback")!;
    const finished = chat.nextFinish();
    await chat.addToolApprovalResponse({
      id: part.approval!.id,
      approved: false,
      reason: "not during the launch",
    });
    await finished;
    expect(ran).toBe(0);
    const parts = visibleParts(lastAssistant(chat.messages)).filter(
      (p) => p.type !== "data-toolnexus-run",
    );
    expect(typesOf(parts)).toEqual(["tool-rollback:output-denied", "text:done"]);
    expect(parts[1]!.text).toBe("I did not roll back.");
    const recorded = await store.getRequest(part.approval!.id);
    expect(recorded?.answer).toEqual({
      id: part.approval!.id,
      ok: false,
      reason: "declined",
      data: { reason: "not during the launch" },
    });
    expect(recorded?.answeredBy).toBe("alice");
  });

  it("shows an input question as a data part with its schema, answered through the web handler", async () => {
    const schema = {
      type: "object",
      properties: { env: { type: "string", enum: ["staging", "production"] } },
      required: ["env"],
      additionalProperties: false,
    };
    const deploy = tool("deploy", async (_args, ctx) =>
      ctx?.answer === undefined
        ? pending({ kind: "input", prompt: "Where to?", data: { schema } })
        : { output: `deployed to ${String(ctx.answer.data?.env)}`, isError: false },
    );
    const { served } = await setup(
      [deploy],
      [{ toolCalls: [{ id: "c1", name: "deploy" }] }, { content: "Shipped." }],
    );
    const chat = makeChat({ api: served.api, chatId: "a-5", token: "token-alice" });
    const asked = chat.nextData("data-toolnexus-request");
    const sent = chat.sendMessage("Ship it");
    const question = (await asked).data as { requestId: string; prompt: string; schema: unknown };
    expect(question).toMatchObject({
      kind: "input",
      prompt: "Where to?",
      schema,
      state: "waiting",
    });
    expect(chat.status).toBe("streaming"); // the stream stays open while the run waits

    const answer = (body: unknown) =>
      fetch(`${served.web}/requests/${question.requestId}/answer`, {
        method: "POST",
        headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const bad = await answer({ ok: true, data: { env: "moon" } });
    expect(bad.status).toBe(400);
    const answered = chat.nextData("data-toolnexus-request", (d) => d.state === "answered");
    expect((await answer({ ok: true, data: { env: "staging" } })).status).toBe(200);
    expect((await answered).data).toMatchObject({ ok: true, answeredBy: "alice" });
    await sent;
    const parts = visibleParts(lastAssistant(chat.messages)).filter(
      (p) => p.type !== "data-toolnexus-run",
    );
    expect(typesOf(parts)).toEqual([
      "tool-deploy:output-available",
      "data-toolnexus-request",
      "text:done",
    ]);
    expect(parts[0]!.output).toBe("deployed to staging");
    expect(parts[1]!.data).toMatchObject({ state: "answered", toolCallId: "c1" });
  });

  it("ends the message when the run is cancelled, saying who cancelled it", async () => {
    const wait = tool("wait", async () =>
      pending({ kind: "input", prompt: "Go on?", data: { schema: { type: "object" } } }),
    );
    const { served } = await setup([wait], [{ toolCalls: [{ id: "c1", name: "wait" }] }]);
    const chat = makeChat({ api: served.api, chatId: "a-6", token: "token-alice" });
    const asked = chat.nextData("data-toolnexus-request");
    const sent = chat.sendMessage("Wait for me");
    await asked;
    const cancelled = await fetch(`${served.web}/runs/${served.runs[0]}/cancel`, {
      method: "POST",
      headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
      body: JSON.stringify({ reason: "changed my mind" }),
    });
    expect(cancelled.status).toBe(200);
    await sent;
    expect(chat.error).toBeUndefined();
    const run = lastAssistant(chat.messages)!.parts.find((p) => p.type === "data-toolnexus-run");
    expect(run?.data).toEqual({
      runId: served.runs[0],
      state: "cancelled",
      by: "alice",
      reason: "changed my mind",
    });
  });
});
