// Test-only helpers (never exported from the package): Gemini payloads shaped as the API sends
// them, after the recordings in src/__fixtures__ (see its README): `candidates[0].content.parts`
// with `role: "model"`, a `thoughtSignature` on the first function call (Gemini 3), `finishReason`
// `STOP` also for function calls, `usageMetadata` with `thoughtsTokenCount` apart from
// `candidatesTokenCount`, `modelVersion` and `responseId`; streamed as `data: <json>` events
// separated by CRLF pairs, each chunk a whole response with the next parts.
import { readFileSync } from "node:fs";
import type { KitTurn } from "@toolnexus/provider-utils/testing";
import type { Part, UsageMetadata } from "./wire.js";

export const MODEL_VERSION = "gemini-3-pro-preview";
export const SIGNATURE =
  "EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7IdY8FBMm7Z6dCKFU3Ft0la15gF7Ra";

/** A recorded fixture's text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), "utf8");
}

/** A `.chunks.txt` recording (one response JSON per line) framed as the API streams it. */
export function sseOfChunks(lines: string): string {
  return lines
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `data: ${line}\r\n\r\n`)
    .join("");
}

/** One SSE event as Gemini frames it. */
export function geminiEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

export function usageMetadata(usage: KitTurn["usage"]): UsageMetadata {
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens - thoughts,
    totalTokenCount: usage.totalTokens,
    ...(usage.cacheReadTokens === undefined
      ? {}
      : { cachedContentTokenCount: usage.cacheReadTokens }),
    ...({ promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.promptTokens }] } as object),
    ...(thoughts === 0 ? {} : { thoughtsTokenCount: thoughts }),
  };
}

function finishReason(turn: KitTurn): string {
  return turn.stop === "length" ? "MAX_TOKENS" : "STOP";
}

function callParts(turn: KitTurn): Part[] {
  return (turn.calls ?? []).map((call, i) => ({
    functionCall: { name: call.name, args: call.args },
    ...(i === 0 ? { thoughtSignature: SIGNATURE } : {}),
  }));
}

/** A `generateContent` answer. */
export function response(turn: KitTurn): unknown {
  const parts: Part[] = [];
  if (turn.text !== undefined && turn.text !== "") parts.push({ text: turn.text });
  parts.push(...callParts(turn));
  return {
    candidates: [
      {
        content: { parts, role: "model" },
        finishReason: finishReason(turn),
        index: 0,
        ...((turn.calls ?? []).length > 0
          ? { finishMessage: "Model generated function call(s)." }
          : {}),
      },
    ],
    usageMetadata: usageMetadata(turn.usage),
    modelVersion: MODEL_VERSION,
    responseId: turn.id,
  };
}

/**
 * A `streamGenerateContent?alt=sse` answer: the text in two chunks, the calls in one, then a
 * last chunk with an empty text part, the finish reason and the final usage (as recorded).
 */
export function stream(turn: KitTurn): string {
  const chunk = (parts: Part[], last: boolean) => ({
    candidates: [
      {
        content: { parts, role: "model" },
        ...(last ? { finishReason: finishReason(turn) } : {}),
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(turn.usage),
    modelVersion: MODEL_VERSION,
    responseId: turn.id,
  });
  const text = turn.text ?? "";
  const half = Math.ceil(text.length / 2);
  const events: unknown[] = [];
  for (const piece of [text.slice(0, half), text.slice(half)]) {
    if (piece !== "") events.push(chunk([{ text: piece }], false));
  }
  const calls = callParts(turn);
  if (calls.length > 0) events.push(chunk(calls, false));
  events.push(chunk([{ text: "" }], true));
  return events.map(geminiEvent).join("");
}

const STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** Google's error body: `{ error: { code, message, status } }`. */
export function errorBody(code: number, message: string): unknown {
  return { error: { code, message, status: STATUSES[code] ?? "UNKNOWN" } };
}
