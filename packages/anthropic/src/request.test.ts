import type {
  MessageCreateParams,
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages";
import { type Message, type ToolSpec, toolCall } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { messagesUrl } from "./model.js";
import { messagesRequestBody, toAnthropicMessages } from "./request.js";
import type { MessagesRequestBody } from "./wire.js";

// Type-level: every body the adapter can build is a valid SDK request body.
type Assignable<T, U> = [T] extends [U] ? true : false;
const bodiesAreSdkBodies: Assignable<MessagesRequestBody, MessageCreateParams> = true;
void bodiesAreSdkBodies;

const weather: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

const transcript: Message[] = [
  { role: "system", content: "You are terse." },
  { role: "system", content: "Answer in English." },
  { role: "user", content: "Weather in Paris and Zürich?" },
  {
    role: "assistant",
    id: "msg_1",
    content: "Checking both.",
    toolCalls: [
      toolCall("toolu_1", "get_weather", '{"city": "Paris"}'),
      toolCall("toolu_2", "get_weather", '{"city":"Zürich"}'),
    ],
  },
  { role: "tool", callId: "toolu_1", name: "get_weather", content: "18°C", isError: false },
  { role: "tool", callId: "toolu_2", name: "get_weather", content: "boom", isError: true },
  { role: "assistant", id: "msg_2", content: "Paris 18°C; Zürich unknown." },
  { role: "user", content: "Thanks" },
];

describe("toAnthropicMessages", () => {
  it("hoists system, maps tool calls to tool_use and merges tool results into one user turn", () => {
    const expected = [
      { role: "user", content: "Weather in Paris and Zürich?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Zürich" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18°C", is_error: false },
          { type: "tool_result", tool_use_id: "toolu_2", content: "boom", is_error: true },
        ],
      },
      { role: "assistant", content: "Paris 18°C; Zürich unknown." },
      { role: "user", content: "Thanks" },
    ] satisfies MessageParam[];
    const { system, messages } = toAnthropicMessages(transcript);
    expect(system).toBe("You are terse.\n\nAnswer in English.");
    expect(messages).toEqual(expected);
  });

  it("puts tool results ahead of a user text that follows them in the same turn", () => {
    const { messages } = toAnthropicMessages([
      { role: "user", content: "go" },
      { role: "assistant", id: "a", content: "", toolCalls: [toolCall("t1", "noargs", "")] },
      { role: "tool", callId: "t1", name: "noargs", content: "done", isError: false },
      { role: "user", content: "and now?" },
    ]);
    expect(messages).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "noargs", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "done", is_error: false },
          { type: "text", text: "and now?" },
        ],
      },
    ] satisfies MessageParam[]);
  });

  it("drops empty text and empty turns, and sends arguments that were not an object as {}", () => {
    const { system, messages } = toAnthropicMessages([
      { role: "system", content: "" },
      { role: "user", content: "hi" },
      { role: "assistant", id: "a", content: "" },
      { role: "user", content: "" },
      { role: "user", content: "again" },
      { role: "assistant", id: "b", content: "", toolCalls: [toolCall("t", "bad", "{oops")] },
    ]);
    expect(system).toBeUndefined();
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "text", text: "again" },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "bad", input: {} }] },
    ]);
  });
});

describe("messagesRequestBody", () => {
  it("sends model, max_tokens, system, messages and tools with input_schema", () => {
    const expected = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [
        {
          name: "get_weather",
          description: "Current weather for a city",
          input_schema: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
            additionalProperties: false,
          },
        },
      ],
    } satisfies MessageCreateParamsNonStreaming;
    const body = messagesRequestBody(
      "claude-sonnet-4-5",
      4096,
      {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Weather in Paris?" },
        ],
        tools: [weather],
      },
      {},
      false,
    );
    expect(body).toEqual(expected);
  });

  it("streams, leaves tools out when there are none, and merges requestParams", () => {
    const expected = {
      model: "claude-haiku-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stop_sequences: ["###"],
      metadata: { user_id: "u-1" },
    } satisfies MessageCreateParamsStreaming;
    const body = messagesRequestBody(
      "claude-sonnet-4-5",
      4096,
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      {
        model: "claude-haiku-4-5",
        max_tokens: 1024,
        stop_sequences: ["###"],
        metadata: { user_id: "u-1" },
        tool_choice: { type: "any" },
        messages: [],
        tools: [{ name: "x" }],
        stream: false,
      },
      true,
    );
    expect(body).toEqual(expected);
  });
});

describe("messagesUrl", () => {
  it("appends /v1 only when the base URL lacks it", () => {
    expect(messagesUrl("https://api.anthropic.com")).toBe("https://api.anthropic.com/v1/messages");
    expect(messagesUrl("https://api.anthropic.com/")).toBe("https://api.anthropic.com/v1/messages");
    expect(messagesUrl("https://api.anthropic.com/v1")).toBe(
      "https://api.anthropic.com/v1/messages",
    );
    expect(messagesUrl("https://gw.example/anthropic/v1/")).toBe(
      "https://gw.example/anthropic/v1/messages",
    );
    expect(messagesUrl("http://127.0.0.1:4000/proxy")).toBe(
      "http://127.0.0.1:4000/proxy/v1/messages",
    );
  });
});
