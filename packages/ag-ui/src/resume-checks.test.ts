// A resume is checked as a whole before anything is recorded: a refused entry (a conflict, an
// approver the policy refuses, an answer too large to keep) leaves every earlier entry
// unrecorded and the approved tools unrun; bad ids and oversized answers are typed refusals,
// never a 500; and a run `start` names is streamed only to a caller who may follow it.
import type { RunErrorEvent } from "@ag-ui/core";
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import {
  MAX_DURABLE_ANSWER_CHARS,
  type ModelRequest,
  pending,
  type RunStore,
  type Tool,
} from "@toolnexus/core";
import type { WebErrorBody } from "@toolnexus/web";
import { describe, expect, it } from "vitest";
import type { AgUiHandlerOptions } from "./options.js";
import { serve, testHandlerOptions } from "./test-kit.js";

const tools: Tool[] = [
  {
    name: "deploy",
    description: "Deploys, once a person approves",
    inputSchema: { type: "object" },
    source: "custom",
    needsApproval: true,
    execute: async () => ({ output: "deployed", isError: false }),
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
    description: "Asks for a note, any object",
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

/** A run of alice's (thread T) halted on the interrupts `prompt`'s calls ask; no worker runs. */
async function setup(prompt: string, overrides: Partial<AgUiHandlerOptions<{ id: string }>> = {}) {
  const store = memoryRunStore();
  const client = testClient(store);
  const halted = await client.run(prompt, {
    durable: true,
    runId: "run-1",
    sessionId: "alice:T",
    requester: "alice",
  });
  if (halted.status !== "pending") throw new Error("expected a halt");
  const run = await store.getRun("run-1");
  const ids = run!.requests.map((r) => r.request.id);
  const url = await serve({ ...testHandlerOptions(store, client), ...overrides });
  const post = (body: unknown, token = "token-alice") =>
    fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const resume = (resume: unknown[]) => post({ threadId: "T", runId: "R2", messages: [], resume });
  return { store, client, ids, url, post, resume };
}

async function errorOf(response: Response): Promise<[number, WebErrorBody["error"]]> {
  return [response.status, ((await response.json()) as WebErrorBody).error];
}

const approve = (interruptId: string) => ({
  interruptId,
  status: "resolved",
  payload: { approved: true },
});

async function states(store: RunStore, ids: readonly string[]) {
  return Promise.all(ids.map(async (id) => (await store.getRequest(id))?.state));
}

describe("a refused resume records nothing", () => {
  it("a conflict on a later entry leaves the earlier approval unrecorded", async () => {
    const { store, ids, resume } = await setup("deploy note");
    const [approval, input] = ids as [string, string];
    // Someone answered the input elsewhere (an inbox) meanwhile.
    await store.answer({ id: input, ok: true, data: { text: "from the inbox" } }, { by: "bob" });

    const refused = await resume([
      approve(approval),
      { interruptId: input, status: "resolved", payload: { text: "mine" } },
    ]);
    expect(await errorOf(refused)).toEqual([
      409,
      {
        code: "answer_conflict",
        message:
          "resume[1]: this request already has a different answer; an answer cannot be changed (cancel the interrupt to go on)",
        reason: "answered",
      },
    ]);
    expect(await states(store, [approval])).toEqual(["waiting"]);
    expect((await store.getRequest(approval))?.answer).toBeUndefined();
  });

  it("an approver the policy refuses on a later entry records none of the earlier", async () => {
    const { store, ids, resume } = await setup("deploy drop_table");
    const [approval, policy] = ids as [string, string];
    const refused = await resume([approve(approval), approve(policy)]);
    expect(await errorOf(refused)).toEqual([
      403,
      {
        code: "approval_refused",
        message:
          "resume[1]: you started the run that asks for this approval; someone else must approve it",
        reason: "own_request",
      },
    ]);
    expect(await states(store, ids)).toEqual(["waiting", "waiting"]);
  });

  it("an answer too large to keep is a 413 that records none of the earlier entries", async () => {
    const { store, ids, resume } = await setup("deploy note");
    const [approval, input] = ids as [string, string];
    const big = { text: "x".repeat(MAX_DURABLE_ANSWER_CHARS) };
    const refused = await resume([
      approve(approval),
      { interruptId: input, status: "resolved", payload: big },
    ]);
    expect(await errorOf(refused)).toEqual([
      413,
      {
        code: "payload_too_large",
        message: `resume[1]: the answer is over the ${MAX_DURABLE_ANSWER_CHARS} characters of JSON a run keeps`,
      },
    ]);
    expect(await states(store, ids)).toEqual(["waiting", "waiting"]);
  });

  it("names the entries recorded when another answer arrives between the check and the recording", async () => {
    const { store, ids } = await setup("deploy note");
    const [approval, input] = ids as [string, string];
    // A store where another process answers the input right after the approval is recorded.
    const racing: RunStore = Object.create(store);
    racing.answer = async (answer, options) => {
      const receipt = await store.answer(answer, options);
      if (answer.id === approval) {
        await store.answer({ id: input, ok: true, data: { text: "raced" } }, { by: "bob" });
      }
      return receipt;
    };
    const url = await serve(testHandlerOptions(racing, testClient(store)));
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "T",
        runId: "R2",
        messages: [],
        resume: [approve(approval), { interruptId: input, status: "resolved", payload: {} }],
      }),
    });
    const [status, error] = await errorOf(response);
    expect([status, error.code, error.reason]).toEqual([409, "answer_conflict", "answered"]);
    expect(error.message).toBe(
      "resume[1]: this request already has a different answer; an answer cannot be changed (cancel the interrupt to go on); it changed while this resume was recorded, and resume[0] was recorded before it",
    );
    expect((await store.getRequest(approval))?.answer).toEqual({ id: approval, ok: true });
  });

  it("a resume sent again is not recorded twice: an entry with the same answer is left as is", async () => {
    const { store, ids, resume } = await setup("deploy note");
    const [approval, input] = ids as [string, string];
    await store.answer({ id: approval, ok: true }, { by: "alice" });
    const response = await resume([
      approve(approval),
      { interruptId: input, status: "resolved", payload: { text: "ok" } },
    ]);
    expect(response.status).toBe(200);
    await response.body?.cancel();
    const events = (await store.readEvents!("run-1", 0)).filter((e) => e.type === "answered");
    expect(events.map((e) => e.data.requestId)).toEqual([approval, input]);
  });
});

describe("typed refusals, never a 500", () => {
  it("an interrupt id no store can keep is a 400; an answer too large a 413; nothing is logged", async () => {
    const logged: unknown[] = [];
    const { store, ids, resume } = await setup("note", { onError: (e) => logged.push(e) });
    const [input] = ids as [string];
    const surrogate = await resume([{ interruptId: "pnd_\ud800", status: "cancelled" }]);
    expect(await errorOf(surrogate)).toEqual([
      400,
      {
        code: "bad_request",
        message: "the RunAgentInput is malformed",
        issues: ["resume[0].interruptId: has an unpaired UTF-16 surrogate, which no store keeps"],
      },
    ]);
    const big = await resume([
      { interruptId: input, status: "resolved", payload: { text: "x".repeat(300_000) } },
    ]);
    expect((await errorOf(big))[0]).toBe(413);
    expect(logged).toEqual([]);
    expect(await states(store, [input])).toEqual(["waiting"]);
  });
});

describe("a run start names", () => {
  const input = (runId: string, threadId: string) => ({
    threadId,
    runId,
    messages: [{ id: "m1", role: "user", content: "deploy" }],
  });

  it("is not streamed to a caller who may not follow it (start built its id from the browser's)", async () => {
    const { post } = await setup("deploy");
    // The test kit's start runs `tn_<input.runId>`: bob sends the runId of alice's run.
    const alice = await post(input("mine", "T2"));
    expect(await alice.text()).toContain("RUN_FINISHED");
    const bob = await post(input("mine", "B"), "token-bob");
    expect(await errorOf(bob)).toEqual([
      404,
      {
        code: "not_found",
        message: "the run started for this request is not in the store (or it is not yours to see)",
      },
    ]);
  });

  it("one that appears only later is checked when it appears: RUN_ERROR not_found, nothing of it", async () => {
    const store = memoryRunStore();
    const client = testClient(store);
    const url = await serve({
      ...testHandlerOptions(store, client),
      // A start that hands the run to someone else's queue, say: it is stored later.
      start: () => ({ runId: "run-later" }),
    });
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer token-bob", "content-type": "application/json" },
      body: JSON.stringify(input("R", "B")),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("RUN_STARTED")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before RUN_STARTED: ${text}`);
      text += value;
    }
    // Now the run appears: alice's.
    await client.run("deploy", { durable: true, runId: "run-later", sessionId: "alice:T" });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const events = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: "))
      .map((frame) => JSON.parse(frame.slice(6)) as { type: string });
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(events[1] as RunErrorEvent).toMatchObject({
      code: "not_found",
      message: "the run is not in the store (or it is not yours to see)",
    });
  });
});
