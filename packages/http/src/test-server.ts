// A real HTTP server on 127.0.0.1 for the tests: it records every request and answers by path.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set when the client went away before the response was sent. */
  aborted: boolean;
}

export interface TestServer {
  base: string;
  requests: Recorded[];
  /** Resolves when a request to `/slow` is closed by the client. */
  slowClosed(): Promise<Recorded>;
  /** Resolves when a request to `/slow` has arrived. */
  slowArrived(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Routes: `/status/<code>` answers that status with `nope <code>`; `/echo-auth` answers 401
 * with the Authorization header it got (a careless server); `/slow` never answers; `/json`
 * answers a JSON document; anything else answers 200 with a JSON echo of the request.
 */
export async function startServer(): Promise<TestServer> {
  const requests: Recorded[] = [];
  const closedWaiters: ((record: Recorded) => void)[] = [];
  const arrivedWaiters: (() => void)[] = [];
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    slowClosed: () => new Promise((resolve) => closedWaiters.push(resolve)),
    slowArrived: () => new Promise((resolve) => arrivedWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
