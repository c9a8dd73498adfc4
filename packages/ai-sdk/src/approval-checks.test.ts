// Approval responses are checked as a whole before anything is recorded: a refused POST (two
// runs, a part that is no tool approval, an approver the policy refuses, a run the caller may
// not follow) leaves every earlier approval unrecorded; one POST answers each approval once and
// at most MAX_APPROVAL_RESPONSES of them; bad ids are typed 400s, never a 500; and a run `start`
// names is streamed only to a caller who may follow it.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { type ModelRequest, pending, type RunStore, type Tool } from "@toolnexus/core";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_APPROVAL_RESPONSES } from "./chat-body.js";
import type { ChatHandlerOptions } from "./options.js";
import { allowOwnChats, serveChat, type User } from "./test-kit.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tools: Tool[] = [
  {
    name: "rollback",
    description: "Rolls back, once a person approves",
    inputSchema: { type: "object" },
    source: "custom",
    needsApproval: true,
    execute: async () => ({ output: "rolled back", isError: false }),
  },
  {
    name: "drop_table",
    description: "Drops a table (a policy asks someone other than the requester)",
    inputSchema: { type: "object" },
    source: "custom",
    annotations: { deletes: true },
    execute: async () => ({ output: "dropped", isError: false }),
  },
  {
    name: "note",
    description: "Asks for a note",
    inputSchema: { type: "object" },
    source: "custom",
    execute: async (_args, ctx) =>
      ctx?.answer === undefined
        ? pending({ kind: "input", prompt: "Anything to add?" })
        : { output: "noted", isError: false },
  },
];

/** The prompt names the tools to call, space-separated; after their results it is done. */
function turn(request: ModelRequest) {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { content: "done" };
  const prompt = typeof last?.content === "string" ? last.content : "";
  return {
    toolCalls: prompt
      .split(" ")
      .map((name: string, i: number) => ({ id: `c${i}`, name, arguments: {} })),
  };
}

function testClient(store: RunStore) {
  return createClient({
    model: scriptedModel(Array.from({ length: 100 }, () => turn)),
    tools,
    runs: store,
    policies: [
      {
        name: "deletes",
        decide: ({ tool }) =>
          tool.annotations.deletes === true ? { decision: "ask", prompt: "Drop it?" } : undefined,
      },
    ],
  });
}

/** The chat handler over a memory store (no worker runs); `halt` makes runs of alice's. */
async function setup(
  extra: Partial<ChatHandlerOptions<User>> = {},
  store: RunStore = memoryRunStore(),
) {
  const client = testClient(store);
  const served = await serveChat(store, client, { pollMs: 20, ...extra });
  cleanups.push(() => served.close());
  /** A run in alice's chat `chatId`, halted on what `prompt`'s calls ask: the request ids. */
  const halt = async (prompt: string, chatId: string, runId: string) => {
    const halted = await client.run(prompt, {
      durable: true,
      runId,
      sessionId: chatId,
      requester: "alice",
    });
    if (halted.status !== "pending") throw new Error("expected a halt");
    return (await store.getRun(runId))!.requests.map((r) => r.request.id);
  };
  const respond = (parts: unknown[], token = "token-alice") =>
    fetch(served.api, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "a-chat",
        trigger: "submit-message",
        messages: [{ id: "m1", role: "assistant", parts }],
      }),
    });
  return { store, client, served, halt, respond };
}

const approved = (id: string, toolCallId = "c0") => ({
  type: "tool-rollback",
  toolCallId,
  state: "approval-responded",
  input: {},
  approval: { id, approved: true },
});

async function errorOf(response: Response) {
  const body = (await response.json()) as {
    error: { code: string; message: string; issues?: string[]; reason?: string };
  };
  return [response.status, body.error.code, body.error.message];
}

async function states(store: RunStore, ids: readonly string[]) {
  return Promise.all(ids.map(async (id) => (await store.getRequest(id))?.state));
}

describe("a refused POST records no approval", () => {
  it("approvals of two runs", async () => {
    const { store, halt, respond } = await setup();
    const [first] = await halt("rollback", "a-1", "run-1");
    const [second] = await halt("rollback", "a-2", "run-2");
    const refused = await respond([approved(first!), approved(second!)]);
    expect(await errorOf(refused)).toEqual([
      400,
      "bad_request",
      "the approvals belong to different runs",
    ]);
    expect(await states(store, [first!, second!])).toEqual(["waiting", "waiting"]);
  });

  it("a later part naming a request that is not a tool approval", async () => {
    const { store, halt, respond } = await setup();
    const [approval, question] = (await halt("rollback note", "a-1", "run-1")) as [string, string];
    const refused = await respond([approved(approval), approved(question, "c1")]);
    expect((await errorOf(refused)).slice(0, 2)).toEqual([400, "bad_request"]);
    expect(await states(store, [approval, question])).toEqual(["waiting", "waiting"]);
  });

  it("a later approval the policy does not let this caller give (403)", async () => {
    const { store, halt, respond } = await setup();
    const ids = (await halt("rollback drop_table", "a-1", "run-1")) as [string, string];
    const refused = await respond([approved(ids[0]), approved(ids[1], "c1")]);
    expect(await errorOf(refused)).toEqual([
      403,
      "approval_refused",
      "you started the run that asks for this approval; someone else must approve it",
    ]);
    expect(await states(store, ids)).toEqual(["waiting", "waiting"]);
  });

  it("a run the caller may answer but not follow (404)", async () => {
    const { store, halt, respond } = await setup({
      allow: (caller, access) => access.action === "answer" && allowOwnChats!(caller, access),
    });
    const [approval] = await halt("rollback", "a-1", "run-1");
    const refused = await respond([approved(approval!)]);
    expect((await errorOf(refused)).slice(0, 2)).toEqual([404, "not_found"]);
    expect(await states(store, [approval!])).toEqual(["waiting"]);
  });
});

describe("how many approvals one POST answers", () => {
  it("each approval once, however many parts repeat it; at most MAX_APPROVAL_RESPONSES", async () => {
    const base = memoryRunStore();
    let reads = 0;
    const counted: RunStore = Object.create(base);
    for (const name of ["getRequest", "getRun", "readEvents"] as const) {
      const method = base[name]!.bind(base) as (...args: unknown[]) => unknown;
      (counted as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        reads++;
        return method(...args);
      };
    }
    const { store, halt, respond } = await setup({}, counted);
    const [approval] = await halt("rollback", "a-1", "run-1");

    reads = 0;
    const repeated = await respond(Array.from({ length: 5_000 }, () => approved(approval!)));
    expect(repeated.status).toBe(200);
    await repeated.body?.cancel();
    expect(reads).toBeLessThan(20);
    expect((await store.getRequest(approval!))?.answer).toEqual({ id: approval, ok: true });

    const many = Array.from({ length: MAX_APPROVAL_RESPONSES + 1 }, (_, i) => approved(`pnd_${i}`));
    expect(await errorOf(await respond(many))).toEqual([
      400,
      "bad_request",
      `a message answers at most ${MAX_APPROVAL_RESPONSES} tool approvals`,
    ]);
    const twoWays = [
      approved("pnd_x"),
      { ...approved("pnd_x"), approval: { id: "pnd_x", approved: false } },
    ];
    expect(await errorOf(await respond(twoWays))).toEqual([
      400,
      "bad_request",
      "one tool approval is answered twice, differently",
    ]);
  });
});

describe("an approval id no store can keep", () => {
  it("is a 400 listing the problem, never a 500", async () => {
    const logged: unknown[] = [];
    const { respond } = await setup({ onError: (error) => logged.push(error) });
    for (const [id, problem] of [
      ["pnd_\u0000x", "contains a NUL character (U+0000) at index 4"],
      ["p".repeat(2_000), "is 2000 characters long, over the limit of 1024"],
      ["pnd_\ud800", "contains an unpaired UTF-16 surrogate at index 4"],
      ["", "empty"],
    ] as const) {
      const response = await respond([approved(id)]);
      const body = (await response.json()) as { error: { code: string; issues: string[] } };
      expect([response.status, body.error.code]).toEqual([400, "bad_request"]);
      expect(body.error.issues[0]).toContain(problem);
    }
    expect(logged).toEqual([]);
  });
});

describe("a run start names", () => {
  const ask = (api: string, token: string) =>
    fetch(api, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "b-1",
        trigger: "submit-message",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "rollback" }] }],
      }),
    });

  it("is not streamed to a caller who may not follow it: someone else's run is a 404", async () => {
    const { halt, served } = await setup({ start: () => ({ runId: "run-alice" }) });
    await halt("rollback", "a-1", "run-alice");
    expect(await errorOf(await ask(served.api, "token-bob"))).toEqual([
      404,
      "not_found",
      "the run started for this message is not in the store (or it is not yours to see)",
    ]);
    // Nothing was kept for bob's chat either.
    const resumed = await fetch(`${served.api}/b-1/stream`, {
      headers: { authorization: "Bearer token-bob" },
    });
    expect(resumed.status).toBe(204);
  });

  it("one that appears only later is checked when it appears: an error chunk, nothing of it", async () => {
    const { halt, served } = await setup({ start: () => ({ runId: "run-later" }) });
    const response = await ask(served.api, "token-bob");
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The stream's preamble is written before it waits for the run.
    let text = (await reader.read()).value ?? "";
    await halt("rollback", "a-1", "run-later"); // alice's run, under the id bob's start named
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const chunks = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice(6)) as { type: string });
    expect(chunks).toEqual([
      { type: "start", messageId: "run-later" },
      {
        type: "error",
        errorText: "the run did not start: it is not in the store (or it is not yours to see)",
      },
      { type: "finish", finishReason: "error" },
    ]);
  });
});
