import type { RecordedRunEvent, RunEventType } from "@toolnexus/core";
import type { UIMessageChunk as Ai7Chunk } from "ai";
import type { UIMessageChunk as Ai6Chunk } from "ai-v6";
import { describe, expect, it } from "vitest";
import {
  chunkFrame,
  DONE_FRAME,
  type ToolnexusDataParts,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageChunk,
} from "./chunks.js";
import { createUIMessageEncoder } from "./encoder.js";
import { VERSIONS } from "./test-kit.js";

function events(list: [RunEventType, Record<string, unknown>?][]): RecordedRunEvent[] {
  return list.map(([type, data], i) => ({
    runId: "r1",
    offset: i + 1,
    at: new Date(0).toISOString(),
    type,
    data: data ?? {},
  }));
}

function encode(list: RecordedRunEvent[]): UIMessageChunk[] {
  const encoder = createUIMessageEncoder("r1");
  return [{ type: "start", messageId: "r1" }, ...list.flatMap((e) => encoder.push(e))];
}

describe("createUIMessageEncoder", () => {
  it("gives a step per turn, one text part per turn and a tool part per call", () => {
    const chunks = encode(
      events([
        ["started"],
        ["turn", { turn: 1 }],
        ["text", { turn: 1, text: "Let me " }],
        ["text", { turn: 1, text: "look." }],
        ["tool_call", { callId: "c1", name: "lookup", args: { q: "x" } }],
        ["tool_result", { callId: "c1", name: "lookup", isError: false, output: "42" }],
        ["turn", { turn: 2 }],
        ["text", { turn: 2, text: "It is 42." }],
        ["done", { text: "It is 42." }],
      ]),
    );
    expect(chunks).toEqual([
      { type: "start", messageId: "r1" },
      { type: "data-toolnexus-run", id: "r1", data: { runId: "r1", state: "running" } },
      { type: "start-step" },
      { type: "text-start", id: "text-3" },
      { type: "text-delta", id: "text-3", delta: "Let me " },
      { type: "text-delta", id: "text-3", delta: "look." },
      { type: "text-end", id: "text-3" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "lookup", input: { q: "x" } },
      { type: "tool-output-available", toolCallId: "c1", output: "42" },
      { type: "finish-step" },
      { type: "start-step" },
      { type: "text-start", id: "text-8" },
      { type: "text-delta", id: "text-8", delta: "It is 42." },
      { type: "text-end", id: "text-8" },
      { type: "finish-step" },
      { type: "data-toolnexus-run", id: "r1", data: { runId: "r1", state: "done" } },
      { type: "finish", finishReason: "stop" },
    ]);
    // Nothing after the end belongs to the message.
    const encoder = createUIMessageEncoder("r1");
    for (const e of events([["done", {}]])) encoder.push(e);
    expect(encoder.ended).toBe(true);
    expect(encoder.push(events([["text", { text: "late" }]])[0]!)).toEqual([]);
  });

  it("asks a halted call's approval on its tool part, and other questions as data parts", () => {
    const encoder = createUIMessageEncoder("r1");
    const chunks = events([
      ["turn", { turn: 1 }],
      ["tool_call", { callId: "c1", name: "rollback", args: {} }],
      ["tool_call", { callId: "c2", name: "login", args: {} }],
      [
        "tool_result",
        { callId: "c1", name: "rollback", isError: false, output: "", pending: true },
      ],
      ["tool_result", { callId: "c2", name: "login", isError: false, output: "", pending: true }],
      [
        "suspended",
        {
          requests: [
            { id: "q1", kind: "approval", prompt: "Allow rollback?" },
            { id: "q2", kind: "url", prompt: "Sign in", url: "https://id.example/auth" },
          ],
        },
      ],
    ]).flatMap((e) => encoder.push(e));
    expect(chunks.slice(-4)).toEqual([
      { type: "finish-step" },
      { type: "tool-approval-request", approvalId: "q1", toolCallId: "c1" },
      {
        type: "data-toolnexus-request",
        id: "q2",
        data: {
          requestId: "q2",
          runId: "r1",
          kind: "url",
          prompt: "Sign in",
          url: "https://id.example/auth",
          toolCallId: "c2",
          state: "waiting",
        },
      },
      { type: "data-toolnexus-run", id: "r1", data: { runId: "r1", state: "waiting" } },
    ]);
    expect(encoder.approvals).toEqual(["q1"]);
    const later = events([
      ["turn"],
      ["turn"],
      ["turn"],
      ["turn"],
      ["turn"],
      ["turn"],
      ["answered", { requestId: "q1", ok: false, reason: "declined", by: "alice" }],
      ["answered", { requestId: "q2", ok: true, by: "bob" }],
      ["continued", { owner: "w", reason: "ready" }],
      ["tool_result", { callId: "c1", name: "rollback", isError: true, output: "declined: …" }],
      ["tool_result", { callId: "c2", name: "login", isError: true, output: "token refused" }],
    ]).slice(6);
    expect(later.flatMap((e) => encoder.push(e))).toEqual([
      {
        type: "data-toolnexus-request",
        id: "q2",
        data: expect.objectContaining({ state: "answered", ok: true, answeredBy: "bob" }),
      },
      { type: "data-toolnexus-run", id: "r1", data: { runId: "r1", state: "running" } },
      { type: "start-step" },
      { type: "tool-output-denied", toolCallId: "c1" },
      { type: "tool-output-error", toolCallId: "c2", errorText: "token refused" },
    ]);
  });

  it("ends a failed run with an error chunk and a cancelled one with a finish that says so", () => {
    const failed = encode(
      events([
        ["turn", { turn: 1 }],
        ["reasoning", { turn: 1, text: "hmm" }],
        ["failed", { code: "model_failed", message: "the model is down" }],
      ]),
    );
    expect(failed.slice(-5)).toEqual([
      { type: "reasoning-end", id: "reasoning-2" },
      { type: "finish-step" },
      {
        type: "data-toolnexus-run",
        id: "r1",
        data: { runId: "r1", state: "failed", code: "model_failed", message: "the model is down" },
      },
      { type: "error", errorText: "the run failed (model_failed): the model is down" },
      { type: "finish", finishReason: "error" },
    ]);
    const cancelled = encode(events([["cancelled", { by: "alice", reason: "wrong prompt" }]]));
    expect(cancelled.slice(-2)).toEqual([
      {
        type: "data-toolnexus-run",
        id: "r1",
        data: { runId: "r1", state: "cancelled", by: "alice", reason: "wrong prompt" },
      },
      { type: "finish", finishReason: "other" },
    ]);
  });
});

it("writes chunks of the AI SDK's own chunk types, 7 and 6 (checked by tsc)", () => {
  const ours: UIMessageChunk[] = encode(events([["done", {}]]));
  const seven: Ai7Chunk<unknown, ToolnexusDataParts>[] = ours;
  const six: Ai6Chunk<unknown, ToolnexusDataParts>[] = ours;
  expect(seven).toBe(six);
});

describe.each(VERSIONS)("every chunk kind, read by $name", ({ mod }) => {
  it("passes the transport's chunk schema and builds the message", async () => {
    const chunks = encode(
      events([
        ["started"],
        ["turn", { turn: 1 }],
        ["reasoning", { turn: 1, text: "Think." }],
        ["text", { turn: 1, text: "Working." }],
        ["tool_call", { callId: "c1", name: "fetch", args: { url: "x" } }],
        ["progress", { callId: "c1", progress: 1, total: 2, message: "half" }],
        ["tool_result", { callId: "c1", name: "fetch", isError: true, output: "404" }],
        ["tool_call", { callId: "c2", name: "rollback", args: {} }],
        [
          "tool_result",
          { callId: "c2", name: "rollback", isError: false, output: "", pending: true },
        ],
        ["suspended", { requests: [{ id: "q1", kind: "approval", prompt: "ok?" }] }],
        ["answered", { requestId: "q1", ok: false, reason: "declined" }],
        ["tool_result", { callId: "c2", name: "rollback", isError: true, output: "declined: ok?" }],
        ["failed", { code: "model_failed", message: "down" }],
      ]),
    );
    const body = [...chunks.map(chunkFrame), DONE_FRAME].join("");
    const Transport = mod.DefaultChatTransport as typeof import("ai").DefaultChatTransport;
    const transport = new Transport({
      api: "http://127.0.0.1/api/chat",
      fetch: async () =>
        new Response(body, {
          headers: { "content-type": "text/event-stream", ...UI_MESSAGE_STREAM_HEADERS },
        }),
    });
    const stream = await transport.sendMessages({
      chatId: "c",
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [],
    });
    const parsed: unknown[] = [];
    const errors: string[] = [];
    let message: { parts: { type: string; state?: string; data?: unknown }[] } | undefined;
    const read = mod.readUIMessageStream as typeof import("ai").readUIMessageStream;
    const tapped = stream.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          parsed.push(structuredClone(chunk)); // the reader reuses data chunks as parts
          controller.enqueue(chunk);
        },
      }),
    );
    for await (const snapshot of read({
      stream: tapped,
      onError: (error) => errors.push((error as Error).message),
    })) {
      message = snapshot as never;
    }
    expect(parsed).toEqual(chunks);
    expect(errors).toEqual(["the run failed (model_failed): down"]);
    expect(message?.parts.map((p) => `${p.type}${p.state ? `:${p.state}` : ""}`)).toEqual([
      "data-toolnexus-run",
      "step-start",
      "reasoning:done",
      "text:done",
      "tool-fetch:output-error",
      "data-toolnexus-progress",
      "tool-rollback:output-denied", // its part updated in place…
      "step-start", // …by the step the continued run opened
    ]);
    expect(message?.parts[0]?.data).toMatchObject({ state: "failed" });
  });
});
