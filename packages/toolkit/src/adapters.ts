import type { JSONSchema, ToolSpec } from "@toolnexus/core";

/** One tool in OpenAI's `tools` array (Chat Completions function tools). */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: JSONSchema };
}

/** One tool in Anthropic's `tools` array. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JSONSchema;
}

/** One function declaration inside Gemini's tool object. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters: JSONSchema;
}

/** Gemini's tool object: one element wrapping every function declaration. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/**
 * The OpenAI tool schema of each tool, in order (toolnexus SPEC §4):
 * `{ type: "function", function: { name, description, parameters: inputSchema } }`.
 * Schema only: nothing about execution.
 */
export function toOpenAI(tools: Iterable<ToolSpec>): OpenAITool[] {
  return [...tools].map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

/**
 * The Anthropic tool schema of each tool, in order (toolnexus SPEC §4):
 * `{ name, description, input_schema: inputSchema }`.
 */
export function toAnthropic(tools: Iterable<ToolSpec>): AnthropicTool[] {
  return [...tools].map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
}

/**
 * The Gemini tool schema (toolnexus SPEC §4): a one-element array whose
 * `functionDeclarations` hold `{ name, description, parameters: inputSchema }` for every tool,
 * in order. With no tools it is `[{ functionDeclarations: [] }]`, as in every port.
 */
export function toGemini(tools: Iterable<ToolSpec>): GeminiTool[] {
  return [
    {
      functionDeclarations: [...tools].map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
      })),
    },
  ];
}
