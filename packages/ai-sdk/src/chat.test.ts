// useChat's path end to end, read by the `ai` package's own chat (7 and 6): a real HTTP server,
// a memory store, the run started by the handler's host and continued by a worker.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { followRunEvents, pending, type Tool } from "@toolnexus/core";
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

  it("two approvals of one turn: the chat sends once both are answered; one alone ends at once", async () => {
    const ran: string[] = [];
    const act = (name: string) =>
      tool(
        name,
        async () => {
          ran.push(name);
          return { output: `${name} done`, isError: false };
        },
        { needsApproval: true },
      );
    const { served, store } = await setup(
      [act("stop_db"), act("start_db")],
      [
        {
          toolCalls: [
            { id: "c1", name: "stop_db" },
            { id: "c2", name: "start_db" },
          ],
        },
        { content: "Restarted." },
      ],
    );
    const chat = makeChat({ api: served.api, chatId: "a-7", token: "token-alice" });
    await chat.sendMessage("Restart the database");
    const asked = lastAssistant(chat.messages)!;
    const [stop, start] = ["tool-stop_db", "tool-start_db"].map(
      (type) => asked.parts.find((p) => p.type === type)!,
    );
    expect([stop!.state, start!.state]).toEqual(["approval-requested", "approval-requested"]);
    expect(stop!.approval!.id).not.toBe(start!.approval!.id);

    // Sent by hand with one response only: recorded; start_db's approval still waits.
    const oneAnswered = {
      ...asked,
      parts: asked.parts.map((p) =>
        p === stop
          ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
          : p,
      ),
    };
    const early = await fetch(served.api, {
      method: "POST",
      headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
      body: JSON.stringify({
        id: "a-7",
        trigger: "submit-message",
        messageId: asked.id,
        messages: [...chat.messages.slice(0, -1), oneAnswered],
      }),
    });
    const text = await early.text();
    // It ends on the approval still waiting: at once, or (when a worker already went on with
    // the one answer) after stop_db's output, where the run halted again.
    expect(text).toContain('{"type":"finish","finishReason":"tool-calls"}');
    expect(text).not.toContain('"toolCallId":"c2","output"');
    expect(await store.getRequest(stop!.approval!.id)).toMatchObject({
      answer: { ok: true },
      answeredBy: "alice",
    });

    // A worker goes on with the one answer (stop_db runs) and the run halts again on the other.
    let suspensions = 0;
    for await (const event of followRunEvents(store, served.runs[0]!)) {
      if (event.type === "suspended" && ++suspensions === 2) break;
    }
    expect(ran).toEqual(["stop_db"]);

    // A reload now: the replay goes past the first halt (the run went on from it), shows
    // stop_db's output and ends on the approval still waiting.
    const reloaded = makeChat({
      api: served.api,
      chatId: "a-7",
      token: "token-alice",
      messages: structuredClone(chat.messages),
    });
    await reloaded.resumeStream();
    const replayed = visibleParts(lastAssistant(reloaded.messages));
    expect(typesOf(replayed.filter((p) => p.type !== "data-toolnexus-run"))).toEqual([
      "tool-stop_db:output-available",
      "tool-start_db:approval-requested",
    ]);
    expect(reloaded.messages.filter((m) => m.role === "assistant")).toHaveLength(1);

    // The first page answers both; it sends once the second is answered, and sees stop_db's
    // output (which its stream had not shown) and the rest of the run.
    await chat.addToolApprovalResponse({ id: stop!.approval!.id, approved: true });
    expect(chat.status).toBe("ready");
    const finished = chat.nextFinish();
    await chat.addToolApprovalResponse({ id: start!.approval!.id, approved: true });
    await finished;
    expect(ran).toEqual(["stop_db", "start_db"]);
    const expected = [
      "tool-stop_db:output-available",
      "tool-start_db:output-available",
      "text:done",
    ];
    const parts = (chat: { messages: Parameters<typeof lastAssistant>[0] }) =>
      typesOf(
        visibleParts(lastAssistant(chat.messages)).filter((p) => p.type !== "data-toolnexus-run"),
      );
    expect(parts(chat)).toEqual(expected);
    // The reloaded page follows the run again and ends with the same message.
    await reloaded.resumeStream(); // the run ended meanwhile: 204, nothing changes…
    expect(parts(reloaded)).toEqual([
      "tool-stop_db:output-available",
      "tool-start_db:approval-requested",
    ]);
  });
});
