import type { Model, ModelRequest, ModelResponse, Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { type TranslateRequest, translate } from "./translate.js";

/** A model that records what it was asked and answers `response`. */
function recording(response: Partial<ModelResponse> = {}) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    id: "test:recording",
    async generate(request) {
      requests.push(request);
      return { text: "", toolCalls: [], ...response };
    },
  };
  return { model, requests };
}

const schema = { type: "object", properties: { city: { type: "string" } } };

const conversation: TranslateRequest = {
  messages: [
    { role: "developer", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "Weather in" },
        { type: "text", text: "Paris and Rome?" },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
        // Some clients send the arguments as an object.
        {
          id: "call_2",
          type: "function",
          function: { name: "get_weather", arguments: { city: "Rome" } },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "Sunny" },
    { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "Rain" }] },
  ],
  tools: [
    {
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: schema },
    },
  ],
};

describe("translate", () => {
  it("maps OpenAI messages and tools onto one model request", async () => {
    const { model, requests } = recording({ text: "Sunny in Paris, rain in Rome." });
    await translate(model, conversation);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toEqual({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in\nParis and Rome?" },
        {
          role: "assistant",
          id: "msg_2",
          content: "",
          toolCalls: [
            {
              id: "call_1",
              name: "get_weather",
              args: { city: "Paris" },
              rawArgs: '{"city":"Paris"}',
            },
            {
              id: "call_2",
              name: "get_weather",
              args: { city: "Rome" },
              rawArgs: '{"city":"Rome"}',
            },
          ],
        },
        { role: "tool", callId: "call_1", name: "get_weather", content: "Sunny", isError: false },
        { role: "tool", callId: "call_2", name: "get_weather", content: "Rain", isError: false },
      ],
      tools: [{ name: "get_weather", description: "Weather", inputSchema: schema }],
    });
  });

  it("system overrides every system and developer message; toolChoice and maxTokens pass on", async () => {
    const { model, requests } = recording();
    await translate(model, {
      ...conversation,
      system: "You are terse.",
      toolChoice: { type: "function", function: { name: "get_weather" } },
      maxTokens: 64,
    });
    expect(requests[0]?.messages[0]).toEqual({ role: "system", content: "You are terse." });
    expect(requests[0]?.messages.filter((m) => m.role === "system")).toHaveLength(1);
    expect(requests[0]?.toolChoice).toEqual({ name: "get_weather" });
    expect(requests[0]?.maxTokens).toBe(64);

    await translate(model, { ...conversation, toolChoice: "required", maxTokens: 0 });
    expect(requests[1]?.toolChoice).toBe("required");
    expect(requests[1]).not.toHaveProperty("maxTokens");
  });

  it("declares a toolkit's tools first and never runs them", async () => {
    let ran = 0;
    const lookup: Tool = {
      name: "lookup",
      description: "Look up",
      inputSchema: { type: "object" },
      source: "custom",
      execute: async () => {
        ran++;
        return { output: "x", isError: false };
      },
    };
    const { model, requests } = recording({
      toolCalls: [{ id: "c1", name: "lookup", args: { q: 1 }, rawArgs: '{"q":1}' }],
      finishReason: "stop",
    });
    const result = await translate(model, { ...conversation, toolkit: { tools: () => [lookup] } });
    expect(requests[0]?.tools.map((t) => t.name)).toEqual(["lookup", "get_weather"]);
    expect(requests[0]?.tools[0]).not.toHaveProperty("execute");
    expect(ran).toBe(0);
    // A call is always tool_calls, whatever the provider said.
    expect(result).toEqual({
      text: "",
      toolCalls: [{ id: "c1", name: "lookup", arguments: '{"q":1}' }],
      finishReason: "tool_calls",
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      model: "test:recording",
    });
  });

  it("maps the finish reason per §11", async () => {
    const cases: [Partial<ModelResponse>, string][] = [
      [{ stopReason: "length", finishReason: "max_tokens" }, "length"],
      [{ stopReason: "refusal", finishReason: "refusal" }, "content_filter"],
      [{ stopReason: "content_filter" }, "content_filter"],
      [{ stopReason: "stop", finishReason: "end_turn" }, "stop"],
      [{ finishReason: "max_tokens" }, "length"],
      [{}, "stop"],
    ];
    for (const [response, finishReason] of cases) {
      const { model } = recording(response);
      expect((await translate(model, conversation)).finishReason).toBe(finishReason);
    }
  });

  it("fires beforeModel and afterModel once each", async () => {
    const { model, requests } = recording({ text: "raw" });
    const seen: string[] = [];
    const result = await translate(model, conversation, {
      beforeModel: (request, info) => {
        seen.push(`before ${info.turn}`);
        return { ...request, maxTokens: 5 };
      },
      afterModel: (response) => {
        seen.push("after");
        return { ...response, text: "rewritten" };
      },
    });
    expect(seen).toEqual(["before 1", "after"]);
    expect(requests[0]?.maxTokens).toBe(5);
    expect(result.text).toBe("rewritten");
  });

  it("rejects what is not an OpenAI message", async () => {
    const { model } = recording();
    await expect(
      translate(model, { messages: [{ role: "function", content: "x" }] as never }),
    ).rejects.toThrow(/message 0 has role "function"/);
    await expect(translate(model, { messages: [], toolChoice: "any" as never })).rejects.toThrow(
      /toolChoice/,
    );
  });
});
