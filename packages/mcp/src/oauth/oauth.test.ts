// OAuth against a real authorization server and a real MCP server that checks bearer tokens,
// both on 127.0.0.1: discovery from the 401, dynamic registration, authorization code with PKCE
// and the resource parameter, tokens kept in a file store and used by the next load, refresh
// after expiry, client credentials, and a redirect that never carries a token elsewhere.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, httpMcp } from "../fixtures/http-mcp.js";
import {
  type AuthServer,
  type ProtectedMcp,
  startAuthServer,
  startProtectedMcp,
} from "../fixtures/oauth-servers.js";
import { loadMcp } from "../load.js";
import { until } from "../test-support.js";
import type { McpToolset } from "../types.js";
import { fileTokenStore, memoryTokenStore } from "./store.js";
import type { McpAuthorizationRequest } from "./types.js";

// `${NAME}` is the config's own placeholder syntax, not a template literal.
const placeholder = (name: string) => ["$", "{", name, "}"].join("");

const REDIRECT = "http://127.0.0.1:9/callback";
const CHILD = join(import.meta.dirname, "..", "fixtures", "oauth-child.ts");
const run = promisify(execFile);

/** The host's `authorize` of a test: the "browser" follows the page, which approves at once. */
function approving(asked: McpAuthorizationRequest[]) {
  return async (request: McpAuthorizationRequest) => {
    asked.push(request);
    const page = await fetch(request.url, { redirect: "manual" });
    const location = page.headers.get("location");
    if (location === null) throw new Error(`the authorize page answered ${page.status}`);
    return location;
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function servers(options: Parameters<typeof startAuthServer>[0] = {}) {
  const auth = await startAuthServer(options);
  cleanups.push(() => auth.close());
  const mcp = await startProtectedMcp(auth);
  cleanups.push(() => mcp.close());
  return { auth, mcp };
}

async function load(...args: Parameters<typeof loadMcp>): Promise<McpToolset> {
  const toolset = await loadMcp(...args);
  cleanups.push(() => toolset.close());
  return toolset;
}

async function callHello(toolset: McpToolset): Promise<string> {
  const tool = toolset.tools().find((t) => t.name === "remote_hello");
  if (tool === undefined) throw new Error(`no tool: ${JSON.stringify(toolset.servers())}`);
  const result = await tool.execute({}, {} as never);
  return JSON.stringify(result);
}

/** Each token the MCP server was sent was issued for its own URL. */
function tokensWereForItself(auth: AuthServer, mcp: ProtectedMcp): void {
  const sent = mcp.authorizations.filter((a) => a !== undefined).map((a) => a!.slice(7));
  expect(sent.length).toBeGreaterThan(0);
  for (const token of sent) expect(auth.issued.get(token)?.resource).toBe(mcp.url);
}

describe("OAuth authorization code", () => {
  it("discovers, registers, asks the person once, and keeps the tokens for the next load", async () => {
    const { auth, mcp } = await servers();
    const dir = await mkdtemp(join(tmpdir(), "toolnexus-oauth-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const asked: McpAuthorizationRequest[] = [];
    const oauth = {
      authorize: approving(asked),
      redirectUrl: REDIRECT,
      store: fileTokenStore(dir),
    };

    const first = await load({ mcpServers: { remote: { url: mcp.url } } }, { oauth });
    expect(first.servers()[0]).toMatchObject({ status: "connected" });
    expect(await callHello(first)).toContain("hello from the protected server");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.server).toBe("remote");
    expect(asked[0]!.resource).toBe(mcp.url);
    // The authorization request: PKCE S256, the resource indicator, a state.
    const query = asked[0]!.url.searchParams;
    expect(query.get("code_challenge_method")).toBe("S256");
    expect(query.get("resource")).toBe(mcp.url);
    expect(query.get("state")).toMatch(/.{16,}/);
    expect(auth.registrations).toBe(1);
    const exchange = auth.seen.find((s) => s.params.grant_type === "authorization_code");
    expect(exchange?.params.resource).toBe(mcp.url);
    expect(exchange?.params.code_verifier).toMatch(/.{43,}/);
    tokensWereForItself(auth, mcp);
    // No token in what the host sees of the server.
    const [token] = auth.issued.keys();
    expect(JSON.stringify(first.servers())).not.toContain(token!);
    await first.close();

    // The tokens are on disk, owner-only, and the next load uses them without asking anyone.
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(join(dir, files[0]!))).mode & 0o777).toBe(0o600);
    const second = await load(
      { mcpServers: { remote: { url: mcp.url } } },
      {
        oauth: {
          redirectUrl: REDIRECT,
          store: fileTokenStore(dir),
          authorize: () => Promise.reject(new Error("nobody should be asked")),
        },
      },
    );
    expect(await callHello(second)).toContain("hello from the protected server");
    expect(auth.registrations).toBe(1);
    expect(asked).toHaveLength(1);

    // And another process of the host, which can ask no one, uses them too.
    const pages = auth.seen.filter((s) => s.path === "/authorize").length;
    const { stdout } = await run(process.execPath, ["--import", "tsx", CHILD, mcp.url, dir], {
      cwd: join(import.meta.dirname, "..", ".."),
      timeout: 60_000,
    });
    expect(stdout).toContain("hello from the protected server");
    expect(stdout).not.toContain(token!);
    expect(auth.registrations).toBe(1);
    expect(auth.seen.filter((s) => s.path === "/authorize")).toHaveLength(pages);
  });

  it("refreshes an expired token without asking the person again", async () => {
    const { auth, mcp } = await servers();
    const asked: McpAuthorizationRequest[] = [];
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url } } },
      { oauth: { authorize: approving(asked), redirectUrl: REDIRECT } },
    );
    expect(await callHello(toolset)).toContain("hello");
    auth.expireAll();
    expect(await callHello(toolset)).toContain("hello from the protected server");
    expect(auth.refreshes).toBe(1);
    expect(asked).toHaveLength(1);
    const refresh = auth.seen.find((s) => s.params.grant_type === "refresh_token");
    expect(refresh?.params.resource).toBe(mcp.url);
    tokensWereForItself(auth, mcp);
  });

  it("never sends a token its own clock says expired, and refreshes it", async () => {
    const { auth, mcp } = await servers();
    const store = memoryTokenStore();
    const asked: McpAuthorizationRequest[] = [];
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url } } },
      { oauth: { authorize: approving(asked), redirectUrl: REDIRECT, store } },
    );
    const key = mcp.url;
    const record = (await store.get(key))!;
    const stale = record.tokens!.access_token;
    await store.set(key, { ...record, tokens: { ...record.tokens!, obtained_at: 0 } });
    const before = mcp.authorizations.length;
    expect(await callHello(toolset)).toContain("hello from the protected server");
    expect(mcp.authorizations.slice(before)).not.toContain(`Bearer ${stale}`);
    expect(mcp.authorizations[before]).toBeUndefined();
    expect(auth.refreshes).toBe(1);
    expect(asked).toHaveLength(1);
  });

  it("asks the person again when the refresh token is refused, for the calls after", async () => {
    const { auth, mcp } = await servers();
    const asked: McpAuthorizationRequest[] = [];
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url } } },
      { oauth: { authorize: approving(asked), redirectUrl: REDIRECT } },
    );
    auth.expireAll();
    auth.revokeRefreshTokens();
    // This call finds no usable token: it fails, and the approval starts for the next ones.
    const failed = await callHello(toolset);
    expect(failed).toContain('"isError":true');
    expect(failed).toContain("Unauthorized");
    await until(() => asked.length === 2, "the second approval");
    const exchanges = () =>
      auth.seen.filter((s) => s.params.grant_type === "authorization_code").length;
    await until(() => exchanges() === 2, "the second code exchange");
    await until(
      () => [...auth.issued.values()].some((i) => i.expiresAt > Date.now()),
      "a new token",
    );
    expect(await callHello(toolset)).toContain("hello from the protected server");
    tokensWereForItself(auth, mcp);
  });

  it("scrubs the tokens it holds from what the server says", async () => {
    const { auth, mcp } = await servers();
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url } } },
      { oauth: { authorize: approving([]), redirectUrl: REDIRECT } },
    );
    const echo = toolset.tools().find((t) => t.name === "remote_echo_token")!;
    const said = JSON.stringify(await echo.execute({}, {} as never));
    expect(said).toContain("called with ***");
    for (const token of auth.issued.keys()) expect(said).not.toContain(token);
  });

  it("fails the server with a typed reason when no person can be asked", async () => {
    const { mcp } = await servers();
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url, auth: true } } },
      { oauth: { store: memoryTokenStore() } },
    );
    const [info] = toolset.servers();
    expect(info?.status).toBe("failed");
    expect(info?.reason).toContain("needs a person to authorize");
    expect(toolset.tools()).toEqual([]);
  });

  it("is off for a server whose entry says auth: false", async () => {
    const { auth, mcp } = await servers();
    const toolset = await load(
      { mcpServers: { remote: { url: mcp.url, auth: false } } },
      { oauth: { authorize: approving([]), redirectUrl: REDIRECT } },
    );
    expect(toolset.servers()[0]?.status).toBe("failed");
    expect(auth.seen).toEqual([]);
  });
});

describe("OAuth client credentials", () => {
  it("gets a token with a pre-registered id and a secret from the environment", async () => {
    const secret = "cc-secret-value-0123456789";
    const { auth, mcp } = await servers({ preRegistered: { id: "machine", secret } });
    const toolset = await load(
      {
        mcpServers: {
          remote: {
            url: mcp.url,
            auth: {
              grant: "client_credentials",
              clientId: "machine",
              clientSecret: placeholder("CC_SECRET"),
            },
          },
        },
      },
      { env: { CC_SECRET: secret } },
    );
    expect(await callHello(toolset)).toContain("hello from the protected server");
    const request = auth.seen.find((s) => s.params.grant_type === "client_credentials");
    expect(request?.authorization).toBe(
      `Basic ${Buffer.from(`machine:${secret}`).toString("base64")}`,
    );
    expect(request?.params.resource).toBe(mcp.url);
    expect(auth.registrations).toBe(0);
    tokensWereForItself(auth, mcp);
  });

  it("names a wrong secret without showing it", async () => {
    const { mcp } = await servers({
      preRegistered: { id: "machine", secret: "right-secret-0123" },
    });
    const wrong = "wrong-secret-abcdefgh";
    const toolset = await load(
      {
        mcpServers: {
          remote: {
            url: mcp.url,
            auth: { grant: "client_credentials", clientId: "machine", clientSecret: wrong },
          },
        },
      },
      {},
    );
    const [info] = toolset.servers();
    expect(info?.status).toBe("failed");
    expect(info?.reason).not.toContain(wrong);
  });
});

describe("tokens stay with their origin", () => {
  it("never sends a stored token along a redirect to another origin", async () => {
    const auth = await startAuthServer();
    cleanups.push(() => auth.close());
    const elsewhere: HttpServer = await httpMcp({ tools: [] });
    cleanups.push(() => elsewhere.close());
    const mcp = await startProtectedMcp(auth, { redirectTo: `${elsewhere.origin}/mcp` });
    cleanups.push(() => mcp.close());
    const store = memoryTokenStore();
    const token = "stored-access-token-0123456789";
    await store.set(`${mcp.origin}/moved`, {
      tokens: { access_token: token, token_type: "Bearer", expires_in: 3600 },
    });
    const toolset = await load(
      { mcpServers: { remote: { url: `${mcp.origin}/moved` } } },
      { oauth: { store } },
    );
    // The token went to the origin it was stored for, which redirected; no further.
    expect(mcp.authorizations).toContain(`Bearer ${token}`);
    expect(elsewhere.seen.filter((s) => JSON.stringify(s.headers).includes(token))).toEqual([]);
    expect(toolset.servers()[0]?.status).toBe("failed");
    expect(toolset.servers()[0]?.reason ?? "").not.toContain(token);
  });

  it("keeps each server's tokens apart", async () => {
    const auth = await startAuthServer();
    cleanups.push(() => auth.close());
    const one = await startProtectedMcp(auth);
    cleanups.push(() => one.close());
    const two = await startProtectedMcp(auth);
    cleanups.push(() => two.close());
    const asked: McpAuthorizationRequest[] = [];
    const toolset = await load(
      { mcpServers: { one: { url: one.url }, two: { url: two.url } } },
      { oauth: { authorize: approving(asked), redirectUrl: REDIRECT } },
    );
    expect(toolset.servers().map((s) => s.status)).toEqual(["connected", "connected"]);
    expect(asked.map((a) => a.resource).sort()).toEqual([one.url, two.url].sort());
    tokensWereForItself(auth, one);
    tokensWereForItself(auth, two);
  });
});
