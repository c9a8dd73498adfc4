import { describe, expect, it } from "vitest";
import { sseResponse } from "./sse-response.js";

async function readAll(response: Response): Promise<string> {
  return await response.text();
}

describe("sseResponse", () => {
  it("writes the preamble, then each frame in order, and ends with the frames", async () => {
    async function* frames() {
      yield "data: 1\n\n";
      yield "data: 2\n\n";
    }
    const response = sseResponse({
      frames: frames(),
      signal: new AbortController().signal,
      heartbeatMs: 60_000,
      headers: { "x-protocol": "v1" },
      onError: () => {},
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("x-protocol")).toBe("v1");
    expect(await readAll(response)).toBe(": connected\n\ndata: 1\n\ndata: 2\n\n");
  });

  it("ends the source when the client goes away, and hands a source's error to onError", async () => {
    let returned = false;
    const client = new AbortController();
    let release: () => void = () => {};
    async function* endless() {
      try {
        yield "data: first\n\n";
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        yield "data: never\n\n";
      } finally {
        returned = true;
      }
    }
    const response = sseResponse({
      frames: endless(),
      signal: client.signal,
      heartbeatMs: 60_000,
      onError: () => {},
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("first")) seen += decoder.decode((await reader.read()).value);
    await reader.cancel();
    client.abort();
    release();
    await expect.poll(() => returned).toBe(true);

    const errors: unknown[] = [];
    async function* failing(): AsyncGenerator<string> {
      yield "data: a\n\n";
      throw new Error("store down");
    }
    const failed = sseResponse({
      frames: failing(),
      signal: new AbortController().signal,
      heartbeatMs: 60_000,
      onError: (error) => errors.push(error),
    });
    expect(await readAll(failed)).toBe(": connected\n\ndata: a\n\n");
    expect(errors).toHaveLength(1);
  });

  it("writes a heartbeat comment while the source has nothing to say", async () => {
    let release: () => void = () => {};
    async function* quiet() {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      yield "data: late\n\n";
    }
    const response = sseResponse({
      frames: quiet(),
      signal: new AbortController().signal,
      heartbeatMs: 5,
      preamble: "",
      onError: () => {},
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes(": heartbeat\n\n")) seen += decoder.decode((await reader.read()).value);
    release();
    while (!seen.includes("data: late")) seen += decoder.decode((await reader.read()).value);
    expect(seen.startsWith(": heartbeat\n\n")).toBe(true);
    await reader.cancel();
  });

  it("hands a frames function a signal that aborts when only the body is cancelled", async () => {
    let given: AbortSignal | undefined;
    let ended!: () => void;
    const sourceEnded = new Promise<void>((resolve) => (ended = resolve));
    async function* waiting(signal: AbortSignal) {
      try {
        yield "data: first\n\n";
        // Waits for the client to go away, as a follower waits for a store's next event.
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      } finally {
        ended();
      }
    }
    const response = sseResponse({
      frames: (signal) => {
        given = signal;
        return waiting(signal);
      },
      signal: new AbortController().signal, // a host that never aborts it
      heartbeatMs: 60_000,
      onError: () => {},
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("data: first")) seen += (await reader.read()).value ?? "";
    expect(given?.aborted).toBe(false);
    await reader.cancel();
    await sourceEnded;
    expect(given?.aborted).toBe(true);
  });
});
