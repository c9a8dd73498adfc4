// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" in a header is the contract's env syntax, not a mistaken template.
// Redirects against two real servers on 127.0.0.1 (two ports, so two origins): the configured
// headers, which carry the secrets, must never reach the other origin.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_REDIRECTS, httpTool } from "./index.js";
import { startServer, type TestServer } from "./test-server.js";

let home: TestServer;
let other: TestServer;
beforeAll(async () => {
  [home, other] = await Promise.all([startServer(), startServer()]);
});
afterAll(async () => {
  await Promise.all([home.close(), other.close()]);
});
afterEach(() => {
  home.requests.length = 0;
  other.requests.length = 0;
});

const TOKEN = "tn-redirect-token-5e4d3c2b1a";
const KEY = "tn-redirect-key-0f1e2d3c";
const env = { TOKEN, KEY };
const headers = {
  Authorization: "Bearer ${TOKEN}",
  "X-Api-Key": "${KEY}",
  "X-Tenant": "acme-static-config",
};

const toOther = (code: number, path = "/landing") =>
  `${home.base}/redirect/${code}?to=${encodeURIComponent(`${other.base}${path}`)}`;

describe("a redirect to another origin", () => {
  it("the test servers are two origins, and plain fetch would leak the key there", async () => {
    expect(new URL(home.base).origin).not.toBe(new URL(other.base).origin);
    // The defect this suite guards against: fetch drops only Authorization across origins.
    await fetch(toOther(302), { headers: { "X-Api-Key": KEY } });
    expect(other.requests.at(-1)?.headers["x-api-key"]).toBe(KEY);
  });

  for (const code of [301, 302, 303, 307, 308]) {
    for (const method of ["GET", "POST"]) {
      it(`${code} after a ${method}: refused, nothing reaches the other origin`, async () => {
        const tool = httpTool({
          name: "t",
          description: "d",
          method,
          url: toOther(code),
          inputSchema: { type: "object", properties: { title: { type: "string" } } },
          headers,
          env,
        });
        const result = await tool.execute(method === "POST" ? { title: "x" } : {});
        expect(result).toEqual({
          output: `HTTP ${code}: redirect to another origin (${other.base}) refused: this tool only sends requests, and its headers, to ${home.base}`,
          isError: true,
          metadata: { status: code, code: "cross_origin_redirect" },
        });
        expect(home.requests).toHaveLength(1);
        expect(home.requests[0]?.headers["x-api-key"]).toBe(KEY);
        expect(other.requests).toHaveLength(0);
      });
    }
  }

  it("the same server under another host name, a protocol-relative Location, a later hop", async () => {
    const port = new URL(home.base).port;
    const targets = [
      `${home.base}/redirect/307?to=${encodeURIComponent(`http://localhost:${port}/x`)}`,
      `${home.base}/redirect/308?to=${encodeURIComponent(`//127.0.0.1:${new URL(other.base).port}/x`)}`,
      // Same origin first, then away.
      `${home.base}/redirect/302?to=${encodeURIComponent(`/redirect/301?to=${encodeURIComponent(`${other.base}/x`)}`)}`,
    ];
    for (const url of targets) {
      const result = await httpTool({ name: "t", description: "d", url, headers, env }).execute({});
      expect(result.metadata?.code).toBe("cross_origin_redirect");
    }
    // Only the home name on the home port ever got the headers.
    for (const request of home.requests) expect(request.headers.host).toBe(`127.0.0.1:${port}`);
    expect(other.requests).toHaveLength(0);
  });

  it("a non-http Location and an invalid one are refused", async () => {
    const to = (location: string) => `${home.base}/redirect/302?to=${encodeURIComponent(location)}`;
    const file = await httpTool({
      name: "t",
      description: "d",
      url: to("file:///etc/passwd"),
    }).execute({});
    expect(file.metadata).toEqual({ status: 302, code: "cross_origin_redirect" });
    const invalid = await httpTool({ name: "t", description: "d", url: to("http://[::1") }).execute(
      {},
    );
    expect(invalid).toEqual({
      output: "HTTP 302: the redirect's Location is not a valid URL",
      isError: true,
      metadata: { status: 302, code: "invalid_redirect" },
    });
    expect(home.requests).toHaveLength(2);
  });

  it("a secret the server puts in the Location never shows in the error", async () => {
    const url = toOther(302, `/steal?key=${KEY}`);
    const tool = httpTool({ name: "t", description: "d", url, headers, env });
    const result = await tool.execute({});
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});

describe("a redirect on the same origin", () => {
  it("is followed with the headers; the output is the final response's", async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      home.requests.length = 0;
      const url = `${home.base}/redirect/${code}?to=${encodeURIComponent("/echo-headers")}`;
      const result = await httpTool({ name: "t", description: "d", url, headers, env }).execute({});
      expect(result.isError).toBe(false);
      expect(result.metadata).toEqual({ status: 200 });
      expect(home.requests.map((request) => request.url.split("?")[0])).toEqual([
        `/redirect/${code}`,
        "/echo-headers",
      ]);
      expect(home.requests[1]?.headers["x-api-key"]).toBe(KEY);
      expect(home.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
      // The server echoed the secrets back: the output has them redacted.
      expect(result.output).not.toContain(KEY);
      expect(JSON.parse(result.output)["x-api-key"]).toBe("[redacted]");
    }
  });

  it("307 and 308 resend the method and body; 303, and 301/302 after a POST, continue as GET", async () => {
    const post = (code: number) =>
      httpTool({
        name: "t",
        description: "d",
        method: "POST",
        url: `${home.base}/redirect/${code}?to=%2Fdone`,
        inputSchema: { type: "object", properties: { title: { type: "string" } } },
      }).execute({ title: "Bug" });
    for (const code of [307, 308]) {
      home.requests.length = 0;
      await post(code);
      expect(home.requests[1]).toMatchObject({
        method: "POST",
        url: "/done",
        body: '{"title":"Bug"}',
      });
      expect(home.requests[1]?.headers["content-type"]).toBe("application/json");
    }
    for (const code of [301, 302, 303]) {
      home.requests.length = 0;
      await post(code);
      expect(home.requests[1]).toMatchObject({ method: "GET", url: "/done", body: "" });
      expect(home.requests[1]?.headers["content-type"]).toBeUndefined();
    }
  });

  it(`at most maxRedirects hops (${DEFAULT_MAX_REDIRECTS} by default), counted by the server`, async () => {
    const hops = (n: number, maxRedirects?: number) =>
      httpTool({
        name: "t",
        description: "d",
        url: `${home.base}/hops/${n}`,
        ...(maxRedirects === undefined ? {} : { maxRedirects }),
      }).execute({});
    expect(await hops(DEFAULT_MAX_REDIRECTS)).toEqual({
      output: "arrived",
      isError: false,
      metadata: { status: 200 },
    });
    expect(home.requests).toHaveLength(DEFAULT_MAX_REDIRECTS + 1);

    home.requests.length = 0;
    expect(await hops(DEFAULT_MAX_REDIRECTS + 1)).toEqual({
      output: `HTTP 302: redirect not followed: more than ${DEFAULT_MAX_REDIRECTS} redirect(s) (maxRedirects)`,
      isError: true,
      metadata: { status: 302, code: "too_many_redirects" },
    });
    expect(home.requests).toHaveLength(DEFAULT_MAX_REDIRECTS + 1);

    home.requests.length = 0;
    expect((await hops(1, 0)).metadata).toEqual({ status: 302, code: "too_many_redirects" });
    expect((await hops(2, 2)).output).toBe("arrived");
    expect(home.requests).toHaveLength(1 + 3);
  });

  it("a 3xx without a Location is an ordinary HTTP error", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${home.base}/status/302` });
    expect(await tool.execute({})).toEqual({
      output: "HTTP 302: nope 302",
      isError: true,
      metadata: { status: 302 },
    });
  });

  it("maxRedirects must be a whole number, 0 or more", () => {
    const base = { name: "t", description: "d", url: "https://x.test/" };
    expect(() => httpTool({ ...base, maxRedirects: -1 })).toThrow(/maxRedirects must be/);
    expect(() => httpTool({ ...base, maxRedirects: 1.5 })).toThrow(/maxRedirects must be/);
  });
});
