import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { headerSecrets, urlSecrets } from "./configured-secrets.js";
import { httpTool } from "./index.js";
import { startServer, type TestServer } from "./test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

const LITERAL = "crm_live_9f8e7d6c5b4a3210";
const tool = (path: string, headers: Record<string, string>) =>
  httpTool({ name: "t", description: "d", url: `${server.base}${path}`, headers });

describe("literal header values are secrets", () => {
  it("in an error body", async () => {
    const result = await tool("/echo-auth", { Authorization: `Bearer ${LITERAL}` }).execute({});
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${LITERAL}`);
    expect(result).toEqual({
      output: "HTTP 401: bad token: Bearer [redacted]",
      isError: true,
      metadata: { status: 401 },
    });
  });

  it("in a 200 result, for any header not known to be descriptive", async () => {
    const auth = await tool("/echo-authorization", { Authorization: `Bearer ${LITERAL}` }).execute(
      {},
    );
    expect(auth).toEqual({
      output: "you sent: Bearer [redacted]",
      isError: false,
      metadata: { status: 200 },
    });
    const custom = await tool("/echo-headers", {
      "X-Api-Key": "k-12",
      "X-Client-Secret": LITERAL,
    }).execute({});
    expect(JSON.parse(custom.output)).toMatchObject({
      "x-api-key": "[redacted]",
      "x-client-secret": "[redacted]",
    });
  });

  it("the bare token after the scheme, when the server echoes only that", async () => {
    const bearer = await tool("/echo-bare-token", { Authorization: `Bearer ${LITERAL}` }).execute(
      {},
    );
    expect(bearer.output).toBe("HTTP 401: unknown token [redacted]");
    const basic = btoa("svc:hunter2-pass");
    const basicResult = await tool("/echo-bare-token", {
      Authorization: `Basic ${basic}`,
    }).execute({});
    expect(basicResult.output).toBe("HTTP 401: unknown token [redacted]");
  });

  it("descriptive headers are not: Accept: application/json leaves normal output alone", async () => {
    const headers = {
      Accept: "application/json",
      "Content-Type": "application/json",
      "User-Agent": "toolnexus-test/1.0",
      "X-GitHub-Api-Version": "2022-11-28",
      "X-Static": "plain",
      Authorization: `Bearer ${LITERAL}`,
    };
    const echoed = await tool("/echo-headers", headers).execute({});
    expect(JSON.parse(echoed.output)).toMatchObject({
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": "toolnexus-test/1.0",
      "x-github-api-version": "2022-11-28",
      "x-static": "plain",
      authorization: "Bearer [redacted]",
    });
    const post = httpTool({
      name: "t",
      description: "d",
      method: "POST",
      url: `${server.base}/notes`,
      inputSchema: { type: "object", properties: { note: { type: "string" } } },
      headers,
    });
    const result = await post.execute({ note: "send application/json, dated 2022-11-28" });
    expect(JSON.parse(result.output)).toEqual({
      method: "POST",
      url: "/notes",
      body: '{"note":"send application/json, dated 2022-11-28"}',
    });
  });
});

describe("credentials written in the URL are secrets", () => {
  it("a credential-named query parameter's value, not the others", async () => {
    const query = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/search?api_key=qk_1234&sort=created_at&q={q}`,
    });
    const result = await query.execute({ q: "shoes" });
    expect(server.requests[0]?.url).toBe("/search?api_key=qk_1234&sort=created_at&q=shoes");
    expect(JSON.parse(result.output)).toMatchObject({
      url: "/search?api_key=[redacted]&sort=created_at&q=shoes",
    });
  });

  it("the userinfo's password, which fetch's error quotes", async () => {
    const url = server.base.replace("//", "//svc:pw-0123456789@");
    const result = await httpTool({ name: "t", description: "d", url: `${url}/x` }).execute({});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("svc:[redacted]@");
    expect(result.output).not.toContain("pw-0123456789");
    expect(server.requests).toHaveLength(0);
  });
});

describe("headerSecrets and urlSecrets", () => {
  it("a scheme's token, and a Basic credential's user:password and password", () => {
    expect(headerSecrets("Authorization", `bearer ${LITERAL}`)).toEqual([LITERAL]);
    expect(headerSecrets("Authorization", "token ghp_0123")).toEqual(["ghp_0123"]);
    const basic = btoa("svc:hunter2-pass");
    expect(headerSecrets("Proxy-Authorization", `Basic ${basic}`)).toEqual([
      basic,
      "svc:hunter2-pass",
      "hunter2-pass",
    ]);
    expect(headerSecrets("Authorization", "Basic not*base64")).toEqual(["not*base64"]);
  });

  it("another value whole: any length under a credential name, else from 8 characters", () => {
    expect(headerSecrets("X-Api-Key", "k-12")).toEqual(["k-12"]);
    expect(headerSecrets("Cookie", "sid=1")).toEqual(["sid=1"]);
    expect(headerSecrets("X-Tenant", "acme-prod-eu")).toEqual(["acme-prod-eu"]);
    expect(headerSecrets("X-Flag", "enabled")).toEqual([]);
    expect(headerSecrets("ACCEPT", "application/vnd.github+json")).toEqual([]);
    expect(headerSecrets("Notion-Version", "2022-06-28")).toEqual([]);
  });

  it("a URL's password and credential-named query values, as written and decoded", () => {
    expect(urlSecrets("https://svc:p%40ss-word@x.test/a?b=1")).toEqual([
      "p%40ss-word",
      "p@ss-word",
    ]);
    expect(urlSecrets("https://x.test/a?token=a%2Bb+c&page=2&key={key}#sig=x")).toEqual([
      "a%2Bb+c",
      "a+b c",
    ]);
    expect(urlSecrets("https://{region}.x.test/a/{id}")).toEqual([]);
  });
});
