import type { Model, ModelStreamPart } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { collectParts, finishOf, rejectionOf, streamOf } from "./stream-parts.js";

async function* parts(...list: ModelStreamPart[]): AsyncGenerator<ModelStreamPart> {
  yield* list;
}

const finishPart: ModelStreamPart = { type: "finish", response: { text: "hi", toolCalls: [] } };

describe("stream test helpers", () => {
  it("collectParts keeps every part in order; finishOf gives the finish response", async () => {
    const text: ModelStreamPart = { type: "text", delta: "hi" };
    expect(await collectParts(parts(text, finishPart))).toEqual([text, finishPart]);
    expect(await finishOf(parts(text, finishPart))).toEqual({ text: "hi", toolCalls: [] });
    await expect(finishOf(parts(text))).rejects.toThrow("no finish part");
  });

  it("rejectionOf gives the rejection, and fails on a resolved promise", async () => {
    const reason = new Error("boom");
    expect(await rejectionOf(Promise.reject(reason))).toBe(reason);
    await expect(rejectionOf(Promise.resolve(1))).rejects.toThrow("expected a rejection");
  });

  it("streamOf streams with the signal, and refuses a model that does not stream", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const model: Model = {
      id: "m",
      generate: async () => ({ text: "", toolCalls: [] }),
      stream: (_request, call) => {
        seen.push(call?.signal);
        return parts(finishPart);
      },
    };
    const signal = new AbortController().signal;
    const request = { messages: [], tools: [] };
    expect(await collectParts(streamOf(model, request, signal))).toEqual([finishPart]);
    expect(seen).toEqual([signal]);
    const { stream: _stream, ...plain } = model;
    expect(() => streamOf(plain, request)).toThrow("the adapter streams");
  });
});
