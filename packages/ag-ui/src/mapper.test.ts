import { EventSchemas } from "@ag-ui/core/schemas";
import type { RecordedRunEvent, RunEventType } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { APPROVAL_RESPONSE_SCHEMA } from "./interrupts.js";
import { createAgUiEventMapper } from "./mapper.js";
import { outline } from "./test-kit.js";

let offset = 0;
function recorded(type: string, data: Record<string, unknown> = {}): RecordedRunEvent {
  offset++;
  return { runId: "tn1", offset, at: new Date(0).toISOString(), type: type as RunEventType, data };
}

function mapAll(events: RecordedRunEvent[]) {
  const mapper = createAgUiEventMapper({ threadId: "T", runId: "R" });
  const out = [mapper.runStarted(), ...events.flatMap((event) => mapper.map(event))];
  for (const event of out) expect(EventSchemas.safeParse(event).error).toBeUndefined();
  return { mapper, out };
}

describe("createAgUiEventMapper", () => {
  it("frames turns as steps, reasoning and text as messages, and closes what is open at the end", () => {
    offset = 0;
    const { out, mapper } = mapAll([
      recorded("started", { sessionId: "S" }),
      recorded("turn", { turn: 1 }),
      recorded("reasoning", { turn: 1, text: "The user wants a sum." }),
      recorded("text", { turn: 1, text: "Adding" }),
      recorded("text", { turn: 1, text: " now." }),
      recorded("tool_call", { callId: "c1", name: "add", args: { a: 2, b: 3 } }),
      recorded("progress", { callId: "c1", progress: 1, total: 2 }),
      recorded("tool_result", {
        callId: "c1",
        name: "add",
        isError: false,
        timedOut: false,
        output: "5",
      }),
      recorded("continued", { owner: "worker-7", reason: "ready" }),
      recorded("turn", { turn: 2 }),
      recorded("reasoning", { turn: 2, text: "Done." }),
      recorded("cancel_requested", { by: "alice", reason: "enough" }),
      recorded("cancelled", { by: "alice", reason: "enough" }),
      recorded("done", { text: "never mapped: the run already ended" }),
    ]);
    expect(outline(out)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED turn 1",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT The user wants a sum.",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT Adding",
      "TEXT_MESSAGE_CONTENT  now.",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START add",
      'TOOL_CALL_ARGS {"a":2,"b":3}',
      "TOOL_CALL_END",
      "CUSTOM toolnexus.progress",
      "TOOL_CALL_RESULT 5",
      "STEP_FINISHED turn 1",
      "STEP_STARTED turn 2",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT Done.",
      "CUSTOM toolnexus.cancel_requested",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "STEP_FINISHED turn 2",
      "RUN_FINISHED cancelled",
    ]);
    expect(mapper.ended).toBe(true);
    // The text message's id is its first event's offset; the tool call belongs to it.
    expect(out[7]).toMatchObject({ messageId: "tn1:4" });
    expect(out[11]).toMatchObject({ toolCallId: "c1", parentMessageId: "tn1:4" });
    // Nothing says which worker took the run over.
    expect(JSON.stringify(out)).not.toContain("worker-7");
  });

  it("ends a halt with its interrupts, naming the halted calls and deadlines it is told", () => {
    offset = 0;
    const mapper = createAgUiEventMapper({ threadId: "T", runId: "R" });
    const requests = [
      { id: "pnd_1", kind: "approval", prompt: "Allow deploy?" },
      { id: "pnd_2", kind: "authorization", prompt: "Sign in", url: "https://idp.example/login" },
    ];
    mapper.map(recorded("tool_call", { callId: "c1", name: "deploy", args: {} }));
    const halted = recorded("tool_result", {
      callId: "c1",
      name: "deploy",
      output: "Allow deploy?",
      pending: true,
    });
    expect(mapper.map(halted)).toEqual([]); // no result yet: the interrupt says what it waits for
    const pending = new Map([
      ["pnd_1", { toolCallId: "c1" }],
      ["pnd_2", { expiresAt: "2030-01-01T00:00:00.000Z" }],
    ]);
    const [finished] = mapper.map(recorded("suspended", { requests }), pending);
    expect(EventSchemas.safeParse(finished).error).toBeUndefined();
    expect(finished).toEqual({
      type: "RUN_FINISHED",
      threadId: "T",
      runId: "R",
      outcome: {
        type: "interrupt",
        interrupts: [
          {
            id: "pnd_1",
            reason: "approval",
            message: "Allow deploy?",
            toolCallId: "c1",
            responseSchema: APPROVAL_RESPONSE_SCHEMA,
            metadata: { toolnexus: { kind: "approval" } },
          },
          {
            id: "pnd_2",
            reason: "authorization",
            message: "Sign in",
            expiresAt: "2030-01-01T00:00:00.000Z",
            metadata: { toolnexus: { kind: "authorization", url: "https://idp.example/login" } },
          },
        ],
      },
    });
  });

  it("does not end on a halt whose every question was answered meanwhile", () => {
    offset = 0;
    const mapper = createAgUiEventMapper({ threadId: "T", runId: "R" });
    const requests = [{ id: "pnd_1", kind: "input", prompt: "How many?" }];
    const suspended = recorded("suspended", { requests });
    expect(mapper.map(suspended, new Map([["pnd_1", { open: false }]]))).toEqual([]);
    expect(mapper.ended).toBe(false);
  });

  it("ends with RUN_ERROR for a failed run, and fail() closes what is open", () => {
    offset = 0;
    const failed = mapAll([
      recorded("failed", { code: "model_failed", message: "the model is down" }),
    ]);
    expect(failed.out.at(-1)).toEqual({
      type: "RUN_ERROR",
      code: "model_failed",
      message: "the model is down",
    });

    const mapper = createAgUiEventMapper({ threadId: "T", runId: "R" });
    mapper.map(recorded("turn", { turn: 1 }));
    mapper.map(recorded("text", { turn: 1, text: "Half a" }));
    expect(outline(mapper.fail("stream_limit", "cap"))).toEqual([
      "TEXT_MESSAGE_END",
      "STEP_FINISHED turn 1",
      "RUN_ERROR stream_limit",
    ]);
    expect(mapper.fail("again", "no")).toEqual([]);
  });

  it("gives a done run's text as the result and ignores events it does not know", () => {
    offset = 0;
    const { out } = mapAll([
      recorded("some_future_event", { x: 1 }),
      recorded("text", { turn: 1, text: "" }),
      recorded("answered", { requestId: "pnd_1", ok: true, by: "alice" }),
      recorded("done", { text: "All done." }),
    ]);
    expect(outline(out)).toEqual([
      "RUN_STARTED",
      "CUSTOM toolnexus.answered",
      "RUN_FINISHED success",
    ]);
    expect(out.at(-1)).toMatchObject({ result: "All done.", outcome: { type: "success" } });
  });
});
