// openaiResponses against responses the real Responses API sent, recorded by vercel/ai and
// copied byte for byte into ./__fixtures__ (see its README), served from a local server.
import { createClient } from "@toolnexus/client";
import type { Message, ModelRequest, Tool } from "@toolnexus/core";
import {
  type MockReply,
  type MockServer,
  startMockServer,
} from "@toolnexus/provider-utils/testing";
import type { FunctionTool, ResponseInput } from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import { openaiResponses } from "../index.js";
import { responsesRequestBody } from "./request.js";
import { fixture, sseOfChunks } from "./test-fixtures.js";
import type { ResponsesRequestBody } from "./wire.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...replies: MockReply[]): Promise<MockServer> {
  server = await startMockServer(replies);
  return server;
}

const model = () =>
  openaiResponses({
    model: "gpt-5-mini",
    baseUrl: `${server?.url}/v1`,
    apiKey: "sk-test-responses",
    retryBaseMs: 1,
  });

const recorded = () => JSON.parse(fixture("responses-reasoning.json"));
const sent = (index: number) => {
  const body = server?.requests[index]?.body as ResponsesRequestBody;
  // What the adapter sends fits the SDK's own types.
  body.input satisfies ResponseInput;
  body.tools satisfies FunctionTool[] | undefined;
  return body;
};
const ASK: ModelRequest = { messages: [{ role: "user", content: "Compute it" }], tools: [] };

const calculator: Tool = {
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } },
    required: ["a", "b", "op"],
  },
  source: "custom",
  execute: async () => ({ output: "570", isError: false }),
};

describe("responses", () => {
  it("a recorded reasoning answer: text, id, usage with reasoning tokens, the reasoning item kept", async () => {
    const body = recorded();
    await serve({ json: body });
    const response = await model().generate(ASK);
    expect(response).toEqual({
      id: "resp_0f35ed53160b395301693cc957829881909359e7f80cdd20b5",
      text: "12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570",
      reasoning: body.output[0].summary[0].text,
      toolCalls: [],
      usage: { promptTokens: 865, completionTokens: 163, totalTokens: 1028, reasoningTokens: 128 },
      finishReason: "completed",
      stopReason: "stop",
      providerData: { "openai-responses": { reasoning: [body.output[0]] } },
    });
    expect(server?.requests[0]?.path).toBe("/v1/responses");
    expect(sent(0)).toEqual({
      model: "gpt-5-mini",
      input: [{ role: "user", content: "Compute it" }],
    });
  });

  it("the reasoning item goes back ahead of the function call it led to, then the output", async () => {
    // The recording with its message item replaced by a function call (the shape of the
    // API's function_call items), so the turn calls a tool after reasoning.
    const first = recorded();
    first.output[1] = {
      id: "fc_0f35ed53160b395301693cc95c1d288190997018450969162b",
      type: "function_call",
      status: "completed",
      arguments: '{"a":57,"b":10,"op":"multiply"}',
      call_id: "call_9Yy1XGZ5tVqJm3aKkB0nS7wQ",
      name: "calculator",
    };
    await serve({ json: first }, { json: recorded() });
    const client = createClient({
      model: model(),
      tools: [calculator],
      systemPrompt: "Use the calculator.",
    });
    const result = await client.run("57 times 10?");
    expect(result.status).toBe("done");
    expect(sent(0).instructions).toBe("Use the calculator.");
    expect(sent(0).tools).toEqual([
      {
        type: "function",
        name: "calculator",
        description: calculator.description,
        parameters: calculator.inputSchema,
        strict: false,
      },
    ]);
    expect(sent(1).input).toEqual([
      { role: "user", content: "57 times 10?" },
      first.output[0],
      {
        type: "function_call",
        call_id: "call_9Yy1XGZ5tVqJm3aKkB0nS7wQ",
        name: "calculator",
        arguments: '{"a":57,"b":10,"op":"multiply"}',
      },
      { type: "function_call_output", call_id: "call_9Yy1XGZ5tVqJm3aKkB0nS7wQ", output: "570" },
    ]);
  });

  it("incomplete: max_output_tokens is length, content_filter is content_filter", async () => {
    const cut = {
      ...recorded(),
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    };
    const filtered = {
      ...recorded(),
      status: "incomplete",
      incomplete_details: { reason: "content_filter" },
    };
    await serve({ json: cut }, { json: filtered });
    const m = model();
    expect(await m.generate(ASK)).toMatchObject({
      finishReason: "max_output_tokens",
      stopReason: "length",
    });
    expect(await m.generate(ASK)).toMatchObject({
      finishReason: "content_filter",
      stopReason: "content_filter",
    });
  });

  it("a recorded stream that fails (error event, response.failed) is a ProviderError with the code", async () => {
    await serve({ chunks: [sseOfChunks(fixture("responses-error.chunks.txt"))] });
    const consume = async () => {
      for await (const _part of model().stream?.(ASK) ?? []) {
        // drain
      }
    };
    await expect(consume()).rejects.toMatchObject({
      code: "provider_stream",
      provider: "openai",
      providerType: "insufficient_quota",
      providerCode: "insufficient_quota",
      providerMessage: expect.stringMatching(/^You exceeded your current quota/),
    });
  });

  it("builds input items, tool_choice and max_output_tokens; another adapter's data is not sent", () => {
    const messages: Message[] = [
      { role: "system", content: "One." },
      { role: "system", content: "Two." },
      { role: "user", content: "Hi" },
      {
        role: "assistant",
        id: "r1",
        content: "Let me check.",
        toolCalls: [{ id: "call_1", name: "calculator", args: {}, rawArgs: "" }],
        providerData: { google: { parts: [{ text: "x", thoughtSignature: "s" }] } },
      },
      { role: "tool", callId: "call_1", name: "calculator", content: "570", isError: false },
    ];
    const body = responsesRequestBody(
      "gpt-5-mini",
      { messages, tools: [calculator], toolChoice: { name: "calculator" }, maxTokens: 50 },
      { reasoning: { effort: "low" }, input: "ignored", max_output_tokens: 9 },
      true,
    );
    expect(body).toEqual({
      model: "gpt-5-mini",
      instructions: "One.\n\nTwo.",
      input: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Let me check." },
        { type: "function_call", call_id: "call_1", name: "calculator", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "570" },
      ],
      tools: [
        {
          type: "function",
          name: "calculator",
          description: calculator.description,
          parameters: calculator.inputSchema,
          strict: false,
        },
      ],
      tool_choice: { type: "function", name: "calculator" },
      stream: true,
      reasoning: { effort: "low" },
      max_output_tokens: 50,
    });
  });
});
