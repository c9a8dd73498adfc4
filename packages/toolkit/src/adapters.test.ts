// The provider adapters, byte for byte as toolnexus SPEC §4 "Adapter mapping" writes them.
import { ok, type Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createToolkit, toAnthropic, toGemini, toOpenAI } from "./index.js";

const add: Tool = {
  name: "add",
  description: "Add two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  source: "native",
  execute: async () => ok("3"),
};
const ping: Tool = {
  name: "ping",
  description: "",
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  execute: async () => ok("pong"),
};

const ADD_SCHEMA =
  '{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}';
const PING_SCHEMA = '{"type":"object","properties":{}}';

describe("the adapter functions", () => {
  it("OpenAI: {type:function, function:{name, description, parameters}} per tool", () => {
    expect(JSON.stringify(toOpenAI([add, ping]))).toBe(
      `[{"type":"function","function":{"name":"add","description":"Add two numbers","parameters":${ADD_SCHEMA}}},` +
        `{"type":"function","function":{"name":"ping","description":"","parameters":${PING_SCHEMA}}}]`,
    );
  });

  it("Anthropic: {name, description, input_schema} per tool", () => {
    expect(JSON.stringify(toAnthropic([add, ping]))).toBe(
      `[{"name":"add","description":"Add two numbers","input_schema":${ADD_SCHEMA}},` +
        `{"name":"ping","description":"","input_schema":${PING_SCHEMA}}]`,
    );
  });

  it("Gemini: one element wrapping every declaration", () => {
    expect(JSON.stringify(toGemini([add, ping]))).toBe(
      `[{"functionDeclarations":[{"name":"add","description":"Add two numbers","parameters":${ADD_SCHEMA}},` +
        `{"name":"ping","description":"","parameters":${PING_SCHEMA}}]}]`,
    );
  });

  it("no tools: empty arrays, and Gemini's one empty wrapper", () => {
    expect(JSON.stringify(toOpenAI([]))).toBe("[]");
    expect(JSON.stringify(toAnthropic([]))).toBe("[]");
    expect(JSON.stringify(toGemini([]))).toBe('[{"functionDeclarations":[]}]');
  });

  it("carry only the schema: no source, execute or other tool fields", () => {
    const rich: Tool = { ...add, timeoutMs: 5, needsApproval: true, handlesRefusals: true };
    expect(toOpenAI([rich])).toEqual(toOpenAI([add]));
    expect(toAnthropic([rich])).toEqual(toAnthropic([add]));
    expect(toGemini([rich])).toEqual(toGemini([add]));
  });
});

describe("the toolkit's adapters", () => {
  it("follow tools(): same names, same order, byte-exact", async () => {
    const toolkit = await createToolkit({ builtins: false, extraTools: [add, ping] });
    expect(toolkit.tools().map((tool) => tool.name)).toEqual(["add", "ping"]);
    expect(JSON.stringify(toolkit.toOpenAI())).toBe(JSON.stringify(toOpenAI([add, ping])));
    expect(JSON.stringify(toolkit.toAnthropic())).toBe(
      `[{"name":"add","description":"Add two numbers","input_schema":${ADD_SCHEMA}},` +
        `{"name":"ping","description":"","input_schema":${PING_SCHEMA}}]`,
    );
    expect(JSON.stringify(toolkit.toGemini())).toBe(
      `[{"functionDeclarations":[{"name":"add","description":"Add two numbers","parameters":${ADD_SCHEMA}},` +
        `{"name":"ping","description":"","parameters":${PING_SCHEMA}}]}]`,
    );
  });

  it("a built-in reaches the model only through the adapters, with its contract schema", async () => {
    const toolkit = await createToolkit({ builtins: { tools: { read: true } } });
    const read = toolkit.toAnthropic().find((tool) => tool.name === "read");
    expect(JSON.stringify(read?.input_schema)).toBe(
      JSON.stringify(toolkit.get("read")?.inputSchema),
    );
    expect(toolkit.toOpenAI().map((tool) => tool.function.name)).toEqual(
      toolkit.tools().map((tool) => tool.name),
    );
    expect(toolkit.toGemini()[0]?.functionDeclarations.map((tool) => tool.name)).toEqual(
      toolkit.tools().map((tool) => tool.name),
    );
    expect(toolkit.skillsPrompt()).toBe("");
  });
});
