/**
 * The parts of the OpenAI Responses API wire format (`POST /v1/responses`) this adapter writes
 * and reads. Kept local (the `openai` SDK is a dev dependency only); the tests type their payloads
 * with the SDK's own types.
 */

/** A reasoning item as the API returns it; sent back verbatim in the next request's `input`. */
export interface ReasoningItem {
  type: "reasoning";
  id: string;
  summary: { type: "summary_text"; text: string }[];
  encrypted_content?: string | null;
  [key: string]: unknown;
}

/** A piece of a function call's output: text, or an image as a `data:` URL. */
export type FunctionOutputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string };

export type ResponsesInputItem =
  | { role: "user" | "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | FunctionOutputContent[] }
  | ReasoningItem;

export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Always `false`: strict mode needs a schema every tool does not have. */
  strict: false;
}

export type ResponsesToolChoice = "auto" | "none" | "required" | { type: "function"; name: string };

/** The request body the adapter builds, before `requestParams` are merged in. */
export interface ResponsesRequestBody {
  model: string;
  input: ResponsesInputItem[];
  instructions?: string;
  tools?: ResponsesFunctionTool[];
  tool_choice?: ResponsesToolChoice;
  max_output_tokens?: number;
  stream?: true;
  [key: string]: unknown;
}
