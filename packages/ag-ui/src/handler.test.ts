// AG-UI's HttpAgent, unchanged, against the handler over real HTTP on a memory store, with a
// worker in this process continuing the runs after each answer.
import type { RunFinishedEvent } from "@ag-ui/core";
import { memoryRunStore } from "@toolnexus/client";
import { describe, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { APPROVAL_RESPONSE_SCHEMA } from "./interrupts.js";
import { outline, serve, Thread, testHandlerOptions, workInProcess } from "./test-kit.js";

async function setup() {
  const store = memoryRunStore();
  const client = agentClient(store);
  workInProcess(client);
  const url = await serve(testHandlerOptions(store, client));
  return { store, client, url };
}

const finished = (events: readonly { type: string }[]) => events.at(-1) as RunFinishedEvent;

describe("an approval through HttpAgent", () => {
  it("halts with an interrupt, takes the approval as a resume, and finishes the run", async () => {
    const { store, url } = await setup();
    const thread = new Thread(url, "token-alice", "T1");
    thread.say("deploy");

    const first = await thread.run();
    expect(outline(first)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED turn 1",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT Deploying.",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START deploy",
      'TOOL_CALL_ARGS {"env":"staging"}',
      "TOOL_CALL_END",
      "STEP_FINISHED turn 1",
      "RUN_FINISHED interrupt",
    ]);
    const outcome = finished(first).outcome;
    if (outcome?.type !== "interrupt") throw new Error("expected an interrupt");
    const [interrupt] = outcome.interrupts;
    expect(interrupt).toMatchObject({
      reason: "approval",
      toolCallId: "call_deploy",
      responseSchema: APPROVAL_RESPONSE_SCHEMA,
    });
    expect(interrupt?.message).toContain("deploy");
    expect(thread.agent.pendingInterrupts.map((i) => i.id)).toEqual([interrupt?.id]);

    const second = await thread.run({
      resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }],
    });
    expect(outline(second)).toEqual([
      "RUN_STARTED",
      "CUSTOM toolnexus.answered",
      "TOOL_CALL_RESULT deployed to staging",
      "STEP_STARTED turn 2",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT Finished: deployed to staging",
      "TEXT_MESSAGE_END",
      "STEP_FINISHED turn 2",
      "RUN_FINISHED success",
    ]);
    expect(finished(second).result).toBe("Finished: deployed to staging");
    expect(second[1]).toMatchObject({ value: { requestId: interrupt!.id, ok: true, by: "alice" } });
    expect(thread.invalid).toEqual([]);
    expect(thread.agent.pendingInterrupts).toEqual([]);
    const info = await store.getRequest(interrupt!.id);
    expect(info).toMatchObject({ answeredBy: "alice", answer: { ok: true } });
    // The thread holds what a chat shows: the assistant's words, the call, its result.
    const roles = thread.agent.messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("takes a decline with a reason: the tool never runs and sees the reason", async () => {
    const { store, url } = await setup();
    const thread = new Thread(url, "token-alice", "T2");
    thread.say("deploy");
    const first = await thread.run();
    const outcome = finished(first).outcome;
    if (outcome?.type !== "interrupt") throw new Error("expected an interrupt");
    const id = outcome.interrupts[0]!.id;

    const second = await thread.run({
      resume: [
        {
          interruptId: id,
          status: "resolved",
          payload: { approved: false, reason: "not on a Friday" },
        },
      ],
    });
    expect(outline(second)[1]).toBe("CUSTOM toolnexus.answered");
    expect(second[1]).toMatchObject({ value: { ok: false, reason: "declined", by: "alice" } });
    expect(outline(second).at(-1)).toBe("RUN_FINISHED success");
    expect(String(finished(second).result)).toMatch(/^Finished: declined/);
    expect(outline(second).join("\n")).not.toContain("deployed to staging");
    const info = await store.getRequest(id);
    expect(info?.answer).toEqual({
      id,
      ok: false,
      reason: "declined",
      data: { reason: "not on a Friday" },
    });
    expect(thread.invalid).toEqual([]);
  });
});

describe("an input question with a JSON Schema", () => {
  it("refuses a bad answer with its problems, then takes a good one", async () => {
    const { store, url } = await setup();
    const thread = new Thread(url, "token-alice", "T3");
    thread.say("scale");
    const first = await thread.run();
    const outcome = finished(first).outcome;
    if (outcome?.type !== "interrupt") throw new Error("expected an interrupt");
    const interrupt = outcome.interrupts[0]!;
    expect(interrupt).toMatchObject({ reason: "input", message: "How many replicas?" });
    expect(interrupt.responseSchema).toMatchObject({ required: ["replicas"] });

    const refusal = await thread
      .run({
        resume: [{ interruptId: interrupt.id, status: "resolved", payload: { replicas: 0, x: 1 } }],
      })
      .then(
        () => undefined,
        (error: { status?: number; payload?: unknown }) => error,
      );
    if (refusal === undefined) throw new Error("expected the bad answer to be refused");
    expect(refusal.status).toBe(400);
    expect(refusal.payload).toMatchObject({ error: { code: "invalid_answer" } });
    const issues = (refusal.payload as { error: { issues: string[] } }).error.issues;
    expect(issues).toContain("resume[0].payload.x: unknown field");
    expect(issues.some((issue) => issue.startsWith("resume[0].payload.replicas:"))).toBe(true);
    expect((await store.getRequest(interrupt.id))?.state).toBe("waiting");
    expect(thread.agent.pendingInterrupts).toHaveLength(1);

    const second = await thread.run({
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { replicas: 3 } }],
    });
    expect(outline(second)).toContain("TOOL_CALL_RESULT scaled to 3 replicas");
    expect(finished(second).result).toBe("Finished: scaled to 3 replicas");
    expect(thread.invalid).toEqual([]);
  });
});

describe("reasoning", () => {
  it("streams the model's reasoning as a reasoning message before its text", async () => {
    const { url } = await setup();
    const thread = new Thread(url, "token-alice", "T6");
    thread.say("think");
    const events = await thread.run();
    expect(outline(events)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED turn 1",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT A greeting; no tool needed.",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT Hello!",
      "TEXT_MESSAGE_END",
      "STEP_FINISHED turn 1",
      "RUN_FINISHED success",
    ]);
    expect(thread.agent.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(thread.invalid).toEqual([]);
  });
});

describe("tools and runs that go wrong", () => {
  it("shows a tool's error as its result, marked as an error", async () => {
    const { url } = await setup();
    const thread = new Thread(url, "token-alice", "T4");
    thread.say("explode");
    const events = await thread.run();
    const result = events.find((e) => e.type === "TOOL_CALL_RESULT");
    expect(result).toMatchObject({
      content: "disk full",
      toolCallId: "call_explode",
      metadata: { toolnexus: { name: "explode", isError: true, timedOut: false } },
    });
    expect(outline(events).at(-1)).toBe("RUN_FINISHED success");
    expect(thread.invalid).toEqual([]);
  });

  it("ends a failed run with RUN_ERROR", async () => {
    const store = memoryRunStore();
    const client = agentClient(store);
    workInProcess(client, 1); // the first failure ends the run
    const url = await serve(testHandlerOptions(store, client));
    const thread = new Thread(url, "token-alice", "T5");
    thread.say("fail");
    // RUN_ERROR ends the run for HttpAgent; it is an event, not a transport failure.
    const events = await thread.run();
    expect(outline(events)[0]).toBe("RUN_STARTED");
    const last = events.at(-1) as { type: string; code?: string; message?: string };
    expect(last.type).toBe("RUN_ERROR");
    expect(last.message).toContain("the model is down");
    expect(thread.invalid).toEqual([]);
  });
});
