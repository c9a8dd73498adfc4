// How a configured server is reached: a local command over stdio (started once, in its own
// process group: stdio.ts) or a remote endpoint over Streamable HTTP.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { cappedFetch } from "./capped-fetch.js";
import { childEnv } from "./child-env.js";
import type { ActiveSpec } from "./connection.js";
import type { McpLimits } from "./limits.js";
import type { AuthSession } from "./oauth/session.js";
import { StdioTransport } from "./stdio.js";
import type { LoadMcpOptions } from "./types.js";

/**
 * The transport of one start of the server, whose messages are capped by `limits`; a local
 * server's stderr goes to `onStderr`.
 */
export function openTransport(
  spec: ActiveSpec,
  options: LoadMcpOptions,
  limits: McpLimits,
  onStderr: (text: string) => void,
  auth?: AuthSession,
): StdioTransport | StreamableHTTPClientTransport {
  if (spec.kind === "remote") {
    // The SDK follows a redirect only within the endpoint's origin, so these headers (and an
    // OAuth token) never reach another origin (src/redirect.test.ts, src/oauth/oauth.test.ts).
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
      // The SDK reads bodies whole; this fetch stops each at the limits (capped-fetch.ts).
      fetch: cappedFetch(limits),
      ...(auth === undefined ? {} : { authProvider: auth.provider }),
    });
    auth?.attach(transport);
    return transport;
  }
  const transport = new StdioTransport({
    command: spec.command,
    args: spec.args,
    env: childEnv(options.env ?? process.env, spec.env, options.inheritEnv),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    stderr: options.stderr ?? "pipe",
    maxMessageBytes: limits.maxMessageBytes,
  });
  transport.stderr?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
  return transport;
}
