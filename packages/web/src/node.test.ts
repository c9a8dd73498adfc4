import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toNodeListener } from "./node.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(
  handler: (request: Request) => Response | Promise<Response>,
  options = {},
): Promise<string> {
  server = createServer(toNodeListener(handler, options));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POSTs `chunks` with chunked transfer encoding (no Content-Length); resolves status and body. */
function postChunked(url: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may close once it has answered 413: that is the point, not a failure.
    req.on("error", (error) => (error.message.includes("EPIPE") ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const MiB = 1024 * 1024;

/**
 * A client that POSTs a chunked body (64 KiB chunks) over a raw socket for as long as the server
 * takes it, up to `limit` bytes, then ends. Resolves the bytes that came back and how many bytes
 * the server's sockets read, counted on the server's side.
 */
async function flood(
  headers: string,
  limit: number,
): Promise<{ reply: string; serverRead: number }> {
  const accepted: Socket[] = [];
  server!.on("connection", (socket: Socket) => accepted.push(socket));
  const { port } = server!.address() as AddressInfo;
  const piece = Buffer.concat([
    Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
    Buffer.alloc(64 * 1024, 0x20),
    Buffer.from("\r\n"),
  ]);
  const reply = await new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    let sent = 0;
    let closed = false;
    socket.setEncoding("latin1");
    socket.on("data", (data: string) => {
      got += data;
    });
    socket.on("error", () => {}); // EPIPE or ECONNRESET once the server closes: expected
    socket.on("close", () => {
      closed = true;
      resolve(got);
    });
    socket.write(`POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n${headers}\r\n`);
    const pump = () => {
      while (!closed && sent < limit) {
        sent += 64 * 1024;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
      if (!closed) socket.end("0\r\n\r\n");
    };
    pump();
  });
  return { reply, serverRead: accepted.reduce((sum, socket) => sum + socket.bytesRead, 0) };
}

describe("toNodeListener", () => {
  it("passes method, URL, headers and body through, and sends every Set-Cookie back", async () => {
    const url = await listen(async (request) => {
      const headers = new Headers({ "content-type": "application/json" });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response(
        JSON.stringify({
          method: request.method,
          url: request.url,
          custom: request.headers.get("x-custom"),
          body: await request.text(),
        }),
        { status: 202, headers },
      );
    });
    const response = await fetch(`${url}/a/b?c=d`, {
      method: "POST",
      headers: { "x-custom": "yes" },
      body: "hello",
    });
    expect(response.status).toBe(202);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({
      method: "POST",
      url: `${url}/a/b?c=d`,
      custom: "yes",
      body: "hello",
    });
  });

  it("answers 413 to a body over its cap, declared or streamed, before the handler reads it all", async () => {
    const seen: number[] = [];
    const url = await listen(
      async (request) => {
        try {
          seen.push((await request.arrayBuffer()).byteLength);
        } catch {
          seen.push(-1); // the stream errored at the cap
        }
        return new Response("read");
      },
      { maxBodyBytes: 1000 },
    );
    const declared = await fetch(url, { method: "POST", body: "x".repeat(5000) });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe("payload_too_large");
    const streamed = await postChunked(
      url,
      Array.from({ length: 10 }, () => "y".repeat(400)),
    );
    expect(streamed.status).toBe(413);
    const small = await postChunked(url, ["z".repeat(400), "z".repeat(400)]);
    expect(small).toEqual({ status: 200, body: "read" });
    expect(seen).toContain(800);
    expect(seen.filter((bytes) => bytes > 1000)).toEqual([]);
  });

  it("a body over the cap after the handler already answered (unread) leaves that answer and the server alive", async () => {
    const url = await listen(() => new Response("no", { status: 403 }), { maxBodyBytes: 1000 });
    const refused = await postChunked(
      url,
      Array.from({ length: 20 }, () => "y".repeat(400)),
    );
    expect(refused).toEqual({ status: 403, body: "no" });
    expect((await fetch(url)).status).toBe(403);
  });

  it("a handler that stops reading a body midway (its own cap) leaves its answer and the server alive", async () => {
    const url = await listen(async (request) => {
      const reader = request.body!.getReader();
      await reader.read();
      await reader.cancel();
      return new Response("enough", { status: 413 });
    });
    const cut = await postChunked(
      url,
      Array.from({ length: 50 }, () => "y".repeat(4000)),
    );
    expect(cut).toEqual({ status: 413, body: "enough" });
    const next = await fetch(url, { method: "POST", body: "short" });
    expect(await next.text()).toBe("enough");
  });

  it("stops reading a body the handler refused at its own cap: connection: close, not a drain without end", async () => {
    await listen(async (request) => {
      const reader = request.body!.getReader();
      let size = 0;
      while (size <= 64 * 1024) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
      }
      await reader.cancel();
      return new Response("too big", { status: 413 });
    });
    const { reply, serverRead } = await flood("", 64 * MiB);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(serverRead).toBeLessThan(4 * MiB); // of the 64 MiB the client would send
  });

  it("stops reading a body the handler answered without reading (a 401): connection: close", async () => {
    await listen(() => new Response("who are you", { status: 401 }));
    const { reply, serverRead } = await flood("", 64 * MiB);
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(serverRead).toBeLessThan(4 * MiB);
  });

  it("stops reading a body over its own cap: the 413 closes the connection", async () => {
    await listen(async (request) => new Response(await request.text()), { maxBodyBytes: 1000 });
    const { reply, serverRead } = await flood("", 64 * MiB);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(serverRead).toBeLessThan(4 * MiB);
  });

  it("keeps a connection alive after a body read whole, or refused once all of it came", async () => {
    await listen(async (request) => {
      if (request.headers.get("x-read") === "no") return new Response("unread", { status: 401 });
      return new Response(`read ${(await request.text()).length}`);
    });
    const { port } = server!.address() as AddressInfo;
    const post = (read: string, body: string) =>
      `POST /x HTTP/1.1\r\nHost: x\r\nx-read: ${read}\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    // Three requests, one after another on one socket: each answer comes on that connection.
    const socket = connect(port, "127.0.0.1");
    socket.setEncoding("latin1");
    let got = "";
    let closed = false;
    const waiters: (() => void)[] = [];
    socket.on("data", (data: string) => {
      got += data;
      for (const waiter of waiters.splice(0)) waiter();
    });
    socket.on("close", () => {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter();
    });
    const answered = async (count: number) => {
      while (!closed && (got.match(/\r\n0\r\n\r\n/g) ?? []).length < count) {
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    socket.write(post("yes", "abc"));
    await answered(1);
    socket.write(post("no", "x".repeat(500)));
    await answered(2);
    socket.write(post("yes", "defg"));
    await answered(3);
    socket.end();
    const reply = got;
    expect(reply.match(/^HTTP\/1\.1 \d+/gm)).toEqual([
      "HTTP/1.1 200",
      "HTTP/1.1 401",
      "HTTP/1.1 200",
    ]);
    expect(reply).not.toMatch(/connection: close/i);
    expect(reply).toContain("read 3");
    expect(reply).toContain("read 4");
  });

  it("streams a response as it is written: the first chunk arrives before the handler ends it", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const url = await listen(
      () =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode("first;"));
              await gate; // the rest only after the client saw the first chunk
              controller.enqueue(new TextEncoder().encode("second"));
              controller.close();
            },
          }),
        ),
    );
    const response = await fetch(url);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe("first;");
    release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
    }
    expect(rest).toBe("second");
  });

  it("streams a large body through many backpressure waits without piling up listeners", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const chunk = new Uint8Array(128 * 1024).fill(97);
    let sent = 0;
    const url = await listen(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              if (sent === 100) return controller.close();
              sent += 1;
              controller.enqueue(chunk);
            },
          }),
        ),
    );
    try {
      const body = await (await fetch(url)).arrayBuffer();
      expect(body.byteLength).toBe(100 * chunk.byteLength);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on next tick
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("aborts the request's signal when the client disconnects", async () => {
    let aborted: () => void = () => {};
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const signals: AbortSignal[] = [];
    const url = await listen((request) => {
      signals.push(request.signal);
      request.signal.addEventListener("abort", () => aborted(), { once: true });
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array([1])) }));
    });
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    await response.body!.getReader().read();
    controller.abort();
    await sawAbort; // the test's timeout bounds the wait
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });

  it("builds the URL from Host and the target's path only: an absolute-form target cannot pick the origin", async () => {
    const url = await listen((request) => new Response(request.url));
    const { port } = server!.address() as AddressInfo;
    const seen = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "http://evil.example/x?y=1" });
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve(body));
      });
      req.on("error", reject);
      req.end();
    });
    expect(seen).toBe(`${url}/x?y=1`);
    expect(await (await fetch(`${url}//evil.example/z`)).text()).toBe(`${url}/evil.example/z`);
  });

  it("refuses a bad maxBodyBytes at once", () => {
    expect(() => toNodeListener(() => new Response(), { maxBodyBytes: 0 })).toThrow(TypeError);
  });
});
