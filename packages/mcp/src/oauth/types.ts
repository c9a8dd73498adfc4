// The public shapes of OAuth for remote MCP servers: what a config entry says (`auth`), what
// the host supplies (`LoadMcpOptions.oauth`: the person's redirect and a token store).
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";

/** How a remote server's client authorizes, as written under `auth` in its config entry. */
export interface McpAuthConfig {
  /**
   * `"authorization_code"` (default: a person approves in a browser, with PKCE),
   * `"client_credentials"` (a machine client with a pre-registered id and a secret or key), or
   * `"jwt_bearer"` (a workload presents a JWT its platform issued, RFC 7523: `assertion`).
   */
  grant?: "authorization_code" | "client_credentials" | "jwt_bearer";
  /** The workload's JWT for the `jwt_bearer` grant (`${ENV_VAR}` expanded, never logged). */
  assertion?: string;
  /** A pre-registered client id; without it the client uses a metadata document URL or registers itself (RFC 7591). */
  clientId?: string;
  /** The pre-registered client's secret; `${ENV_VAR}` is taken from the environment and never logged. */
  clientSecret?: string;
  /** The authorization server (its `issuer`) the pre-registered client belongs to: its credentials go nowhere else. */
  issuer?: string;
  /** Scopes to ask for (space-separated); default: what the server's metadata names. */
  scope?: string;
  /** An HTTPS URL of this client's metadata document, used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  /** How a client with a secret authenticates at the token endpoint. Default `client_secret_basic`. */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
  /**
   * A pre-registered client's private key (PEM; `${ENV_VAR}` expanded, never logged): the client
   * authenticates with a signed JWT (`private_key_jwt`, RFC 7523) instead of a secret.
   */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (`ES256`, `RS256`, ...). Default `ES256`. */
  signingAlgorithm?: string;
  /** Ask for DPoP-bound tokens (RFC 9449): each request carries a fresh proof of a key this process holds. */
  dpop?: boolean;
}

/** What a server's tokens and registration look like in a {@link McpTokenStore}. */
export interface McpAuthRecord {
  /** The tokens, with when they were obtained (ms since the epoch) to tell their expiry. */
  tokens?: StoredOAuthTokens & { obtained_at?: number };
  /** The client's registration with the authorization server (dynamic or a metadata URL). */
  client?: StoredOAuthClientInformation;
}

/**
 * Where tokens are kept, by a key naming the server (its URL): durable across processes when
 * the host's store is ({@link fileTokenStore}); {@link memoryTokenStore} lasts for one process.
 * Records hold secrets: a store must not log them.
 */
export interface McpTokenStore {
  get(key: string): McpAuthRecord | undefined | Promise<McpAuthRecord | undefined>;
  set(key: string, record: McpAuthRecord): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** What the host's `authorize` learns when a person must approve access to a server. */
export interface McpAuthorizationRequest {
  /** The server's config name. */
  server: string;
  /** The server's URL (the resource the tokens are for). */
  resource: string;
  /** Where to send the person (the authorization server's page, with PKCE and `state`). */
  url: URL;
  /** Aborts when the load is aborted or `authorizeTimeoutMs` passes. */
  signal: AbortSignal;
}

/** What the host's `assertion` learns: the server, and its authorization server and resource. */
export interface McpAssertionRequest {
  /** The server's config name. */
  server: string;
  /** The authorization server the JWT is for (its issuer URL): the audience of an ID-JAG. */
  authorizationServer: string | undefined;
  /** The server's resource identifier (from its protected resource metadata). */
  resource: string | undefined;
  /** The scope asked for, if any. */
  scope: string | undefined;
}

/** The host's side of OAuth: how a person is sent to approve, and where tokens are kept. */
export interface McpOAuthOptions {
  /**
   * Sends the person to `request.url` (opens a browser, shows a link on a web page, ...) and
   * resolves with what came back to `redirectUrl`: the whole callback URL, its query
   * parameters, or the bare `code`. Without it a server that needs a person fails with
   * {@link McpAuthorizationError} (stored tokens and their refresh still work).
   */
  authorize?: (request: McpAuthorizationRequest) => Promise<string | URL | URLSearchParams>;
  /** The redirect URI registered for this client (the host's callback route). Needed with `authorize`. */
  redirectUrl?: string;
  /** Where tokens and registrations are kept. Default: {@link memoryTokenStore} (one process). */
  store?: McpTokenStore;
  /** The client's name in a dynamic registration. Default `toolnexus`. */
  clientName?: string;
  /** An HTTPS URL of this client's metadata document (for every server; a config entry's wins). */
  clientMetadataUrl?: string;
  /** How long a person may take to approve, in ms. Default 600000 (10 minutes). */
  authorizeTimeoutMs?: number;
  /**
   * A fresh JWT for a `jwt_bearer` server, asked at each token request: a workload's platform
   * token, or an enterprise identity provider's grant for this server (ID-JAG: exchange the
   * person's ID token with `requestJwtAuthorizationGrant` of `@modelcontextprotocol/client`).
   * Without it the entry's `assertion` is used.
   */
  assertion?: (request: McpAssertionRequest) => string | Promise<string>;
}
