import { describe, expect, it } from "vitest";
import { readSSE, readSSEBatches, SSEParser } from "./sse.js";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>) {
  const events = [];
  for await (const event of readSSE(stream)) events.push(event);
  return events;
}

describe("SSEParser", () => {
  it("parses named events, unnamed events, ids and multi-line data", () => {
    const parser = new SSEParser();
    const events = parser.push(
      'event: message_start\ndata: {"a":1}\n\ndata: line one\ndata: line two\nid: 7\n\n',
    );
    expect(events).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { event: "message", data: "line one\nline two", id: "7" },
    ]);
  });

  it("skips comments, ignores retry and unknown fields, and drops events without data", () => {
    const parser = new SSEParser();
    const events = parser.push(": keep-alive\nretry: 100\nfoo: bar\n\nevent: ping\n\ndata:x\n\n");
    expect(events).toEqual([{ event: "message", data: "x" }]);
  });

  it("handles CRLF and CR line endings, even when CR and LF arrive in different pieces", () => {
    const parser = new SSEParser();
    const events = [
      ...parser.push("data: a\r"),
      ...parser.push("\n\r"),
      ...parser.push("\ndata: b\r\r"),
      ...parser.push("data: c\n\n"),
    ];
    expect(events).toEqual([
      { event: "message", data: "a" },
      { event: "message", data: "b" },
      { event: "message", data: "c" },
    ]);
  });

  it("keeps a partial line until the rest arrives, split anywhere", () => {
    const text = 'event: content_block_delta\ndata: {"x":"y"}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      const parser = new SSEParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(events).toEqual([{ event: "content_block_delta", data: '{"x":"y"}' }]);
    }
  });

  it("delivers a last event that had no blank line when the stream ends", () => {
    const parser = new SSEParser();
    expect(parser.push("data: [DONE]")).toEqual([]);
    expect(parser.end()).toEqual([{ event: "message", data: "[DONE]" }]);
  });

  it("strips exactly one space after the colon", () => {
    const parser = new SSEParser();
    expect(parser.push("data:  two spaces\n\n")).toEqual([
      { event: "message", data: " two spaces" },
    ]);
  });
});

describe("readSSE", () => {
  it("decodes a UTF-8 character split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: héllo €😀\n\n");
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
    expect(await collect(streamOf(chunks))).toEqual([{ event: "message", data: "héllo €😀" }]);
  });

  it("rejects with the abort reason when the signal aborts while waiting", async () => {
    const controller = new AbortController();
    let cancelled = false;
    const silent = new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
    });
    const reason = new Error("stop");
    const iteration = (async () => {
      for await (const _event of readSSE(silent, { signal: controller.signal })) {
        // never reached: the body sends nothing
      }
    })();
    controller.abort(reason);
    await expect(iteration).rejects.toBe(reason);
    expect(cancelled).toBe(true);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _event of readSSE(body)) break;
    expect(cancelled).toBe(true);
  });
});

describe("SSEParser chunk splits", () => {
  const text =
    ': hello\r\nevent: content_block_delta\r\ndata: {"x":"é"}\r\n\r\nid: 3\ndata: a\ndata: b\n\ndata: [DONE]';
  const whole = [
    { event: "content_block_delta", data: '{"x":"é"}' },
    { event: "message", data: "a\nb", id: "3" },
    { event: "message", data: "[DONE]" },
  ];

  it("gives the same events for a body cut at every pair of places", () => {
    for (let a = 1; a < text.length; a++) {
      for (let b = a; b < text.length; b++) {
        const parser = new SSEParser();
        const events = [
          ...parser.push(text.slice(0, a)),
          ...parser.push(text.slice(a, b)),
          ...parser.push(text.slice(b)),
          ...parser.end(),
        ];
        expect(events).toEqual(whole);
      }
    }
  });

  it("delivers a last event cut off after a lone CR", () => {
    const parser = new SSEParser();
    expect(parser.push("data: x\r")).toEqual([]);
    expect(parser.end()).toEqual([{ event: "message", data: "x" }]);
  });

  it("skips a byte order mark at the start", async () => {
    expect(await collect(streamOf(["\uFEFFdata: x\n\n"]))).toEqual([
      { event: "message", data: "x" },
    ]);
  });
});

describe("readSSEBatches", () => {
  it("gives one batch per chunk that completes events, never an empty one, in order", async () => {
    const text = "data: 1\n\ndata: 2\n\n: keep-alive\n\ndata: 3\r\n\r\ndata: été\n\ndata: last";
    const bytes = new TextEncoder().encode(text);
    const expected = (await collect(streamOf([bytes]))).map((e) => e.data);
    expect(expected).toEqual(["1", "2", "3", "été", "last"]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
      const batches: string[][] = [];
      for await (const batch of readSSEBatches(streamOf(chunks), { maxEventBytes: 64 })) {
        batches.push(batch.map((e) => e.data));
      }
      expect(batches.every((batch) => batch.length > 0)).toBe(true);
      expect(batches.length).toBeLessThanOrEqual(3);
      expect(batches.flat()).toEqual(expected);
    }
  });
});
