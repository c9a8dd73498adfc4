// What the handler refuses, and how: a typed JSON error with its status before any stream
// starts, so HttpAgent rejects with that status and body and nothing is recorded.
import type { RunFinishedEvent } from "@ag-ui/core";
import { memoryRunStore } from "@toolnexus/client";
import type { WebErrorBody } from "@toolnexus/web";
import { describe, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import type { AgUiHandlerOptions } from "./options.js";
import { outline, serve, Thread, testHandlerOptions, workInProcess } from "./test-kit.js";

const INPUT = { threadId: "T", runId: "R", messages: [{ id: "m1", role: "user", content: "hi" }] };

async function setup(overrides: Partial<AgUiHandlerOptions<{ id: string }>> = {}) {
  const store = memoryRunStore();
  const client = agentClient(store);
  workInProcess(client);
  const url = await serve({ ...testHandlerOptions(store, client), ...overrides });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        authorization: "Bearer token-alice",
        "content-type": "application/json",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  return { store, client, url, post };
}

async function errorOf(response: Response): Promise<WebErrorBody["error"]> {
  expect(response.headers.get("content-type")).toContain("application/json");
  return ((await response.json()) as WebErrorBody).error;
}

/** Runs `prompt` on a new thread to its first halt; the thread and the interrupts. */
async function halted(url: string, prompt: string, threadId: string) {
  const thread = new Thread(url, "token-alice", threadId);
  thread.say(prompt);
  const outcome = ((await thread.run()).at(-1) as RunFinishedEvent).outcome;
  if (outcome?.type !== "interrupt") throw new Error("expected an interrupt");
  return { thread, interrupts: outcome.interrupts };
}

describe("requests refused before anything is looked up", () => {
  it("refuses other methods, other paths, strangers, other origins and other media types", async () => {
    const { url, post } = await setup();
    const get = await fetch(url, { headers: { authorization: "Bearer token-alice" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await errorOf(get)).code).toBe("method_not_allowed");
    const elsewhere = await fetch(`${url}/x`, { method: "POST" });
    expect(elsewhere.status).toBe(404);
    await elsewhere.body?.cancel();

    const stranger = await post(INPUT, { authorization: "Bearer nobody" });
    expect(stranger.status).toBe(401);
    expect((await errorOf(stranger)).code).toBe("unauthenticated");
    const crossSite = await post(INPUT, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect((await errorOf(crossSite)).code).toBe("forbidden_origin");
    const text = await post(JSON.stringify(INPUT), { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect((await errorOf(text)).code).toBe("unsupported_media_type");
  });

  it("caps the body and lists every problem of a malformed RunAgentInput", async () => {
    const { post } = await setup({ maxBodyBytes: 2_000 });
    const big = await post({
      ...INPUT,
      messages: [{ id: "m1", role: "user", content: "x".repeat(3_000) }],
    });
    expect(big.status).toBe(413);
    expect((await errorOf(big)).code).toBe("payload_too_large");

    const malformed = await post({
      threadId: "",
      runId: 7,
      messages: "hi",
      resume: [
        { interruptId: "a", status: "maybe" },
        { interruptId: "a", status: "cancelled" },
      ],
      extra: true,
    });
    expect(malformed.status).toBe(400);
    const error = await errorOf(malformed);
    expect(error.code).toBe("bad_request");
    expect(error.issues).toEqual([
      "extra: unknown field",
      "threadId: a string of 1 to 256 characters without control characters",
      "runId: a string of 1 to 256 characters without control characters",
      "messages: must be an array",
      'resume[0].status: "resolved" or "cancelled"',
      "resume[1].interruptId: answered twice",
    ]);
  });
});

describe("starting runs", () => {
  it("starts only what allow permits, and only with a start function", async () => {
    const denied = await setup({ allow: () => false });
    const refused = await denied.post(INPUT);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe("forbidden");

    const { start: _, ...withoutStart } = testHandlerOptions(memoryRunStore(), undefined);
    const url = await serve(withoutStart);
    const thread = new Thread(url, "token-alice", "T");
    thread.say("hi");
    await expect(thread.run()).rejects.toMatchObject({
      status: 501,
      payload: { error: { code: "not_implemented" } },
    });
  });
});

describe("resuming", () => {
  it("answers an unknown interrupt, or another caller's, with the same 404, recording nothing", async () => {
    const { url, post, store } = await setup();
    const { interrupts } = await halted(url, "deploy", "T-a");
    const id = interrupts[0]!.id;
    const resume = (interruptId: string, token: string) =>
      post(
        { ...INPUT, resume: [{ interruptId, status: "resolved", payload: { approved: true } }] },
        { authorization: `Bearer ${token}` },
      );
    const unknown = await resume("pnd_nope", "token-alice");
    const notYours = await resume(id, "token-bob");
    expect([unknown.status, notYours.status]).toEqual([404, 404]);
    expect((await errorOf(unknown)).message).toBe((await errorOf(notYours)).message);
    expect((await store.getRequest(id))?.state).toBe("waiting");
  });

  it("resumes a halt as a whole: every open interrupt is answered or cancelled", async () => {
    const { url, store } = await setup();
    const { thread, interrupts } = await halted(url, "both", "T-both");
    expect(interrupts.map((i) => [i.reason, i.toolCallId])).toEqual([
      ["approval", "call_deploy"],
      ["input", "call_scale"],
    ]);
    const [approval, input] = interrupts as [(typeof interrupts)[0], (typeof interrupts)[0]];

    // HttpAgent itself refuses to send a partial resume; a hand-written client gets a 400.
    const partial = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
      body: JSON.stringify({
        ...INPUT,
        resume: [{ interruptId: approval.id, status: "resolved", payload: { approved: true } }],
      }),
    });
    expect(partial.status).toBe(400);
    expect((await errorOf(partial)).issues).toEqual([
      `${input.id}: still open; resolve or cancel it`,
    ]);
    expect((await store.getRequest(approval.id))?.state).toBe("waiting");

    // A bad approval payload is listed with the input's problems; nothing is recorded.
    const bad = await thread
      .run({
        resume: [
          { interruptId: approval.id, status: "resolved", payload: { approved: "yes" } },
          { interruptId: input.id, status: "resolved", payload: {} },
        ],
      })
      .catch((error: { payload?: { error: WebErrorBody["error"] } }) => error.payload?.error);
    expect(bad).toMatchObject({
      code: "invalid_answer",
      issues: [
        "resume[0].payload.approved: required, true or false",
        "resume[1].payload.replicas: required",
      ],
    });
    expect((await store.getRequest(approval.id))?.state).toBe("waiting");

    const events = await thread.run({
      resume: [
        { interruptId: approval.id, status: "cancelled" },
        { interruptId: input.id, status: "resolved", payload: { replicas: 4 } },
      ],
    });
    expect(outline(events).filter((e) => e === "CUSTOM toolnexus.answered")).toHaveLength(2);
    expect((events.at(-1) as RunFinishedEvent).result).toMatch(
      /^Finished: declined.*; scaled to 4 replicas$/,
    );
    expect((await store.getRequest(approval.id))?.answer).toMatchObject({
      ok: false,
      reason: "declined",
    });
    expect(thread.invalid).toEqual([]);
  });

  it("refuses to change an answer given elsewhere, but lets a cancel go on", async () => {
    const { url, store } = await setup();
    const { thread, interrupts } = await halted(url, "deploy", "T-inbox");
    const id = interrupts[0]!.id;
    // Someone answered in an inbox (the web handler) meanwhile; a worker may already be going on.
    await store.answer({ id, ok: false, reason: "declined" }, { by: "bob" });

    await expect(
      thread.run({
        resume: [{ interruptId: id, status: "resolved", payload: { approved: true } }],
      }),
    ).rejects.toMatchObject({
      status: 409,
      payload: { error: { code: "answer_conflict", reason: "answered" } },
    });

    const events = await thread.run({ resume: [{ interruptId: id, status: "cancelled" }] });
    expect(outline(events)[1]).toBe("CUSTOM toolnexus.answered");
    expect(events[1]).toMatchObject({ value: { by: "bob", ok: false } });
    expect(outline(events).at(-1)).toBe("RUN_FINISHED success");
    expect((await store.getRequest(id))?.answeredBy).toBe("bob");
  });
});
