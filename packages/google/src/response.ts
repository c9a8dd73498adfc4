import {
  type ModelResponse,
  randomId,
  type StopReason,
  type ToolCall,
  toolCall,
  type Usage,
} from "@toolnexus/core";
import {
  asRecord,
  tokenCount as count,
  malformedResponse,
  type ParseContext,
  ProviderError,
  usageFromCounts,
} from "@toolnexus/provider-utils";
import { type GoogleProviderData, PROVIDER_DATA_KEY } from "./request.js";
import type { Part } from "./wire.js";

/** Who is parsing (the stream assemblers take it from here). */
export type { ParseContext };

/**
 * Folds the parts of one reply (all of a `generateContent` answer, or the parts of each stream
 * chunk in turn) into text, reasoning (the thought summaries' text), tool calls and the parts to
 * keep for the next request.
 */
export class PartsAccumulator {
  text = "";
  /** The text of the thought summaries (`thought: true` parts), joined as they arrive. */
  reasoning = "";
  readonly calls: ToolCall[] = [];
  /** The parts as they go back: text joined where allowed, unsigned thought summaries left out. */
  readonly kept: Part[] = [];
  #signed = false;
  readonly #idPrefix: () => string;

  /** `idPrefix` gives the prefix of generated call ids (read when the first one is needed). */
  constructor(idPrefix: () => string) {
    this.#idPrefix = idPrefix;
  }

  /** Takes the parts of one chunk; returns the text and reasoning it adds and the calls it completes. */
  push(parts: unknown): { text: string; reasoning: string; calls: ToolCall[] } {
    let text = "";
    let reasoning = "";
    const calls: ToolCall[] = [];
    if (!Array.isArray(parts)) return { text, reasoning, calls };
    for (const item of parts) {
      const part = asRecord(item);
      if (part === undefined) continue;
      const signature =
        typeof part.thoughtSignature === "string" && part.thoughtSignature !== ""
          ? part.thoughtSignature
          : undefined;
      if (signature !== undefined) this.#signed = true;
      const fn = asRecord(part.functionCall);
      if (fn !== undefined) {
        // A call without a name is a fragment of streamed arguments (an opt-in Vertex feature
        // this adapter does not ask for): skipped.
        if (typeof fn.name !== "string" || fn.name === "") continue;
        // `args` is an object, or absent for a call without arguments. Anything else (a string,
        // an array) is kept as its JSON in `rawArgs`, and the call gets an `argsError`.
        const given = asRecord(fn.args);
        const args = given ?? {};
        const raw =
          given !== undefined || fn.args === undefined || fn.args === null
            ? JSON.stringify(args)
            : JSON.stringify(fn.args);
        const apiId = typeof fn.id === "string" && fn.id !== "" ? fn.id : undefined;
        const id = apiId ?? `${this.#idPrefix()}_${this.calls.length}`;
        const call = toolCall(id, fn.name, raw);
        this.calls.push(call);
        calls.push(call);
        this.kept.push({
          functionCall: { ...(apiId === undefined ? {} : { id: apiId }), name: fn.name, args },
          ...(signature === undefined ? {} : { thoughtSignature: signature }),
        });
        continue;
      }
      if (typeof part.text !== "string") continue;
      const thought = part.thought === true;
      if (thought) {
        reasoning += part.text;
        this.reasoning += part.text;
        // A thought summary is not the answer; it goes back only when it carries a signature.
        if (signature !== undefined) {
          this.kept.push({ text: part.text, thought: true, thoughtSignature: signature });
        }
        continue;
      }
      text += part.text;
      this.text += part.text;
      this.#keepText(part.text, signature);
    }
    return { text, reasoning, calls };
  }

  /**
   * Joins text to the previous kept text part unless either carries a signature (the API asks
   * that a signed part be neither merged with another nor split).
   */
  #keepText(text: string, signature: string | undefined): void {
    const last = this.kept.at(-1);
    if (
      signature === undefined &&
      last !== undefined &&
      last.text !== undefined &&
      last.thought !== true &&
      last.thoughtSignature === undefined
    ) {
      last.text += text;
      return;
    }
    if (text === "" && signature === undefined) return;
    this.kept.push(signature === undefined ? { text } : { text, thoughtSignature: signature });
  }

  /** `{ google: { parts } }` when a part carried a thought signature, else `undefined`. */
  providerData(): Record<string, GoogleProviderData> | undefined {
    if (!this.#signed) return undefined;
    return { [PROVIDER_DATA_KEY]: { parts: this.kept.map((part) => ({ ...part })) } };
  }
}

/**
 * Reads a `generateContent` response: the first candidate's text parts joined (thought
 * summaries left out of the text, and joined as the `reasoning`), its `functionCall` parts as tool calls (ids generated when the API gives
 * none; `args` that are not an object give the call an `argsError`, their JSON kept in `rawArgs`), `usageMetadata` (see {@link usageOf}), `responseId` as the id, the finish reason (raw and
 * normalized; a prompt blocked by `promptFeedback.blockReason` is `content_filter`) and the
 * signed parts in `providerData.google`. A body carrying an `error` is a {@link ProviderError}.
 */
export function parseGenerateContent(json: unknown, context: ParseContext): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformedResponse(context, "the response is not a JSON object");
  throwIfErrorBody(body, context, "provider_response");
  const responseId =
    typeof body.responseId === "string" && body.responseId !== "" ? body.responseId : undefined;
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  const candidate = asRecord(candidates[0]);
  const blockReason = asRecord(body.promptFeedback)?.blockReason;
  if (candidate === undefined && typeof blockReason !== "string") {
    throw malformedResponse(context, "the response has no candidates");
  }
  const parts = new PartsAccumulator(callIdPrefix(responseId));
  parts.push(asRecord(candidate?.content)?.parts);
  const response: ModelResponse = { text: parts.text, toolCalls: parts.calls };
  if (parts.reasoning !== "") response.reasoning = parts.reasoning;
  if (responseId !== undefined) response.id = responseId;
  const usage = usageOf(body.usageMetadata);
  if (usage !== undefined) response.usage = usage;
  const finish = finishReasonOf(candidate, blockReason);
  if (finish !== undefined) response.finishReason = finish;
  const stopReason = stopReasonOf(finish, parts.calls.length > 0, typeof blockReason === "string");
  if (stopReason !== undefined) response.stopReason = stopReason;
  const providerData = parts.providerData();
  if (providerData !== undefined) response.providerData = providerData;
  return response;
}

/** The candidate's `finishReason`, else the prompt's `blockReason`. */
export function finishReasonOf(
  candidate: Record<string, unknown> | undefined,
  blockReason: unknown,
): string | undefined {
  if (typeof candidate?.finishReason === "string" && candidate.finishReason !== "") {
    return candidate.finishReason;
  }
  return typeof blockReason === "string" && blockReason !== "" ? blockReason : undefined;
}

/**
 * The prefix of the ids generated for calls the API sent without one: stable for one response
 * (`call_<responseId>`, so a streamed and a plain answer agree), unique across turns.
 */
export function callIdPrefix(responseId: string | undefined): () => string {
  let prefix: string | undefined;
  return () => {
    prefix ??= responseId === undefined ? randomId("call") : `call_${responseId}`;
    return prefix;
  };
}

/** Finish reasons of a reply the provider's filters stopped. */
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "LANGUAGE",
]);

/**
 * The normalized {@link StopReason}: `tool_calls` whenever the model called a tool (Gemini says
 * `STOP` then); `MAX_TOKENS` -> `length`; a safety, recitation, blocklist or prohibited-content
 * stop, or a blocked prompt -> `content_filter`; `STOP` and anything else -> `stop`. `undefined`
 * without a finish reason or a call.
 */
export function stopReasonOf(
  finishReason: string | undefined,
  calledTools: boolean,
  promptBlocked: boolean,
): StopReason | undefined {
  if (calledTools) return "tool_calls";
  if (promptBlocked) return "content_filter";
  if (finishReason === undefined) return undefined;
  if (finishReason === "MAX_TOKENS") return "length";
  if (FILTERED.has(finishReason)) return "content_filter";
  return "stop";
}

/**
 * Maps `usageMetadata` to a {@link Usage}: `promptTokens` is `promptTokenCount` (cached tokens
 * included) plus `toolUsePromptTokenCount`; `completionTokens` is `candidatesTokenCount` plus
 * `thoughtsTokenCount` (Gemini counts thoughts apart from the answer); `totalTokens` is
 * `totalTokenCount` when sent; `cachedContentTokenCount` is `cacheReadTokens` and
 * `thoughtsTokenCount` `reasoningTokens` (each left out when zero or absent).
 */
export function usageOf(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (usage === undefined) return undefined;
  const prompt = count(usage.promptTokenCount);
  const candidates = count(usage.candidatesTokenCount);
  const thoughts = count(usage.thoughtsTokenCount);
  const toolUse = count(usage.toolUsePromptTokenCount);
  const total = count(usage.totalTokenCount);
  if (prompt === undefined && candidates === undefined && total === undefined) return undefined;
  return usageFromCounts({
    prompt: (prompt ?? 0) + (toolUse ?? 0),
    completion: (candidates ?? 0) + (thoughts ?? 0),
    total,
    cacheRead: count(usage.cachedContentTokenCount),
    reasoning: thoughts,
  });
}

/**
 * Throws when a 200 body or a stream event is an error report, Google's
 * `{ error: { code, message, status } }`.
 */
export function throwIfErrorBody(
  body: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
): void {
  const error = asRecord(body.error);
  if (error === undefined) return;
  const raw = typeof error.message === "string" ? error.message : JSON.stringify(body.error);
  // Not redacted here: ProviderError redacts every field, after this and before any cut.
  const providerMessage = raw;
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider: context.provider,
    providerMessage,
    secrets: context.secrets,
  };
  if (typeof error.status === "string") init.providerType = error.status;
  const reason = errorReason(error);
  if (reason !== undefined) init.providerCode = reason;
  const status = typeof error.code === "number" ? error.code : undefined;
  if (status !== undefined) {
    init.status = status;
    init.retryable = status === 429 || status >= 500;
  }
  throw new ProviderError(
    code,
    `${context.provider}: the provider reported an error: ${providerMessage}`,
    init,
  );
}

/** The `reason` of the first `google.rpc.ErrorInfo` detail (e.g. `API_KEY_INVALID`). */
export function errorReason(error: Record<string, unknown>): string | undefined {
  const details = Array.isArray(error.details) ? error.details : [];
  for (const item of details) {
    const detail = asRecord(item);
    if (typeof detail?.reason === "string" && detail.reason !== "") return detail.reason;
  }
  return undefined;
}
