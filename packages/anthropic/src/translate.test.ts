// `translate` (toolnexus SPEC §11) over both adapters: the same OpenAI-style request gives the same
// result from OpenAI and from Anthropic, each answering as its API does from a local server, and
// the body each provider receives is the one §11 describes.
import { type TranslateRequest, translate } from "@toolnexus/client";
import { openai } from "@toolnexus/openai";
import {
  KIT_TRANSLATE_REQUEST,
  KIT_WEATHER_SCHEMA,
  type MockServer,
  startMockServer,
} from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { anthropic } from "./model.js";

let servers: MockServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

// The adapter kit's translate conversation: parallel calls, one with object arguments.
const request = KIT_TRANSLATE_REQUEST as TranslateRequest;
const schema = KIT_WEATHER_SCHEMA;

/** One reply in both providers' shapes (as in the recorded payloads of src/__fixtures__). */
interface Reply {
  text: string | null;
  call?: { id: string; city: string };
  openaiFinish: string;
  anthropicStop: string;
  refusal?: string;
}

function openaiReply(reply: Reply) {
  return {
    id: "chatcmpl-ABfvx6Z4dchiW2nya1N8KMsHFrQRE",
    object: "chat.completion",
    created: 1727346165,
    model: "gpt-4o-2024-08-06",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text,
          refusal: reply.refusal ?? null,
          ...(reply.call === undefined
            ? {}
            : {
                tool_calls: [
                  {
                    id: reply.call.id,
                    type: "function",
                    function: {
                      name: "get_weather",
                      arguments: JSON.stringify({ city: reply.call.city }),
                    },
                  },
                ],
              }),
        },
        logprobs: null,
        finish_reason: reply.openaiFinish,
      },
    ],
    usage: {
      prompt_tokens: 120,
      completion_tokens: 18,
      total_tokens: 138,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    system_fingerprint: "fp_e45dabd248",
  };
}

function anthropicReply(reply: Reply) {
  const content: unknown[] = [];
  if (reply.text !== null) content.push({ type: "text", text: reply.text });
  if (reply.call !== undefined) {
    content.push({
      type: "tool_use",
      id: reply.call.id,
      name: "get_weather",
      input: { city: reply.call.city },
    });
  }
  return {
    id: "msg_01WvueFjZVbHcj4H4zUzeGv2",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-20250514",
    content,
    stop_reason: reply.anthropicStop,
    stop_sequence: null,
    usage: {
      input_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 18,
      service_tier: "standard",
    },
  };
}

async function both(reply: Reply) {
  const oai = await startMockServer([{ json: openaiReply(reply) }]);
  const ant = await startMockServer([{ json: anthropicReply(reply) }]);
  servers.push(oai, ant);
  const fromOpenAI = await translate(
    openai({ model: "gpt-4o", baseUrl: `${oai.url}/v1`, apiKey: "sk-test-1234" }),
    request,
  );
  const fromAnthropic = await translate(
    anthropic({ model: "claude-sonnet-4-0", baseUrl: ant.url, apiKey: "sk-ant-test-1234" }),
    request,
  );
  return { fromOpenAI, fromAnthropic, oai, ant };
}

describe("translate across providers", () => {
  // The tool call and the stop and length reasons are the adapter kit's translate scenarios.
  it("a refusal is content_filter from both", async () => {
    const cases: [Reply, string][] = [
      [
        // OpenAI puts a refusal on the message; Anthropic says so in stop_reason.
        { text: null, refusal: "", openaiFinish: "content_filter", anthropicStop: "refusal" },
        "content_filter",
      ],
    ];
    for (const [reply, finishReason] of cases) {
      const { fromOpenAI, fromAnthropic } = await both(reply);
      expect([fromOpenAI.finishReason, fromAnthropic.finishReason]).toEqual([
        finishReason,
        finishReason,
      ]);
      expect(fromOpenAI.text).toBe(fromAnthropic.text);
    }
  });

  it("the wire bodies are what §11 says", async () => {
    const { oai, ant } = await both({
      text: "Checking Berlin.",
      call: { id: "call_3", city: "Berlin" },
      openaiFinish: "tool_calls",
      anthropicStop: "tool_use",
    });
    // OpenAI: the messages as given (content parts flattened, object arguments as a string).
    expect(oai.requests[0]?.body).toEqual({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Answer with the tools." },
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
            {
              id: "call_2",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "Sunny, 21°C" },
        { role: "tool", tool_call_id: "call_2", content: "Rain, 14°C" },
        { role: "user", content: "And Berlin?" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "Current weather", parameters: schema },
        },
      ],
      tool_choice: "required",
      max_tokens: 256,
    });
    // Anthropic: system hoisted, tool_use blocks with parsed arguments, the consecutive tool
    // results in ONE user turn (with the next user text after them), tool_choice "any".
    expect(ant.requests[0]?.body).toEqual({
      model: "claude-sonnet-4-0",
      max_tokens: 256,
      system: "Answer with the tools.",
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "Sunny, 21°C", is_error: false },
            { type: "tool_result", tool_use_id: "call_2", content: "Rain, 14°C", is_error: false },
            { type: "text", text: "And Berlin?" },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Current weather",
          input_schema: schema,
        },
      ],
      tool_choice: { type: "any" },
    });
  });
});
