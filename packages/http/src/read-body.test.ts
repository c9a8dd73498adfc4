// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" in a header is the contract's env syntax, not a mistaken template.
// Response bodies are read up to maxResponseBytes and no further, against a real server that
// streams a large body only as fast as it is read.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_RESPONSE_BYTES, httpTool } from "./index.js";
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

const MiB = 1024 * 1024;
const marker = (cap: number) =>
  `\n\n[output truncated: the response body is longer than ${cap} bytes (maxResponseBytes); the rest was not read]`;

/** A one-route server that answers `body` with `status`. */
async function serve(
  status: number,
  body: string | Buffer,
): Promise<{ url: string; close(): Promise<void> }> {
  const api = createServer((_req, res) => res.writeHead(status).end(body));
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const { port } = api.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        api.closeAllConnections();
        api.close(() => resolve());
      }),
  };
}

describe("the response size cap", () => {
  it("a 64 MiB 2xx body stops at the default 1 MiB cap and the server sees the connection close early", async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(MiB);
    const total = 64 * MiB;
    const closed = server.bigClosed();
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/big/${total}` });
    const result = await tool.execute({});
    expect(result.isError).toBe(false);
    expect(result.metadata).toEqual({ status: 200, truncated: true });
    expect(result.output).toBe("x".repeat(MiB) + marker(MiB));
    const { written, ended } = await closed;
    expect(ended).toBe(false);
    // Only what socket buffers hold beyond the cap was ever written: far from the 64 MiB.
    expect(written).toBeLessThan(16 * MiB);
  }, 60_000);

  it("an error body is capped the same way", async () => {
    const total = 64 * MiB;
    const closed = server.bigClosed();
    const cap = 4096;
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/big-error/${total}`,
      maxResponseBytes: cap,
    });
    expect(await tool.execute({})).toEqual({
      output: `HTTP 500: ${"x".repeat(cap)}${marker(cap)}`,
      isError: true,
      metadata: { status: 500, truncated: true },
    });
    const { written, ended } = await closed;
    expect(ended).toBe(false);
    expect(written).toBeLessThan(16 * MiB);
  }, 60_000);

  it("a body of exactly the cap is whole; one byte more is cut", async () => {
    const tool = (maxResponseBytes: number) =>
      httpTool({ name: "t", description: "d", url: `${server.base}/big/10`, maxResponseBytes });
    expect(await tool(10).execute({})).toEqual({
      output: "x".repeat(10),
      isError: false,
      metadata: { status: 200 },
    });
    expect((await tool(9).execute({})).output).toBe("x".repeat(9) + marker(9));
  });

  it("a cut never splits a character; json mode returns the cut text as is", async () => {
    const api = await serve(200, '{"name":"ééééé"}');
    try {
      // 12 bytes: `{"name":"` (9) then é (2 bytes) and half of the next.
      const text = await httpTool({
        name: "t",
        description: "d",
        url: api.url,
        maxResponseBytes: 12,
      }).execute({});
      expect(text.output).toBe(`{"name":"é${marker(12)}`);
      const json = await httpTool({
        name: "t",
        description: "d",
        url: api.url,
        maxResponseBytes: 12,
        resultMode: "json",
      }).execute({});
      expect(json.output).toBe(`{"name":"é${marker(12)}`);
      expect(json.metadata).toEqual({ status: 200, truncated: true });
    } finally {
      await api.close();
    }
  });

  it("maxResponseBytes must be a positive whole number", () => {
    const base = { name: "t", description: "d", url: "https://x.test/" };
    expect(() => httpTool({ ...base, maxResponseBytes: 0 })).toThrow(/maxResponseBytes must be/);
    expect(() => httpTool({ ...base, maxResponseBytes: 1.5 })).toThrow(/maxResponseBytes must be/);
  });
});

describe("an ${ENV} value never reaches the output", () => {
  const SECRET = "tn-output-secret-7a6b5c4d";

  it("a 2xx body that echoes it, as is, URL-encoded or JSON-escaped, is redacted", async () => {
    const tricky = 'tn"quote\\slash/and space';
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/echo-headers`,
      headers: { Authorization: "Bearer ${TOKEN}", "X-Tricky": "${TRICKY}" },
      env: { TOKEN: SECRET, TRICKY: tricky },
    });
    const result = await tool.execute({});
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.output)).toMatchObject({
      authorization: "Bearer [redacted]",
      "x-tricky": "[redacted]",
    });
    expect(result.output).not.toContain("quote");

    const echoes = await serve(200, `a=${encodeURIComponent(tricky)} b=${SECRET}`);
    try {
      const plain = httpTool({
        name: "t",
        description: "d",
        url: echoes.url,
        headers: { "X-A": "${TOKEN}", "X-B": "${TRICKY}" },
        env: { TOKEN: SECRET, TRICKY: tricky },
      });
      expect((await plain.execute({})).output).toBe("a=[redacted] b=[redacted]");
    } finally {
      await echoes.close();
    }
  });

  it("an HTML page that echoes it with character references is redacted", async () => {
    const tricky = 'tn"quote&amp/slash+plus';
    const html = tricky
      .replaceAll("&", "&amp;")
      .replaceAll('"', "&quot;")
      .replaceAll("/", "&#x2F;")
      .replaceAll("+", "&#43;");
    const page = await serve(403, `<p>Header ${html} refused</p>`);
    try {
      const tool = httpTool({
        name: "t",
        description: "d",
        url: page.url,
        headers: { "X-Tricky": "${TRICKY}" },
        env: { TRICKY: tricky },
      });
      const result = await tool.execute({});
      expect(result.output).toContain("<p>Header [redacted] refused</p>");
      expect(result.output).not.toContain("quote");
    } finally {
      await page.close();
    }
  });

  it("a cut that falls inside an echoed secret leaves none of it", async () => {
    const api = await serve(200, `head ${SECRET} tail`);
    try {
      for (let cap = 5; cap < 5 + SECRET.length; cap++) {
        const result = await httpTool({
          name: "t",
          description: "d",
          url: api.url,
          headers: { Authorization: "${TOKEN}" },
          env: { TOKEN: SECRET },
          maxResponseBytes: cap,
        }).execute({});
        expect(result.output).toBe(`head ${marker(cap)}`);
      }
    } finally {
      await api.close();
    }
  });

  it("status+text and error results are redacted too", async () => {
    const env = { TOKEN: SECRET };
    const headers = { Authorization: "${TOKEN}" };
    const ok = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/echo-authorization`,
      headers,
      env,
      resultMode: "status+text",
    });
    expect((await ok.execute({})).output).toBe("200\nyou sent: [redacted]");
    const denied = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/echo-auth`,
      headers,
      env,
    });
    expect((await denied.execute({})).output).toBe("HTTP 401: bad token: [redacted]");
  });
});
