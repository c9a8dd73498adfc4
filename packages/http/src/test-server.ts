// A real HTTP server on 127.0.0.1 for the tests: it records every request and answers by path.
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Recorded {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set when the client went away before the response was sent. */
  aborted: boolean;
}

/** What a streamed `/big` body had sent when its connection closed. */
export interface BigClosed {
  /** Bytes handed to the socket (some may still have been in buffers). */
  written: number;
  /** The size the route would have sent. */
  total: number;
  /** True when the whole body was sent. */
  ended: boolean;
}

export interface TestServer {
  base: string;
  /** Resolves when the connection of a `/big` or `/big-error` response closes. */
  bigClosed(): Promise<BigClosed>;
  requests: Recorded[];
  /** Resolves when a request to `/slow` is closed by the client. */
  slowClosed(): Promise<Recorded>;
  /** Resolves when a request to `/slow` has arrived. */
  slowArrived(): Promise<void>;
  /**
   * Resolves once no connection is open: idle keep-alive ones are closed at once, the others
   * awaited. After a client's abort, every request that reached the server is then recorded
   * with `aborted` set, and one that the abort stopped before it arrived is simply absent.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Routes: `/status/<code>` answers that status with `nope <code>`; `/echo-auth` answers 401
 * with the Authorization header it got (a careless server); `/slow` never answers; `/json`
 * answers a JSON document; `/redirect/<code>?to=<url>` redirects there; `/hops/<n>` redirects
 * to `/hops/<n-1>` down to `/hops/0`; `/big/<bytes>` (200) and `/big-error/<bytes>` (500) stream
 * that many bytes of `x` with backpressure; `/echo-headers` answers 200 with the request's
 * headers as JSON, `/echo-authorization` 200 with the Authorization header as is;
 * `/echo-escaped/<slash|unicode>/<code>` answers that status with the request's headers as JSON
 * escaped like other encoders do (`/` as `\/`, or every character of a value as `\uXXXX`);
 * `/echo-bare-token` answers 401 with the Authorization header's token, its scheme dropped;
 * anything else answers 200 with a JSON echo of the request.
 */
export async function startServer(): Promise<TestServer> {
  const requests: Recorded[] = [];
  const closedWaiters: ((record: Recorded) => void)[] = [];
  const arrivedWaiters: (() => void)[] = [];
  const bigWaiters: ((closed: BigClosed) => void)[] = [];
  const sockets = new Set<Socket>();
  const settledWaiters: (() => void)[] = [];
  // A turn of the event loop after the last socket closes, so its response's `close` has run.
  const settle = () =>
    setImmediate(() => {
      if (sockets.size === 0) for (const resolve of settledWaiters.splice(0)) resolve();
    });
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const record: Recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        aborted: false,
      };
      requests.push(record);
      const path = (req.url ?? "").split("?")[0] ?? "";
      const status = /^\/status\/(\d{3})$/.exec(path);
      if (status) {
        const code = Number(status[1]);
        res
          .writeHead(code, { "content-type": "text/plain" })
          .end(code === 204 ? "" : `nope ${code}`);
      } else if (path === "/echo-auth") {
        res.writeHead(401).end(`bad token: ${req.headers.authorization}`);
      } else if (path === "/json") {
        res.writeHead(200, { "content-type": "application/json" }).end('{ "a": [1, 2] }');
      } else if (/^\/redirect\/\d{3}$/.test(path)) {
        const to = new URL(req.url ?? "/", "http://x").searchParams.get("to") ?? "/";
        res.writeHead(Number(path.slice("/redirect/".length)), { location: to }).end("moved");
      } else if (/^\/hops\/\d+$/.test(path)) {
        const left = Number(path.slice("/hops/".length));
        if (left === 0) res.writeHead(200).end("arrived");
        else res.writeHead(302, { location: `/hops/${left - 1}` }).end("moved");
      } else if (/^\/big(-error)?\/\d+$/.test(path)) {
        const total = Number(path.split("/")[2]);
        streamBig(res, path.startsWith("/big-error") ? 500 : 200, total, (closed) => {
          for (const resolve of bigWaiters.splice(0)) resolve(closed);
        });
      } else if (path === "/echo-headers") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers));
      } else if (/^\/echo-escaped\/(slash|unicode)\/\d{3}$/.test(path)) {
        const [, , style, code] = path.split("/");
        res
          .writeHead(Number(code), { "content-type": "application/json" })
          .end(style === "slash" ? slashEscaped(req.headers) : unicodeEscaped(req.headers));
      } else if (path === "/echo-bare-token") {
        const token = (req.headers.authorization ?? "").split(" ").slice(1).join(" ");
        res.writeHead(401).end(`unknown token ${token}`);
      } else if (path === "/echo-authorization") {
        res.writeHead(200).end(`you sent: ${req.headers.authorization}`);
      } else if (path === "/slow") {
        res.on("close", () => {
          if (res.writableEnded) return;
          record.aborted = true;
          for (const resolve of closedWaiters.splice(0)) resolve(record);
        });
        for (const resolve of arrivedWaiters.splice(0)) resolve();
      } else {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ method: req.method, url: req.url, body }));
      }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      settle();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    bigClosed: () => new Promise((resolve) => bigWaiters.push(resolve)),
    slowClosed: () => new Promise((resolve) => closedWaiters.push(resolve)),
    slowArrived: () => new Promise((resolve) => arrivedWaiters.push(resolve)),
    settled: () =>
      new Promise((resolve) => {
        settledWaiters.push(resolve);
        server.closeIdleConnections();
        settle();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** JSON with `/` escaped as `\/`, as PHP's `json_encode` and several Java encoders write it. */
function slashEscaped(headers: IncomingHttpHeaders): string {
  return JSON.stringify(headers).replaceAll("/", "\\/");
}

/** JSON with every character of every value escaped as `\uXXXX` (valid, if unusual). */
function unicodeEscaped(headers: IncomingHttpHeaders): string {
  const uEscape = (text: string) =>
    text
      .split("")
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join("");
  const members = Object.entries(headers).map(
    ([name, value]) => `${JSON.stringify(name)}:"${uEscape(String(value))}"`,
  );
  return `{${members.join(",")}}`;
}

/** Streams `total` bytes of `x` in 64 KiB chunks, writing only as fast as the client reads. */
function streamBig(
  res: ServerResponse,
  status: number,
  total: number,
  onClose: (closed: BigClosed) => void,
): void {
  const chunk = Buffer.alloc(64 * 1024, "x");
  let written = 0;
  res.on("close", () => onClose({ written, total, ended: res.writableFinished }));
  res.writeHead(status, { "content-type": "text/plain", "content-length": String(total) });
  const pump = () => {
    while (written < total && !res.destroyed) {
      const size = Math.min(chunk.length, total - written);
      written += size;
      if (!res.write(chunk.subarray(0, size))) {
        res.once("drain", pump);
        return;
      }
    }
    if (written >= total) res.end();
  };
  pump();
}
