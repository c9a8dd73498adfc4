// 2025-era clients over HTTP: a session per client (so the server can ask it mid-call with an
// elicitation), at most `max` of them, each closed after `idleMs` unused and tied to the
// identity that opened it.
import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  isInitializeRequest,
  legacyStatelessFallback,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  close: () => Promise<void>;
  principal: string;
  lastUsed: number;
}

function rpcError(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    {
      status,
      headers: { "content-type": "application/json" },
    },
  );
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly stateless: ReturnType<typeof legacyStatelessFallback>;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly limits: { max: number; idleMs: number; maxBodyBytes: number },
  ) {
    this.stateless = legacyStatelessFallback(factory, undefined, {
      maxRequestBodySize: limits.maxBodyBytes,
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, body: unknown, authInfo?: AuthInfo): Promise<Response> {
    await this.sweep();
    const principal = authInfo?.clientId ?? "";
    const id = request.headers.get("mcp-session-id");
    const options = { parsedBody: body, ...(authInfo === undefined ? {} : { authInfo }) };
    if (id !== null) {
      const session = this.sessions.get(id);
      // Another identity's session id is as unknown as a made-up one.
      if (session === undefined || session.principal !== principal) {
        return rpcError(404, "Session not found");
      }
      session.lastUsed = Date.now();
      return session.transport.handleRequest(request, options);
    }
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return this.stateless(request, options);
    }
    if (this.sessions.size >= this.limits.max) {
      return rpcError(503, "This server has as many sessions open as it allows; try again later");
    }
    const server = await this.factory({
      era: "legacy",
      ...(authInfo === undefined ? {} : { authInfo }),
      requestInfo: request,
    });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        maxRequestBodySize: this.limits.maxBodyBytes,
        onsessioninitialized: (sessionId) => {
          this.sessions.set(sessionId, { transport, close, principal, lastUsed: Date.now() });
        },
        onsessionclosed: (sessionId) => {
          this.sessions.delete(sessionId);
        },
      });
    const close = async () => {
      await server.close().catch(() => {});
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  /** Closes the sessions unused for longer than the idle limit. */
  private async sweep(): Promise<void> {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastUsed >= cutoff) continue;
      this.sessions.delete(id);
      await session.close();
    }
  }

  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((session) => session.close()));
  }
}
