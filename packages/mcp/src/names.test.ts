// Tool names that would collide: two servers named alike are refused before anything starts; a
// clash of tool names fails the later server with a reason naming both.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@toolnexus/client";
import { afterAll, describe, expect, it } from "vitest";
import { loadMcp, McpConfigError } from "./index.js";
import { isRunning, pidsIn, script, TREE_SERVER } from "./test-support.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tree = (env: Record<string, string>) => ({
  command: process.execPath,
  args: [TREE_SERVER],
  env,
});

describe("name clashes", () => {
  it("servers a.b and a_b are refused at load, naming both, before either starts", async () => {
    const starts = join(dir, "starts-1.log");
    const loading = loadMcp({
      mcpServers: { "a.b": tree({ START_LOG: starts }), a_b: tree({ START_LOG: starts }) },
    });
    await expect(loading).rejects.toBeInstanceOf(McpConfigError);
    await expect(loading).rejects.toMatchObject({
      servers: ["a.b", "a_b"],
      message: expect.stringMatching(/"a\.b" and "a_b" would both name their tools a_b_<tool>/),
    });
    expect(pidsIn(starts)).toEqual([]);
  });

  it("a tool of one server named like another's: the later server fails, naming both; the rest works", async () => {
    const later = join(dir, "starts-2.log");
    const mcp = await loadMcp({
      mcpServers: {
        x: tree({ EXTRA_TOOLS: "y_echo" }),
        x_y: tree({ START_LOG: later }),
      },
    });
    try {
      expect(mcp.status()).toEqual({ x: "connected", x_y: "failed" });
      const reason = mcp.servers()[1]?.reason;
      expect(reason).toContain('its tool "echo" would be named x_y_echo');
      expect(reason).toContain('the tool "y_echo" of the MCP server "x"');
      // The failed server's process is stopped; the other's tools make a client as usual.
      const [pid] = pidsIn(later);
      expect(isRunning(pid!)).toBe(false);
      const client = createClient({
        model: script([
          { toolCalls: [{ id: "c", name: "x_y_echo", arguments: {} }] },
          { content: "ok" },
        ]),
        tools: mcp.tools(),
      });
      const result = await client.run("go");
      expect(result.toolCalls[0]?.result.output).toBe("extra y_echo");
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it("two tools of one server that sanitize alike fail that server, naming both tools", async () => {
    const mcp = await loadMcp({ mcpServers: { s: tree({ EXTRA_TOOLS: "a.b,a_b" }) } });
    try {
      expect(mcp.status()).toEqual({ s: "failed" });
      expect(mcp.servers()[0]?.reason).toMatch(
        /its tools "a\.b" and "a_b" would both be named s_a_b/,
      );
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
