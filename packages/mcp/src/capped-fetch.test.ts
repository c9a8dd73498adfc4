// The transport's fetch against a real HTTP server on 127.0.0.1: bodies past the limits are not
// read whole (the server sees the connection closed before its answer's end), a 2xx body fails
// with the typed error, an error body is cut with a note, and an SSE stream is measured event by
// event (any line endings) and in all.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cappedFetch } from "./capped-fetch.js";
import { McpResponseTooLargeError } from "./errors.js";
import { ERROR_BODY_BYTES } from "./limits.js";

const KIB = 1024;
const BIG = 64 * 1024 * KIB;
const limits = { maxMessageBytes: 64 * KIB, maxStreamBytes: 256 * KIB };
const capped = cappedFetch(limits);
const HEAD = '{"jsonrpc":"2.0","id":1,"result":{"text":"';
/** The text of a JSON answer of exactly maxMessageBytes. */
const AT_LIMIT = "y".repeat(limits.maxMessageBytes - HEAD.length - '"}}'.length);

/** What the server wrote for each path, and whether it got to the end. */
const sent = new Map<string, { bytes: number; finished: boolean; closed: Promise<void> }>();

/** Writes `bytes` of `fill` (after `head`) until done or the client has gone. */
async function pump(res: ServerResponse, path: string, head: string, bytes: number, fill = "x") {
  let closed!: () => void;
  const record = { bytes: 0, finished: false, closed: new Promise<void>((r) => (closed = r)) };
  sent.set(path, record);
  res.once("close", () => closed());
  let gone = false;
  res.once("close", () => {
    gone = true;
  });
  const chunk = Buffer.alloc(64 * KIB, fill);
  const write = async (data: string | Buffer) => {
    record.bytes += Buffer.byteLength(data);
    if (res.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  };
  await write(head);
  for (let left = bytes; left > 0 && !gone; left -= chunk.length) {
    await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
  if (!gone) {
    record.finished = true;
    res.end();
  }
}

const sse = { "content-type": "text/event-stream" };
let server: ReturnType<typeof createServer>;
let base: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const path = req.url ?? "/";
    if (path === "/json-big") {
      res.writeHead(200, { "content-type": "application/json" });
      await pump(res, path, HEAD, BIG);
    } else if (path === "/json-at-limit") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`${HEAD}${AT_LIMIT}"}}`);
    } else if (path === "/error-big") {
      res.writeHead(500, { "content-type": "text/plain" });
      await pump(res, path, "", BIG);
    } else if (path === "/sse-event-big") {
      const id = (JSON.parse(body) as { id: number }).id;
      res.writeHead(200, sse);
      // A complete event first, then one that never ends.
      const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { id } };
      await pump(res, path, `data: ${JSON.stringify(progress)}\n\ndata: `, BIG);
    } else if (path === "/sse-stream-big") {
      res.writeHead(200, sse);
      // Small events, endlessly.
      await pump(res, path, "", BIG, "data: z\n\n");
    } else if (path.startsWith("/sse-events")) {
      // Events just under the limit, with the line ending the query names.
      const eol = { lf: "\n", crlf: "\r\n", cr: "\r" }[path.split("?")[1] ?? "lf"]!;
      res.writeHead(200, sse);
      const event = `data: ${"e".repeat(limits.maxMessageBytes - 16)}${eol}${eol}`;
      for (let i = 0; i < 3; i++) res.write(event);
      res.end();
    } else {
      res.writeHead(204).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Waits until the server has seen the client go, and says how much it wrote. */
async function serverSide(path: string) {
  const record = sent.get(path)!;
  await record.closed;
  return record;
}

describe("a 2xx JSON body", () => {
  it("past maxMessageBytes fails with McpResponseTooLargeError, and the rest is never read", async () => {
    const response = await capped(`${base}/json-big`, { method: "POST" });
    const error = await response.json().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(McpResponseTooLargeError);
    expect(error).toMatchObject({ limit: "maxMessageBytes", limitBytes: 64 * KIB });
    expect((error as Error).message).toContain("maxMessageBytes");
    const written = await serverSide("/json-big");
    expect(written.finished).toBe(false);
    expect(written.bytes).toBeLessThan(BIG);
  });

  it("of exactly maxMessageBytes is read as usual", async () => {
    const response = await capped(`${base}/json-at-limit`, { method: "POST" });
    const body = (await response.json()) as { result: { text: string } };
    expect(body.result.text).toBe(AT_LIMIT);
  });
});

describe("an error body", () => {
  it("is cut at 64 KiB with a note, and the rest is never read", async () => {
    const response = await capped(`${base}/error-big`, { method: "POST" });
    expect(response.status).toBe(500);
    const text = await response.text();
    const note = `\n[cut: the error body is over ${Math.min(ERROR_BODY_BYTES, limits.maxMessageBytes)} bytes]`;
    expect(text.endsWith(note)).toBe(true);
    expect(Buffer.byteLength(text)).toBe(
      Math.min(ERROR_BODY_BYTES, limits.maxMessageBytes) + note.length,
    );
    const written = await serverSide("/error-big");
    expect(written.finished).toBe(false);
    expect(written.bytes).toBeLessThan(BIG);
  });
});

describe("an SSE stream", () => {
  it("on a POST: an event past maxMessageBytes ends the stream with an error answer to the request", async () => {
    const response = await capped(`${base}/sse-event-big`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }),
    });
    const text = await response.text();
    // The complete event before it is delivered; the request's answer is the last event.
    expect(text.startsWith('data: {"jsonrpc":"2.0","method":"notifications/progress"')).toBe(true);
    const last = text.trimEnd().split("\n").at(-1)!;
    const answer = JSON.parse(last.slice("data: ".length)) as Record<string, never>;
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: { data: { limit: "maxMessageBytes", limitBytes: 64 * KIB } },
    });
    expect(answer.error).toHaveProperty("message", expect.stringContaining("SSE event"));
    expect(Buffer.byteLength(text)).toBeLessThan(limits.maxMessageBytes + 1024);
    const written = await serverSide("/sse-event-big");
    expect(written.finished).toBe(false);
  });

  it("that no request waits on: past maxStreamBytes, reading fails with McpResponseTooLargeError", async () => {
    const response = await capped(`${base}/sse-stream-big`, { method: "GET" });
    const reader = response.body!.getReader();
    let read = 0;
    const error = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        read += value.byteLength;
      }
    })().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpResponseTooLargeError);
    expect(error).toMatchObject({ limit: "maxStreamBytes", limitBytes: limits.maxStreamBytes });
    expect(read).toBe(limits.maxStreamBytes);
    const written = await serverSide("/sse-stream-big");
    expect(written.finished).toBe(false);
  });

  it.each(["lf", "crlf", "cr"])(
    "events each under maxMessageBytes pass whole (line endings: %s)",
    async (eol) => {
      const response = await capped(`${base}/sse-events?${eol}`, { method: "GET" });
      const text = await response.text();
      expect(text.match(/data: e+/g)).toHaveLength(3);
      expect(Buffer.byteLength(text)).toBeGreaterThan(limits.maxMessageBytes);
    },
  );
});

it("a response without a body is handed on as it is", async () => {
  const response = await capped(`${base}/nothing`, { method: "DELETE" });
  expect(response.status).toBe(204);
  expect(response.body).toBeNull();
});
