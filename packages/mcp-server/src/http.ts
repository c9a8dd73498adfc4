// Streamable HTTP: 2026-07-28 requests are served statelessly (a fresh server per request, so
// any process behind a load balancer can take any round), 2025-era clients get sessions.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { HTTP_DEFAULTS, type McpHttpOptions } from "./http-options.js";
import { LegacySessions } from "./legacy-sessions.js";
import { mcpServerFactory } from "./server.js";

/** A running MCP HTTP server. */
export interface McpHttpHandle {
  /** The endpoint's URL, e.g. `http://127.0.0.1:43123/mcp`. */
  url: string;
  /** Open 2025-era sessions. */
  readonly sessions: number;
  /** Stops listening, ends calls in flight and closes every session. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

class TooLarge extends Error {}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(message);
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]);
  res.on("close", () => body.destroy());
  body.on("error", () => res.destroy());
  body.pipe(res);
}

/** Serves `options.tools` over Streamable HTTP; resolves once it listens. */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpHandle> {
  const host = options.host ?? HTTP_DEFAULTS.host;
  const path = options.path ?? HTTP_DEFAULTS.path;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const local = LOOPBACK.has(host);
  const allowedHosts = options.allowedHosts ?? (local ? localhostAllowedHostnames() : undefined);
  const allowedOrigins = options.allowedOrigins ?? (local ? localhostAllowedOrigins() : undefined);
  const factory = mcpServerFactory(options);
  const modern = createMcpHandler(factory, { legacy: "reject", maxRequestBodySize: maxBodyBytes });
  const legacy = new LegacySessions(factory, {
    max: options.maxSessions ?? HTTP_DEFAULTS.maxSessions,
    idleMs: options.sessionIdleMs ?? HTTP_DEFAULTS.sessionIdleMs,
    maxBodyBytes,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) return text(res, 404, "Not found");
    // The request ends (and the calls it runs are cancelled) when the client goes away.
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    let bytes: Buffer | undefined;
    if (req.method === "POST") {
      try {
        bytes = await readBody(req, maxBodyBytes);
      } catch (thrown) {
        if (thrown instanceof TooLarge) return text(res, 413, "Request body too large");
        throw thrown;
      }
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(key, value);
      else if (Array.isArray(value)) headers.set(key, value.join(", "));
    }
    const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? host}`), {
      method: req.method ?? "GET",
      headers,
      signal: gone.signal,
      ...(bytes === undefined ? {} : { body: new Uint8Array(bytes) }),
    });
    const refused =
      (allowedHosts === undefined
        ? undefined
        : hostHeaderValidationResponse(request, allowedHosts)) ??
      (allowedOrigins === undefined
        ? undefined
        : originValidationResponse(request, allowedOrigins));
    if (refused !== undefined) return send(res, refused);
    let authInfo: AuthInfo | undefined;
    if (options.authenticate !== undefined) {
      const verdict = await options.authenticate(request.clone());
      if (verdict instanceof Response) return send(res, verdict);
      authInfo = verdict;
    }
    let body: unknown;
    try {
      body =
        bytes === undefined || bytes.length === 0 ? undefined : JSON.parse(bytes.toString("utf8"));
    } catch {
      body = undefined; // Not JSON: the SDK answers it (a parse error).
    }
    const auth = authInfo === undefined ? {} : { authInfo };
    const isLegacy = await isLegacyRequest(request.clone(), body, {
      maxRequestBodySize: maxBodyBytes,
    });
    const response = isLegacy
      ? await legacy.handle(request, body, authInfo)
      : await modern.fetch(request, {
          ...auth,
          ...(body === undefined ? {} : { parsedBody: body }),
        });
    await send(res, response);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Never the error itself: it may quote a header or an argument.
      if (!res.headersSent) text(res, 500, "Internal server error");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? HTTP_DEFAULTS.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${path}`,
    get sessions() {
      return legacy.size;
    },
    async close() {
      await modern.close();
      await legacy.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
