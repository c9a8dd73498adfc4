// A call's clocks against a real server that never answers on its own (tree-server's `slow`).
import { createClient } from "@toolnexus/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset } from "./index.js";
import { script, TREE_SERVER } from "./test-support.js";

describe("timeouts", () => {
  let mcp: McpToolset;
  beforeAll(async () => {
    mcp = await loadMcp({
      mcpServers: {
        t: { command: process.execPath, args: [TREE_SERVER] },
        // `timeout` also bounds the start: long enough for a busy machine.
        quick: { command: process.execPath, args: [TREE_SERVER], timeout: 5_000 },
      },
    });
  }, 60_000);
  afterAll(() => mcp?.close());

  it("a call stopped by the client's toolTimeoutMs is recorded timedOut: true; the server serves on", async () => {
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "s", name: "t_slow", arguments: {} }] },
        { toolCalls: [{ id: "e", name: "t_echo", arguments: { text: "after" } }] },
        { content: "done" },
      ]),
      tools: mcp.tools(),
      toolTimeoutMs: 300,
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    const [slow, echo] = result.toolCalls;
    expect(slow).toMatchObject({ id: "s", status: "error", timedOut: true });
    expect(slow?.result.output).toMatch(/timed out/);
    expect(echo).toMatchObject({ id: "e", status: "ok", timedOut: false });
    expect(echo?.result.output).toBe("echo after");
  });

  it("the server's own idle limit (`timeout`) ends a silent call with metadata.timedOut", {
    timeout: 60_000,
  }, async () => {
    const slow = mcp.tools().find((tool) => tool.name === "quick_slow")!;
    const result = await slow.execute({});
    expect(result).toMatchObject({ isError: true, metadata: { timedOut: true } });
    expect(result.output).toMatch(/timed out after 5000ms without a result or progress/);
  });

  it("a ctx.timeout nobody enforces (a direct call without a signal) is enforced here", async () => {
    const slow = mcp.tools().find((tool) => tool.name === "t_slow")!;
    const result = await slow.execute({}, { timeout: 200 });
    expect(result).toMatchObject({ isError: true, metadata: { timedOut: true } });
  });
});
