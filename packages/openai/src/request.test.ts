import { type Message, type ModelRequest, type ToolSpec, toolCall } from "@toolnexus/core";
import type {
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { chatRequestBody, toChatMessages } from "./request.js";
import type { ChatRequestBody } from "./wire.js";

// Type-level: every body the adapter can build is a valid SDK request body.
type Assignable<T, U> = [T] extends [U] ? true : false;
const bodiesAreSdkBodies: Assignable<ChatRequestBody, ChatCompletionCreateParams> = true;
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
  { role: "user", content: "Weather in Paris and Zürich?" },
  {
    role: "assistant",
    id: "chatcmpl-1",
    content: "",
    toolCalls: [
      toolCall("call_1", "get_weather", '{"city": "Paris"}'),
      toolCall("call_2", "get_weather", '{"city":"Zürich"}'),
    ],
  },
  { role: "tool", callId: "call_1", name: "get_weather", content: "18°C", isError: false },
  { role: "tool", callId: "call_2", name: "get_weather", content: "boom", isError: true },
  { role: "assistant", id: "chatcmpl-2", content: "Paris 18°C; Zürich unknown." },
];

describe("toChatMessages", () => {
  it("maps every role, keeps raw argument text and uses null content for tool-only turns", () => {
    const expected = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Weather in Paris and Zürich?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city": "Paris"}' },
          },
          {
            id: "call_2",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Zürich"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18°C" },
      { role: "tool", tool_call_id: "call_2", content: "boom" },
      { role: "assistant", content: "Paris 18°C; Zürich unknown." },
    ] satisfies ChatCompletionMessageParam[];
    expect(toChatMessages(transcript)).toEqual(expected);
  });

  it("puts a run of tool results' images in one user message after the run, before the next turn", () => {
    const png = "iVBORw0KGgo=";
    const [system, user, calls, , , answer] = transcript;
    const messages = toChatMessages([
      system!,
      user!,
      calls!,
      {
        role: "tool",
        callId: "call_1",
        name: "get_weather",
        content: "18°C",
        isError: false,
        parts: [
          { type: "image", mimeType: "image/png", data: png },
          { type: "resource", uri: "mem://paris.csv", text: "h,18" },
        ],
      },
      { role: "tool", callId: "call_2", name: "get_weather", content: "boom", isError: true },
      answer!,
    ]);
    const expected = [
      { role: "tool", tool_call_id: "call_1", content: "18°C\n[resource mem://paris.csv]\nh,18" },
      { role: "tool", tool_call_id: "call_2", content: "boom" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by get_weather (call_1):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      { role: "assistant", content: "Paris 18°C; Zürich unknown." },
    ] satisfies ChatCompletionMessageParam[];
    expect(messages.slice(3)).toEqual(expected);
  });

  it("keeps text next to tool calls, and replays empty or invalid argument text as sent", () => {
    const messages = toChatMessages([
      {
        role: "assistant",
        id: "a",
        content: "Let me check.",
        toolCalls: [toolCall("c1", "noargs", ""), toolCall("c2", "bad", "{oops")],
      },
    ]);
    expect(messages).toEqual([
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "noargs", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "bad", arguments: "{oops" } },
        ],
      },
    ]);
  });
});

describe("chatRequestBody", () => {
  const request: ModelRequest = { messages: transcript.slice(0, 2), tools: [weather] };

  it("sends function tools with tool_choice auto", () => {
    const expected = {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Weather in Paris and Zürich?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: "auto",
    } satisfies ChatCompletionCreateParamsNonStreaming;
    expect(chatRequestBody("gpt-4o-mini", request, {}, false)).toEqual(expected);
  });

  it("leaves tools, tool_choice and parallel_tool_calls out when there are no tools", () => {
    const body = chatRequestBody(
      "m",
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      { tool_choice: "required", parallel_tool_calls: false, temperature: 0 },
      false,
    );
    expect(body).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      temperature: 0,
    });
    expect("tools" in body).toBe(false);
    expect("tool_choice" in body).toBe(false);
  });

  it("streams with include_usage", () => {
    const expected = {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    } satisfies ChatCompletionCreateParamsStreaming;
    expect(
      chatRequestBody("m", { messages: [{ role: "user", content: "hi" }], tools: [] }, {}, true),
    ).toEqual(expected);
  });

  it("merges requestParams, which win except messages, tools and stream", () => {
    const params = {
      model: "gpt-4.1",
      temperature: 0.2,
      max_tokens: 256,
      tool_choice: "required",
      parallel_tool_calls: false,
      messages: [{ role: "user", content: "injected" }],
      tools: [],
      stream: true,
      stream_options: { include_obfuscation: false },
    };
    const plain = chatRequestBody("gpt-4o-mini", request, params, false);
    expect(plain).toMatchObject({
      model: "gpt-4.1",
      temperature: 0.2,
      max_tokens: 256,
      tool_choice: "required",
      parallel_tool_calls: false,
    });
    expect(plain.messages).toHaveLength(2);
    expect(plain.tools).toHaveLength(1);
    expect("stream" in plain).toBe(false);
    expect("stream_options" in plain).toBe(false);

    const streamed = chatRequestBody("gpt-4o-mini", request, params, true);
    expect(streamed.stream).toBe(true);
    expect(streamed.stream_options).toEqual({ include_usage: true, include_obfuscation: false });
  });
});
