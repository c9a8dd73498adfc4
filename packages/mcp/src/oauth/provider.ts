// The SDK's OAuth client (discovery, registration, PKCE, the resource parameter, refresh and
// step-up all live in @modelcontextprotocol/client) fed from a host's token store, with the
// person's approval asked of the host's `authorize`.
import { randomBytes } from "node:crypto";
import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  DpopSession,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { McpAuthorizationError } from "./errors.js";
import type { McpAuthConfig, McpAuthRecord, McpOAuthOptions, McpTokenStore } from "./types.js";

/**
 * A token this close to its expiry counts as expired (a request takes time to arrive): 30 s, or
 * a tenth of a short-lived token's life.
 */
const EXPIRY_SKEW_MS = 30_000;

/** The grant type of RFC 7523's JWT bearer grant. */
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** Where no redirect is configured: never reached, since no person is asked then. */
const NO_REDIRECT = "http://127.0.0.1/toolnexus-oauth-callback";

/** One server's OAuth client state: stored tokens and registration, plus this process's PKCE state. */
export class StoreProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** Whether a person's approval is in flight (its code not yet exchanged). */
  private awaitingCode = false;
  private lastState: string | undefined;
  /** The issuer the SDK stamped on the pre-registered client (kept so later reads carry it). */
  private stampedIssuer: string | undefined;
  /** The tokens last read or saved: scrubbed from what the server says. */
  private known: string[] = [];
  /** What discovery found, for a `jwt_bearer` assertion (saved by the SDK's flow). */
  private resource: string | undefined;
  private authorizationServer: string | undefined;
  /** The DPoP key of this process (`auth.dpop`), made on first use. */
  private dpopSession: Promise<DpopSession> | undefined;
  /** A pre-registered client with a private key signs its token requests (private_key_jwt). */
  readonly addClientAuthentication: AddClientAuthentication | undefined;
  /** Set when the SDK sends the person off: resolves with the callback's parameters. */
  onRedirect: ((url: URL, state: string | undefined) => void) | undefined;

  constructor(
    readonly server: string,
    /** The store key: the server's URL (tokens are for that resource only). */
    readonly key: string,
    private readonly config: McpAuthConfig,
    private readonly options: McpOAuthOptions,
    private readonly store: McpTokenStore,
  ) {
    const { clientId, privateKey } = config;
    this.addClientAuthentication =
      clientId !== undefined && privateKey !== undefined
        ? createPrivateKeyJwtAuth({
            issuer: clientId,
            subject: clientId,
            privateKey,
            alg: config.signingAlgorithm ?? "ES256",
          })
        : undefined;
    // The SDK looks for `dpop` itself: only a provider that asks for DPoP has the method.
    if (config.dpop === true) {
      this.dpop = () => {
        this.dpopSession ??= DpopSession.create();
        return this.dpopSession;
      };
    }
  }

  dpop?: () => Promise<DpopSession>;

  /** A client no person approves: client credentials or a workload's JWT. */
  private get machine(): boolean {
    return this.config.grant === "client_credentials" || this.config.grant === "jwt_bearer";
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    return this.options.redirectUrl ?? NO_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.clientMetadataUrl ?? this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    const metadata: OAuthClientMetadata = {
      client_name: this.options.clientName ?? "toolnexus",
      redirect_uris: redirect === undefined ? [] : [redirect],
      grant_types:
        this.config.grant === "jwt_bearer"
          ? [JWT_BEARER]
          : this.machine
            ? ["client_credentials"]
            : ["authorization_code", "refresh_token"],
      response_types: this.machine ? [] : ["code"],
      token_endpoint_auth_method:
        this.config.tokenEndpointAuthMethod ??
        (this.config.privateKey !== undefined
          ? "private_key_jwt"
          : this.config.clientSecret === undefined
            ? "none"
            : "client_secret_basic"),
    };
    if (this.config.scope !== undefined) metadata.scope = this.config.scope;
    return metadata;
  }

  state(): string {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }

  private async record(): Promise<McpAuthRecord> {
    return (await this.store.get(this.key)) ?? {};
  }

  private async update(change: (record: McpAuthRecord) => void): Promise<void> {
    const record = await this.record();
    change(record);
    if (record.tokens === undefined && record.client === undefined)
      await this.store.delete(this.key);
    else await this.store.set(this.key, record);
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    if (this.config.clientId !== undefined) {
      const info: StoredOAuthClientInformation = { client_id: this.config.clientId };
      if (this.config.clientSecret !== undefined) info.client_secret = this.config.clientSecret;
      const issuer = this.config.issuer ?? this.stampedIssuer;
      if (issuer !== undefined) info.issuer = issuer;
      return info;
    }
    return (await this.record()).client;
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    // A pre-registered client is the config's: only the issuer it was first used with is kept.
    if (this.config.clientId !== undefined) {
      this.stampedIssuer ??= info.issuer;
      return;
    }
    await this.update((record) => {
      record.client = info;
    });
  }

  /**
   * The tokens. Read without a context (the transport's header for each request) an expired
   * access token is left out, so the server answers 401 and the SDK refreshes it.
   */
  async tokens(ctx?: { issuer: string }): Promise<StoredOAuthTokens | undefined> {
    const { tokens } = await this.record();
    if (tokens === undefined) return undefined;
    this.remember(tokens);
    const { obtained_at, ...rest } = tokens;
    if (ctx === undefined && obtained_at !== undefined && rest.expires_in !== undefined) {
      const life = rest.expires_in * 1000;
      if (obtained_at + life - Math.min(EXPIRY_SKEW_MS, life / 10) <= Date.now()) return undefined;
    }
    return rest;
  }

  /** The access and refresh tokens this process has seen lately (at most a few). */
  liveTokens(): readonly string[] {
    return this.known;
  }

  private remember(tokens: StoredOAuthTokens): void {
    const fresh = [tokens.access_token, tokens.refresh_token].filter(
      (token): token is string => typeof token === "string" && token !== "",
    );
    if (fresh.every((token) => this.known.includes(token))) return;
    // The newest first; older ones stay a while (a server may echo the token it was sent).
    this.known = [...new Set([...fresh, ...this.known])].slice(0, 8);
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.remember(tokens);
    await this.update((record) => {
      record.tokens = { ...tokens, obtained_at: Date.now() };
    });
  }

  redirectToAuthorization(url: URL): void {
    if (this.machine || this.options.authorize === undefined || this.onRedirect === undefined) {
      throw new McpAuthorizationError(
        `the MCP server "${this.server}" needs a person to authorize access; give loadMcp an oauth.authorize (and oauth.redirectUrl), or store tokens for it first`,
        this.server,
      );
    }
    this.awaitingCode = true;
    this.onRedirect(url, this.lastState);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) {
      throw new McpAuthorizationError(
        `no authorization of "${this.server}" was started in this process`,
        this.server,
      );
    }
    return this.verifier;
  }

  saveResourceUrl(resource: string): void {
    this.resource = resource;
  }

  saveAuthorizationServerUrl(issuer: string): void {
    this.authorizationServer = issuer;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  /**
   * The discovery made before sending the person off, kept only until their code is exchanged
   * (the code belongs to that authorization server). Any other 401 discovers afresh, so a
   * server that moved to another authorization server is followed there (SEP-2352).
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.awaitingCode ? this.discovery : undefined;
  }

  /** The approval in flight ended (its code exchanged, or it failed). */
  approvalEnded(): void {
    this.awaitingCode = false;
    this.verifier = undefined;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
    if (scope === "verifier" || scope === "discovery") return;
    await this.update((record) => {
      if (scope === "all" || scope === "tokens") delete record.tokens;
      if (scope === "all" || scope === "client") delete record.client;
    });
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (!this.machine) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (this.config.grant === "jwt_bearer") {
      const assertion =
        (await this.options.assertion?.({
          server: this.server,
          authorizationServer: this.authorizationServer,
          resource: this.resource,
          scope: scope === "" ? undefined : scope,
        })) ?? this.config.assertion;
      if (assertion === undefined || assertion === "") {
        throw new McpAuthorizationError(
          `the MCP server "${this.server}" uses the jwt_bearer grant but has no assertion (auth.assertion or oauth.assertion)`,
          this.server,
        );
      }
      params.set("grant_type", JWT_BEARER);
      params.set("assertion", assertion);
    }
    if (scope !== undefined && scope !== "") params.set("scope", scope);
    return params;
  }
}
