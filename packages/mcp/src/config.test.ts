import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolkit } from "@toolnexus/toolkit";
import { describe, expect, it } from "vitest";

// `${NAME}` below is the config's own placeholder syntax, not a template literal.
const env = (name: string) => ["$", "{", name, "}"].join("");

import { allowedTools, loadMcp, mcpToolName, parseMcpConfig, toToolResult } from "./index.js";
import { EVERYTHING, freePort } from "./test-support.js";

describe("the MCP config", () => {
  it("accepts mcpServers, servers or mcp, infers the transport and skips disabled servers", () => {
    for (const key of ["mcpServers", "servers", "mcp"]) {
      const specs = parseMcpConfig({
        [key]: {
          local: { command: ["npx", "-y", "srv"], environment: { A: "1" }, env: { B: "2" } },
          claude: { command: "node", args: ["server.js"], cwd: "/tmp" },
          remote: { url: "https://example.com/mcp", timeout: 5000 },
          off: { command: "x", disabled: true },
          off2: { url: "https://x", enabled: false },
          broken: { timeout: 1 },
        },
      });
      expect(specs.map((s) => [s.name, s.kind])).toEqual([
        ["local", "local"],
        ["claude", "local"],
        ["remote", "remote"],
        ["off", "disabled"],
        ["off2", "disabled"],
        ["broken", "invalid"],
      ]);
      expect(specs[0]).toMatchObject({
        command: "npx",
        args: ["-y", "srv"],
        env: { A: "1", B: "2" },
      });
      expect(specs[0]).toMatchObject({ timeout: 30_000, maxTimeout: 300_000 });
      expect(specs[1]).toMatchObject({ command: "node", args: ["server.js"], cwd: "/tmp" });
      expect(specs[2]).toMatchObject({ timeout: 5000 });
    }
  });

  it("reads a config file and ignores the reserved sibling keys of a bare server map", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
    const file = join(dir, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ builtins: false, agents: {}, a2a: {}, mcpServer: {}, s: { command: "x" } }),
    );
    expect(parseMcpConfig(file).map((s) => s.name)).toEqual(["s"]);
  });

  it("expands ENV placeholders in headers from the given environment", () => {
    const [spec] = parseMcpConfig(
      {
        mcpServers: {
          api: {
            url: "https://x/mcp",
            headers: { Authorization: `Bearer ${env("TOKEN")}`, X: env("NOPE") },
          },
        },
      },
      { TOKEN: "s3cr3t-value" },
    );
    expect(spec).toMatchObject({ headers: { Authorization: "Bearer s3cr3t-value", X: "" } });
  });

  it("expands ENV placeholders in a local server's env and the url, and lists the secrets to scrub", () => {
    const [local, remote] = parseMcpConfig(
      {
        mcpServers: {
          local: {
            command: "srv",
            env: {
              TOKEN: env("HOST_TOKEN"),
              MODE: "fast",
              PATHS: "/tmp/a:/tmp/b",
              KEY: "literal-key-1",
            },
          },
          remote: { url: `https://x/mcp?key=${env("URL_KEY")}`, headers: { A: "abc" } },
        },
      },
      { HOST_TOKEN: "tok-from-host", URL_KEY: "url-key-9" },
    );
    expect(local).toMatchObject({
      env: { TOKEN: "tok-from-host", MODE: "fast", PATHS: "/tmp/a:/tmp/b", KEY: "literal-key-1" },
    });
    // Expanded values always; literal values from 8 characters on (short ones are settings).
    expect(local?.kind === "local" && local.secrets).toEqual([
      "tok-from-host",
      "/tmp/a:/tmp/b",
      "literal-key-1",
    ]);
    expect(remote).toMatchObject({ url: "https://x/mcp?key=url-key-9" });
    // A header value shorter than 4 characters is not a secret; the URL's expansion is.
    expect(remote?.kind === "remote" && remote.secrets).toEqual(["url-key-9"]);
  });

  it("names tools sanitize(server)_sanitize(tool) and applies the tools filter", () => {
    expect(mcpToolName("git hub.v2", "search issues/all")).toBe("git_hub_v2_search_issues_all");
    expect(allowedTools(["a", "b", "c"], { a: true, zz: true })).toEqual(["a"]);
    expect(allowedTools(["a", "b", "c"], { b: false })).toEqual(["a", "c"]);
    expect(allowedTools(["a", "b"], {})).toEqual(["a", "b"]);
  });

  it("maps results: isError, structuredContent, joined text, images and resources to metadata", () => {
    expect(
      toToolResult({
        isError: true,
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toMatchObject({
      output: "a\nb",
      isError: true,
    });
    expect(
      toToolResult({ content: [{ type: "text", text: "x" }], structuredContent: { n: 1 } }).output,
    ).toBe('{"n":1}');
    const mixed = toToolResult({
      content: [
        { type: "text", text: "see" },
        { type: "image", data: "AAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a", text: "hi" } },
        { type: "resource_link", uri: "file:///b", name: "b" },
      ],
    });
    expect(mixed).toEqual({
      output: "see",
      isError: false,
      metadata: {
        images: [{ mimeType: "image/png", data: "AAA" }],
        resources: [{ uri: "file:///a", text: "hi" }],
        resourceLinks: [{ uri: "file:///b", name: "b" }],
        // "AAA" is not base64: the image is left out of `parts` (result-parts.test.ts).
        partsDropped: 1,
      },
      parts: [
        { type: "text", text: "see" },
        { type: "resource", uri: "file:///a", text: "hi" },
      ],
    });
  });
});

describe("failing servers are isolated", () => {
  it("a bad command and a refused URL fail with a reason; the good server's tools work", async () => {
    const port = await freePort();
    const mcp = await loadMcp(
      {
        mcpServers: {
          bad: { command: "/nonexistent/definitely-not-a-server", timeout: 10_000 },
          refused: {
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { Authorization: `Bearer ${env("SECRET_TOKEN")}` },
            timeout: 10_000,
          },
          off: { command: "x", enabled: false },
          good: { command: process.execPath, args: [EVERYTHING, "stdio"] },
        },
      },
      { env: { ...process.env, SECRET_TOKEN: "tok-very-secret-123" } },
    );
    try {
      expect(mcp.status()).toEqual({
        bad: "failed",
        refused: "failed",
        off: "disabled",
        good: "connected",
      });
      const infos = Object.fromEntries(mcp.servers().map((s) => [s.name, s]));
      expect(infos.bad?.reason).toMatch(/ENOENT|not found|spawn/i);
      expect(infos.refused?.reason).toBeTruthy();
      expect(JSON.stringify(mcp.servers())).not.toContain("tok-very-secret-123");
      expect(mcp.tools().every((t) => t.name.startsWith("good_"))).toBe(true);
      const echo = mcp.tools().find((t) => t.name === "good_echo")!;
      expect((await echo.execute({ message: "alive" })).output).toContain("alive");
    } finally {
      await mcp.close();
    }
  });

  it("fits the toolkit's MCP loader seam: createToolkit({ mcpConfig, mcp: loadMcp })", async () => {
    const toolkit = await createToolkit({
      mcpConfig: {
        builtins: false,
        mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      },
      mcp: loadMcp,
    });
    try {
      expect(toolkit.mcpStatus()).toEqual({ ev: "connected" });
      const result = await toolkit.execute("ev_get-sum", { a: 40, b: 2 });
      expect(result.output).toContain("42");
    } finally {
      await toolkit.close();
    }
  });
});
