import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request the mock server received. Header names are lower-case. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `"/v1/chat/completions"`. */
  path: string;
  headers: Record<string, string>;
  /** The body as text, exactly as sent. */
  rawBody: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  body: unknown;
}

/** A JSON answer. */
export interface JsonReply {
  status?: number;
  headers?: Record<string, string>;
  json: unknown;
}

/** A raw text answer, e.g. malformed JSON or an HTML error page. */
export interface TextReply {
  status?: number;
  headers?: Record<string, string>;
  text: string;
}

/**
 * A streamed answer: each chunk is written separately (with `chunkDelayMs` between writes, so
 * the client reads them apart), then the response ends, or the socket is destroyed when `drop`
 * is set (a connection lost mid-stream).
 */
export interface StreamReply {
  status?: number;
  headers?: Record<string, string>;
  chunks: readonly (string | Uint8Array)[];
  chunkDelayMs?: number;
  drop?: boolean;
}

/** The socket is destroyed without an answer (a dropped connection). */
export interface DropReply {
  drop: true;
}

/** Answers with `reply` after `delayMs` (a slow server; close() cuts the wait short). */
export interface DelayedReply {
  delayMs: number;
  reply: MockReply;
}

/** Everything the mock server can answer. */
export type MockReply = JsonReply | TextReply | StreamReply | DropReply | DelayedReply;

/** Decides the answer to the `index`-th request (0-based). */
export type MockHandler = (request: RecordedRequest, index: number) => MockReply;

/** A running mock server. */
export interface MockServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every request received so far, in arrival order. */
  requests: RecordedRequest[];
  /**
   * The body bytes of each streamed reply that the client took, by request index: writes wait
   * for the socket to drain, so this stops growing soon after the client stops reading.
   */
  sent: number[];
  /** Stops the server and destroys open connections. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (a free port) that records each request and answers from a
 * script: an array of replies played in order (the last one repeats) or a handler function.
 * Meant for testing model adapters against provider-shaped payloads without a network; import
 * it from `@toolnexus/provider-utils/testing` in tests only (it needs `node:http`).
 */
export async function startMockServer(
  script: readonly MockReply[] | MockHandler,
): Promise<MockServer> {
  const requests: RecordedRequest[] = [];
  const sent: number[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) {
        setImmediate(resolve);
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const pick = (request: RecordedRequest, index: number): MockReply => {
    if (typeof script === "function") return script(request, index);
    const reply = script[Math.min(index, script.length - 1)];
    if (reply === undefined) throw new Error("startMockServer: the script is empty");
    return reply;
  };

  const answer = async (res: ServerResponse, reply: MockReply, index: number): Promise<void> => {
    if ("delayMs" in reply) {
      await wait(reply.delayMs);
      if (closed) return;
      return answer(res, reply.reply, index);
    }
    if ("chunks" in reply) {
      res.writeHead(reply.status ?? 200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        ...reply.headers,
      });
      res.flushHeaders();
      for (const chunk of reply.chunks) {
        if (closed || res.destroyed) return;
        const flushed = res.write(chunk);
        sent[index] =
          (sent[index] ?? 0) +
          (typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength);
        // Backpressure: a client that stopped reading stops the writes (a huge reply is not
        // buffered here whole).
        if (!flushed) await drained(res);
        await wait(reply.chunkDelayMs ?? 2);
      }
      if (reply.drop) res.socket?.destroy();
      else res.end();
      return;
    }
    if ("drop" in reply) {
      res.socket?.destroy();
      return;
    }
    if ("json" in reply) {
      res.writeHead(reply.status ?? 200, {
        "content-type": "application/json",
        ...reply.headers,
      });
      res.end(JSON.stringify(reply.json));
      return;
    }
    res.writeHead(reply.status ?? 200, { "content-type": "text/plain", ...reply.headers });
    res.end(reply.text);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const rawBody = Buffer.concat(parts).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        rawBody,
        body,
      };
      const index = requests.length;
      requests.push(recorded);
      let reply: MockReply;
      try {
        reply = pick(recorded, index);
      } catch (thrown) {
        // A broken script answers 500 with the reason instead of leaving the client hanging.
        const reason = thrown instanceof Error ? thrown.message : String(thrown);
        reply = { status: 500, text: `mock server script failed: ${reason}` };
      }
      answer(res, reply, index).catch(() => res.socket?.destroy());
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sent,
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves when `res` can take more data, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Where {@link splitBytes} cuts: before a marker, or `offset` bytes into it. */
export type ByteCut = string | { at: string; offset: number };

/**
 * Cuts `text` into byte chunks. Each cut finds its marker after the previous cut and cuts just
 * before it (a string) or `offset` bytes into it (`{ at, offset }`), e.g.
 * `{ at: "é", offset: 1 }` splits the two bytes of "é". Use it to split an SSE body mid-key,
 * mid-escape or inside a multi-byte UTF-8 character.
 */
export function splitBytes(text: string, cuts: readonly ByteCut[]): Uint8Array[] {
  const bytes = Buffer.from(text, "utf8");
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    const marker = typeof cut === "string" ? cut : cut.at;
    const offset = typeof cut === "string" ? 0 : cut.offset;
    const found = bytes.indexOf(Buffer.from(marker, "utf8"), from);
    if (found === -1) throw new Error(`splitBytes: ${JSON.stringify(marker)} not found`);
    const at = found + offset;
    if (at <= from || at >= bytes.length) {
      throw new Error(`splitBytes: the cut at byte ${at} is out of order or out of range`);
    }
    out.push(new Uint8Array(bytes.subarray(from, at)));
    from = at;
  }
  out.push(new Uint8Array(bytes.subarray(from)));
  return out;
}

/** Formats one SSE event: an optional `event:` line, one `data:` line per line, a blank line. */
export function sseEvent(data: unknown, event?: string): string {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  const lines = text.split("\n").map((line) => `data: ${line}`);
  return `${event === undefined ? "" : `event: ${event}\n`}${lines.join("\n")}\n\n`;
}

/** The mock server of the running test, from {@link mockServerPerTest}. */
export interface MockServerSlot {
  /** The server the running test started, until it is closed after the test. */
  readonly server: MockServer | undefined;
  /** Starts a server answering from `script` (closing the test's earlier one). */
  serve(script: readonly MockReply[] | MockHandler): Promise<MockServer>;
}

/**
 * One mock server per test, for a test file's top level: pass vitest's `afterEach`, and every
 * server a test starts with `serve` is closed after it, even when the test fails.
 *
 * @example
 * const mock = mockServerPerTest(afterEach);
 * it("answers", async () => {
 *   const { url } = await mock.serve([{ json: { ok: true } }]);
 *   // ... then read mock.server?.requests
 * });
 */
export function mockServerPerTest(afterEach: (hook: () => Promise<void>) => void): MockServerSlot {
  let current: MockServer | undefined;
  afterEach(async () => {
    const server = current;
    current = undefined;
    await server?.close();
  });
  return {
    get server() {
      return current;
    },
    async serve(script) {
      const before = current;
      current = undefined;
      await before?.close();
      current = await startMockServer(script);
      return current;
    },
  };
}
