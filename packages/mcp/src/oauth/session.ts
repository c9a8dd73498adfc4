// One remote server's authorization across its connections: the provider, the transport that
// last used it, and a person's approval in flight. A connect that stopped for approval is
// made again once the code is exchanged; an approval asked in the middle of a session (a
// refresh token that no longer works) finishes in the background for the calls after it.
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpAuthorizationError } from "./errors.js";
import { StoreProvider } from "./provider.js";
import { memoryTokenStore } from "./store.js";
import type { McpAuthConfig, McpOAuthOptions, McpTokenStore } from "./types.js";

/** The default wait for a person's approval, in ms. */
export const DEFAULT_AUTHORIZE_TIMEOUT_MS = 600_000;

/** The key a server's tokens are stored under: its URL without query or fragment. */
export function tokenKey(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

export class AuthSession {
  readonly provider: StoreProvider;
  private transport: StreamableHTTPClientTransport | undefined;
  /** The approval in flight: settles once its code is exchanged for tokens (or it failed). */
  private finishing: Promise<void> | undefined;
  private readonly stop = new AbortController();

  constructor(
    readonly server: string,
    readonly url: string,
    config: McpAuthConfig,
    private readonly options: McpOAuthOptions,
    store: McpTokenStore,
  ) {
    this.provider = new StoreProvider(server, tokenKey(url), config, options, store);
    this.provider.onRedirect = (target, state) => this.startApproval(target, state);
  }

  /** The transport now speaking to the server: a finished approval's code is exchanged on it. */
  attach(transport: StreamableHTTPClientTransport): void {
    this.transport = transport;
  }

  private startApproval(url: URL, state: string | undefined): void {
    const authorize = this.options.authorize!;
    const timeout = this.options.authorizeTimeoutMs ?? DEFAULT_AUTHORIZE_TIMEOUT_MS;
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(timeout)]);
    const finishing = (async () => {
      const answer = await authorize({ server: this.server, resource: this.url, url, signal });
      signal.throwIfAborted();
      const params = callbackParams(answer);
      const error = params.get("error");
      if (error !== null) {
        // Only the error code: its description is the authorization server's text.
        throw new McpAuthorizationError(
          `the authorization of "${this.server}" was refused (${error.slice(0, 64)})`,
          this.server,
        );
      }
      const returned = params.get("state");
      if (returned !== null && returned !== state) {
        throw new McpAuthorizationError(
          `the authorization callback of "${this.server}" carries another request's state`,
          this.server,
        );
      }
      await this.transport!.finishAuth(params);
    })().finally(() => this.provider.approvalEnded());
    // Nobody may wait on an approval asked in the middle of a session.
    finishing.catch(() => {});
    this.finishing = finishing;
  }

  /**
   * Runs `attempt` (a connect and a first listing); when it stopped to ask a person, waits for
   * the approval (not counted in the attempt's timeouts), then runs it again. At most `rounds`
   * approvals.
   */
  async connect<T>(
    attempt: () => Promise<T>,
    signal: AbortSignal | undefined,
    rounds = 2,
  ): Promise<T> {
    for (let round = 0; ; round++) {
      this.finishing = undefined;
      try {
        return await attempt();
      } catch (thrown) {
        const finishing = this.finishing as Promise<void> | undefined;
        if (finishing === undefined || round >= rounds || signal?.aborted) throw thrown;
        await waitFor(finishing, signal);
      }
    }
  }

  /** Abandons an approval in flight (the server is closing). */
  close(): void {
    this.stop.abort(new McpAuthorizationError("the server was closed", this.server));
  }
}

function waitFor(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The callback's parameters from what the host's `authorize` returned. */
function callbackParams(answer: string | URL | URLSearchParams): URLSearchParams {
  if (answer instanceof URLSearchParams) return answer;
  if (answer instanceof URL) return answer.searchParams;
  if (/^[a-z][a-z0-9+.-]*:/i.test(answer)) return new URL(answer).searchParams;
  if (answer.startsWith("?")) return new URLSearchParams(answer);
  return new URLSearchParams({ code: answer });
}

/** A session for a remote server when OAuth applies to it, else undefined. */
export function authSession(
  server: string,
  url: string,
  config: McpAuthConfig | false | undefined,
  options: McpOAuthOptions | undefined,
): AuthSession | undefined {
  if (config === false || (config === undefined && options === undefined)) return undefined;
  return new AuthSession(
    server,
    url,
    config ?? {},
    options ?? {},
    options?.store ?? memoryTokenStore(),
  );
}
