import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { htmlToMarkdown, htmlToText } from "./html.js";
import { callThroughClient } from "./test-support.js";
import { webfetchTool } from "./webfetch.js";

const PAGE = `<!doctype html>
<html><head><title>T</title><style>p{color:red}</style><script>alert(1)</script></head>
<body>
<h1>Hello &amp; welcome</h1>
<p>Read the <a href="https://example.com/docs">docs</a>, <strong>now</strong>.</p>
<ul><li>one</li><li>two</li></ul>
<pre><code>let x = 1;
  indented &lt;ok&gt;</code></pre>
</body></html>`;

// The test server is on 127.0.0.1, which webfetch refuses unless told otherwise.
const LOCAL = { allowHosts: ["127.0.0.1"] };

let server: Server;
let base: string;
const closed: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.socket.on("close", () => closed.push(req.url ?? ""));
    switch (req.url) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(PAGE);
        return;
      case "/plain":
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("<not html> just text\n");
        return;
      case "/json":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"a":1}');
        return;
      case "/missing":
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("nothing here");
        return;
      case "/image":
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        return;
      case "/redirect":
        res.writeHead(302, { location: "/plain" });
        res.end();
        return;
      case "/huge": {
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = "z".repeat(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once("drain", pump);
              return;
            }
          }
          res.end();
        };
        res.on("error", () => {});
        pump();
        return;
      }
      default:
        // /slow: never answers
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("webfetch", () => {
  it("returns an HTML page as Markdown by default", async () => {
    const run = await callThroughClient([webfetchTool(LOCAL)], "webfetch", { url: `${base}/page` });
    expect(run.output).toBe(
      [
        "# Hello & welcome",
        "",
        "Read the [docs](https://example.com/docs), **now**.",
        "",
        "- one",
        "- two",
        "",
        "```",
        "let x = 1;",
        "  indented <ok>",
        "```",
      ].join("\n"),
    );
    expect(run.record.result.metadata).toEqual({ status: 200, format: "markdown" });
    expect(run.requests).toEqual([]); // not gated
  });

  it("returns text or the HTML itself on request; other text as it is", async () => {
    const tool = webfetchTool(LOCAL);
    expect((await tool.execute({ url: `${base}/page`, format: "text" })).output).toBe(
      "Hello & welcome\n\nRead the docs, now.\n\none\ntwo\n\nlet x = 1;\nindented <ok>",
    );
    expect((await tool.execute({ url: `${base}/page`, format: "html" })).output).toBe(PAGE);
    expect((await tool.execute({ url: `${base}/plain` })).output).toBe("<not html> just text\n");
    expect((await tool.execute({ url: `${base}/json`, format: "text" })).output).toBe('{"a":1}');
    expect((await tool.execute({ url: `${base}/redirect` })).output).toBe("<not html> just text\n");
  });

  it("a non-2xx status is the error HTTP <status>", async () => {
    const result = await webfetchTool(LOCAL).execute({ url: `${base}/missing` });
    expect(result).toEqual({ output: "HTTP 404", isError: true, metadata: { status: 404 } });
  });

  it("refuses what is not http(s), bad URLs and binary bodies", async () => {
    const tool = webfetchTool(LOCAL);
    expect((await tool.execute({ url: "file:///etc/passwd" })).output).toBe(
      'webfetch: refused "file:///etc/passwd": only http and https URLs are allowed',
    );
    expect((await tool.execute({ url: "ftp://127.0.0.1/x" })).isError).toBe(true);
    expect((await tool.execute({ url: "not a url" })).output).toBe(
      "webfetch: invalid URL: not a url",
    );
    expect((await tool.execute({ url: `${base}/image` })).output).toBe(
      `webfetch: refused ${base}/image: the response is image/png, not text`,
    );
    expect((await tool.execute({ url: `${base}/page`, format: "pdf" })).output).toBe(
      "webfetch: format must be one of text, markdown, html",
    );
  });

  it("stops at its own timeout (seconds)", async () => {
    // /slow never answers: without the timeout this call would not return (no clock asserted).
    const result = await webfetchTool(LOCAL).execute({ url: `${base}/slow`, timeout: 0.3 });
    expect(result.output).toBe("webfetch: timed out after 300ms");
  });

  it("the client's timeout aborts the request (the connection is closed)", async () => {
    const run = await callThroughClient(
      [webfetchTool(LOCAL)],
      "webfetch",
      { url: `${base}/slow` },
      { toolTimeoutMs: 300 },
    );
    // The client's budget and the tool's own reading of ctx.timeout race; either stops it.
    expect(run.output).toMatch(/^(webfetch: )?timed out after 300ms$/);
    for (let i = 0; i < 100 && !closed.includes("/slow"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(closed).toContain("/slow");
  });

  it("reads at most maxFetchBytes and caps the output", async () => {
    const tool = webfetchTool({ ...LOCAL, maxFetchBytes: 1024 * 1024, maxOutputBytes: 1000 });
    const result = await tool.execute({ url: `${base}/huge` });
    expect(result.output).toBe(
      `${"z".repeat(1000)}\n\n[output truncated: over the 1000-byte limit]`,
    );
    expect(result.metadata).toEqual({ status: 200, format: "markdown", truncated: true });
    const uncapped = webfetchTool({ ...LOCAL, maxFetchBytes: 2000 });
    expect((await uncapped.execute({ url: `${base}/huge` })).output).toBe(
      `${"z".repeat(2000)}\n\n[output truncated: only the first 2000 bytes of the body were downloaded]`,
    );
  });
});

describe("HTML conversion", () => {
  it("decodes entities and drops invisible parts", () => {
    expect(htmlToText("<p>a&nbsp;b &#65;&#x42; &lt;c&gt;</p><!-- x --><script>no</script>")).toBe(
      "a b AB <c>",
    );
    expect(htmlToMarkdown('<h2>T</h2><p><em>e</em> <a href="/x">l</a></p>')).toBe(
      "## T\n\n_e_ [l](/x)",
    );
  });
});
