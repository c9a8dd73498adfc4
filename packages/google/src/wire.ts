/**
 * The parts of the Gemini API wire format (`generateContent`, `streamGenerateContent`) this
 * adapter writes and reads, kept local (no SDK dependency). Shapes as the API documents them
 * (ai.google.dev/api/generate-content) and as recorded responses show them.
 */

/** A function call the model asked for. The Gemini API may leave out `id`. */
export interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/** A tool result sent back: `response` is a JSON object (`{ output }` or `{ error }`). */
export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
  /** Media of the result (a tool result's image parts), inline and base64. */
  parts?: { inlineData: { mimeType: string; data: string } }[];
}

/**
 * One part of a content. `thought: true` marks a thought summary; `thoughtSignature` is the
 * opaque signature of the model's reasoning that must go back with the part it came on.
 */
export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
}

export interface Content {
  role: "user" | "model";
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description: string;
  /** The arguments as JSON Schema (the API's `parametersJsonSchema`, any JSON Schema). */
  parametersJsonSchema: Record<string, unknown>;
}

export interface GeminiTool {
  functionDeclarations: FunctionDeclaration[];
}

export interface ToolConfig {
  functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] };
}

/** The request body of `generateContent` and `streamGenerateContent`. */
export interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: GeminiTool[];
  toolConfig?: ToolConfig;
  generationConfig?: Record<string, unknown> & { maxOutputTokens?: number };
}

/** `usageMetadata` of a response (each stream chunk carries the counts so far). */
export interface UsageMetadata {
  /** Every prompt token, cached ones included. */
  promptTokenCount?: number;
  /** Prompt tokens served from the context cache (part of `promptTokenCount`). */
  cachedContentTokenCount?: number;
  /** The answer's tokens, thoughts left out. */
  candidatesTokenCount?: number;
  /** Tokens of the results of tools Google runs itself (search, code execution). */
  toolUsePromptTokenCount?: number;
  /** The model's thinking tokens. */
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}
