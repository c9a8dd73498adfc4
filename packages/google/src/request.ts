import {
  type AssistantMessage,
  imageParts,
  type Message,
  type ModelRequest,
  type ToolChoice,
  type ToolMessage,
  type ToolSpec,
  toolResultText,
} from "@toolnexus/core";
import { asRecord } from "@toolnexus/provider-utils";
import type { Content, GeminiTool, GenerateContentRequest, Part, ToolConfig } from "./wire.js";

/** The key of this adapter's data in `AssistantMessage.providerData`. */
export const PROVIDER_DATA_KEY = "google";

/**
 * What this adapter keeps in `providerData.google` of an assistant turn: the model's parts as the
 * API sent them (text joined where that is allowed, thought summaries without a signature left
 * out), when any carries a `thoughtSignature`. The API wants those parts back, signatures on the
 * parts they came on, for the model to go on from its own reasoning (Gemini 3 rejects a function
 * call of the current turn sent back without its signature).
 */
export interface GoogleProviderData {
  parts: Part[];
}

/**
 * The parts of an assistant turn as they go back to the API: the ones kept in
 * `providerData.google` (only this adapter's key is read) when they still match the turn (same
 * calls by name and order), else rebuilt from its text and tool calls.
 */
function modelParts(message: AssistantMessage): Part[] {
  const calls = message.toolCalls ?? [];
  const kept = keptParts(message);
  if (kept !== undefined) {
    const keptCalls = kept.filter((part) => part.functionCall !== undefined);
    if (
      keptCalls.length === calls.length &&
      keptCalls.every((part, i) => part.functionCall?.name === calls[i]?.name)
    ) {
      return kept;
    }
  }
  const parts: Part[] = message.content === "" ? [] : [{ text: message.content }];
  for (const call of calls) {
    parts.push({
      functionCall: { name: call.name, args: call.argsError === undefined ? call.args : {} },
    });
  }
  return parts;
}

/** The parts kept in `providerData.google`, each checked for shape; `undefined` without any. */
function keptParts(message: AssistantMessage): Part[] | undefined {
  const own = asRecord(message.providerData?.[PROVIDER_DATA_KEY]);
  if (own === undefined || !Array.isArray(own.parts)) return undefined;
  const parts: Part[] = [];
  for (const item of own.parts) {
    const part = asRecord(item);
    if (part === undefined) return undefined;
    const out: Part = {};
    if (typeof part.text === "string") out.text = part.text;
    if (part.thought === true) out.thought = true;
    if (typeof part.thoughtSignature === "string") out.thoughtSignature = part.thoughtSignature;
    const call = asRecord(part.functionCall);
    if (call !== undefined) {
      if (typeof call.name !== "string") return undefined;
      out.functionCall = {
        name: call.name,
        args: asRecord(call.args) ?? {},
        ...(typeof call.id === "string" ? { id: call.id } : {}),
      };
    }
    parts.push(out);
  }
  return parts;
}

/**
 * Maps the provider-neutral transcript to Gemini `contents`. System messages are hoisted into
 * `systemInstruction` (joined by blank lines); assistant turns are `role: "model"` with their
 * text and `functionCall` parts (the parts kept in `providerData.google`, thought signatures
 * included, when there are some); tool results are `functionResponse` parts of a `user` turn,
 * `{ output }` or `{ error }`. Gemini may send no call ids: a result goes back under its tool's
 * name, in the order of the calls, with the call's id only when the API gave one. Consecutive
 * messages of one role share one content, results ahead of text.
 */
export function toGeminiContents(messages: readonly Message[]): {
  systemInstruction: string | undefined;
  contents: Content[];
} {
  const system: string[] = [];
  const contents: Content[] = [];
  /** Call id -> the id the API gave that call, when it gave one. */
  const apiIds = new Map<string, string>();
  /** Call id -> its position among the calls of its turn, to order the results. */
  const order = new Map<string, number>();

  const add = (role: Content["role"], parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user":
        add("user", [{ text: message.content }]);
        break;
      case "assistant": {
        const parts = modelParts(message);
        const sentCalls = parts.filter((part) => part.functionCall !== undefined);
        (message.toolCalls ?? []).forEach((call, index) => {
          order.set(call.id, index);
          const sentId = sentCalls[index]?.functionCall?.id;
          if (sentId !== undefined) apiIds.set(call.id, sentId);
        });
        add("model", parts);
        break;
      }
      case "tool": {
        // The whole run of results, put in the order of the calls they answer.
        const results: ToolMessage[] = [];
        while (messages[i]?.role === "tool") results.push(messages[i++] as ToolMessage);
        i--;
        const position = (result: ToolMessage) => order.get(result.callId) ?? results.length;
        const sorted = results
          .map((result, index) => ({ result, index }))
          .sort((a, b) => position(a.result) - position(b.result) || a.index - b.index)
          .map(({ result }) => result);
        const parts: Part[] = sorted.map((result) => {
          const id = apiIds.get(result.callId);
          // Images go in the function response's own parts; resources as text after the output.
          const text = toolResultText(result.content, result.parts, true);
          const images = imageParts(result.parts);
          return {
            functionResponse: {
              ...(id === undefined ? {} : { id }),
              name: result.name,
              response: result.isError ? { error: text } : { output: text },
              ...(images.length === 0
                ? {}
                : {
                    parts: images.map((image) => ({
                      inlineData: { mimeType: image.mimeType, data: image.data },
                    })),
                  }),
            },
          };
        });
        const last = contents.at(-1);
        // Results open the user turn, ahead of any text already there.
        if (last?.role === "user") last.parts.unshift(...parts);
        else contents.push({ role: "user", parts });
        break;
      }
    }
  }
  return {
    systemInstruction: system.length === 0 ? undefined : system.join("\n\n"),
    contents,
  };
}

/** Tool specs as one Gemini tool of `functionDeclarations` (the schema as JSON Schema). */
export function toGeminiTools(tools: readonly ToolSpec[]): GeminiTool[] {
  return [
    {
      functionDeclarations: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.inputSchema as Record<string, unknown>,
      })),
    },
  ];
}

/** A {@link ToolChoice} as Gemini's `toolConfig` (`"required"` is mode `ANY`). */
export function toGeminiToolConfig(choice: ToolChoice): ToolConfig {
  if (typeof choice !== "string") {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
  }
  const mode = choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO";
  return { functionCallingConfig: { mode } };
}

/** Keys `requestParams` cannot override. */
const OWNED = ["contents", "tools"] as const;

/**
 * The request body for one call: `contents`, the hoisted `systemInstruction`, and when there are
 * any, `tools`. `requestParams` are merged in and win (e.g. `generationConfig`, `safetySettings`,
 * `toolConfig`), except `contents` and `tools`, and except the request's own `toolChoice` and
 * `maxTokens` (`generationConfig.maxOutputTokens`), which win over them; without tools, a
 * `toolConfig` is dropped.
 */
export function generateContentBody(
  request: ModelRequest,
  requestParams: Readonly<Record<string, unknown>>,
): GenerateContentRequest {
  const params: Record<string, unknown> = { ...requestParams };
  for (const key of OWNED) delete params[key];
  const hasTools = request.tools.length > 0;
  if (!hasTools) delete params.toolConfig;

  const { systemInstruction, contents } = toGeminiContents(request.messages);
  const body: GenerateContentRequest = {
    contents,
    ...(systemInstruction === undefined
      ? {}
      : { systemInstruction: { parts: [{ text: systemInstruction }] } }),
    ...(hasTools ? { tools: toGeminiTools(request.tools) } : {}),
  };
  Object.assign(body, params);
  if (hasTools && request.toolChoice !== undefined) {
    body.toolConfig = toGeminiToolConfig(request.toolChoice);
  }
  if (request.maxTokens !== undefined && request.maxTokens > 0) {
    body.generationConfig = {
      ...asRecord(body.generationConfig),
      maxOutputTokens: request.maxTokens,
    };
  }
  return body;
}
