// `translate` (toolnexus SPEC §11) through the Gemini adapter: the OpenAI-style request that the
// anthropic package's test sends to OpenAI and Anthropic gives the same result from Gemini, each
// API answering from a local server in its own shape; and the body Gemini receives.
import { type TranslateRequest, translate } from "@toolnexus/client";
import { openai } from "@toolnexus/openai";
import { type MockServer, startMockServer } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { google } from "./model.js";

let servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

const request: TranslateRequest = {
  messages: [
    { role: "system", content: "Answer with the tools." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "Sunny, 21°C" },
    { role: "user", content: "And Berlin?" },
  ],
  tools: [
    {
      type: "function",
      function: { name: "get_weather", description: "Current weather", parameters: schema },
    },
  ],
  toolChoice: "required",
  maxTokens: 256,
};

interface Reply {
  text: string | null;
  call?: { id: string; city: string };
  openaiFinish: string;
  geminiFinish: string;
}

const USAGE = { prompt: 120, completion: 18 };

function openaiReply(reply: Reply) {
  return {
    id: "chatcmpl-translate",
    object: "chat.completion",
    created: 1727346165,
    model: "gpt-4o-2024-08-06",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text,
          refusal: null,
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
      prompt_tokens: USAGE.prompt,
      completion_tokens: USAGE.completion,
      total_tokens: USAGE.prompt + USAGE.completion,
    },
  };
}

/** A generateContent response, shaped as the recorded ones in src/__fixtures__. */
function geminiReply(reply: Reply) {
  const parts: unknown[] = [];
  if (reply.text !== null) parts.push({ text: reply.text });
  if (reply.call !== undefined)
    parts.push({
      functionCall: { id: reply.call.id, name: "get_weather", args: { city: reply.call.city } },
    });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: reply.geminiFinish, index: 0 }],
    usageMetadata: {
      promptTokenCount: USAGE.prompt,
      candidatesTokenCount: USAGE.completion,
      totalTokenCount: USAGE.prompt + USAGE.completion,
    },
    modelVersion: "gemini-2.5-flash",
    responseId: "translate-1",
  };
}

async function both(reply: Reply) {
  const oai = await startMockServer([{ json: openaiReply(reply) }]);
  const gem = await startMockServer([{ json: geminiReply(reply) }]);
  servers.push(oai, gem);
  const fromOpenAI = await translate(
    openai({ model: "gpt-4o", baseUrl: `${oai.url}/v1`, apiKey: "sk-test-1234" }),
    request,
  );
  const fromGemini = await translate(
    google({ model: "gemini-2.5-flash", baseUrl: `${gem.url}/v1beta`, apiKey: "g-test-1234" }),
    request,
  );
  return { fromOpenAI, fromGemini, gem };
}

describe("translate through Gemini", () => {
  // The tool call and the stop and length reasons are the adapter kit's translate scenarios.
  it("a safety stop is content_filter, as from OpenAI", async () => {
    const cases: [Reply, string][] = [
      [{ text: null, openaiFinish: "content_filter", geminiFinish: "SAFETY" }, "content_filter"],
    ];
    for (const [reply, finishReason] of cases) {
      const { fromOpenAI, fromGemini } = await both(reply);
      expect([fromOpenAI.finishReason, fromGemini.finishReason]).toEqual([
        finishReason,
        finishReason,
      ]);
      expect(fromGemini.text).toBe(fromOpenAI.text);
    }
  });

  it("Gemini receives the system instruction hoisted and the tool result by name and order", async () => {
    const { gem } = await both({ text: "ok", openaiFinish: "stop", geminiFinish: "STOP" });
    const body = gem.requests[0]?.body as Record<string, unknown>;
    expect(gem.requests[0]?.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Answer with the tools." }] });
    // Ids the transcript made up elsewhere (call_1) are not sent: Gemini matches a result to its
    // call by name and order. The result and the next user text share one user turn.
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { output: "Sunny, 21°C" } } },
          { text: "And Berlin?" },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", description: "Current weather", parametersJsonSchema: schema },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(body.generationConfig).toEqual({ maxOutputTokens: 256 });
  });
});
