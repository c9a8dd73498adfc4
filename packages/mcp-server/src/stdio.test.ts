// The official client SDK starting the server as a child process and talking over its stdio,
// in both eras: tools listed and called, a question answered, an approval asked, large
// arguments refused, progress reported.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = join(import.meta.dirname, "fixtures", "serve-stdio.ts");

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

describe("serveMcpStdio", () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  for (const era of ["2026", "2025"] as const) {
    it(`serves a ${era} client in a child process`, async () => {
      const options: Record<string, unknown> = { capabilities: { elicitation: { form: {} } } };
      if (era === "2026") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
      client = new Client({ name: "stdio-host", version: "1.0.0" }, options as never);
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(String((request.params as { message?: string }).message));
        return { action: "accept", content: { env: "production" } } as never;
      });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--import", "tsx", SERVER],
          cwd: join(import.meta.dirname, ".."),
          stderr: "inherit",
        }),
      );
      expect(client.getServerVersion()?.name).toBe("stdio-tools");
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["add", "deploy", "count", "leaky"]),
      );
      expect(textOf(await client.callTool({ name: "add", arguments: { a: 20, b: 22 } }))).toBe(
        "42",
      );
      const deployed = await client.callTool({ name: "deploy", arguments: { service: "web" } });
      expect(textOf(deployed)).toBe(
        'deployed web to production (state {"service":"web","nonce":"n-42"})',
      );
      expect(asked).toEqual(["Which environment should web go to?"]);
      expect(textOf(await client.callTool({ name: "leaky", arguments: {} }))).not.toContain(
        "sk-live",
      );
      // An approval rule that throws asks the person (never sending what it threw).
      const guarded = await client.callTool({ name: "guarded", arguments: {} });
      expect(textOf(guarded)).toBe("guarded ran");
      expect(asked.at(-1)).toBe("Allow guarded to run with {}?");
      // maxArgumentBytes is 4096 in the fixture.
      const big = await client.callTool({
        name: "add",
        arguments: { a: 1, b: 2, pad: "x".repeat(5000) },
      });
      expect(big.isError).toBe(true);
      expect(textOf(big)).toBe("the arguments of add are larger than this server accepts");
    }, 30_000);
  }

  it("writes a call's progress notifications before its result (2026 envelope on the wire)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", SERVER], {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const meta = {
        progressToken: 7,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "count", arguments: { n: 3 }, _meta: meta } })}\n`,
      );
      const seen: unknown[] = [];
      for await (const line of lines) {
        const message = JSON.parse(line) as {
          id?: number;
          method?: string;
          params?: { progress: number };
        };
        seen.push(message.id === 1 ? "result" : message.params?.progress);
        if (message.id === 1) break;
      }
      expect(seen).toEqual([1, 2, 3, "result"]);
    } finally {
      child.stdin.end();
      child.kill();
    }
  }, 30_000);
});
