// The official client SDK against serveMcpHttp on 127.0.0.1: a 2026-07-28 client (stateless
// requests, questions as input_required rounds) and a 2025 client (a session, questions as
// elicitations pushed mid-call), plus the limits.

import { request as httpRequest } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHandle, serveMcpHttp } from "./index.js";
import { SECRET, testTools } from "./test-tools.js";

type Reply =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

async function connect(
  url: string,
  era: "2026" | "2025",
  reply?: (params: Record<string, unknown>) => Reply,
): Promise<{ client: Client; asked: Record<string, unknown>[] }> {
  const asked: Record<string, unknown>[] = [];
  const options: Record<string, unknown> = {
    capabilities: reply === undefined ? {} : { elicitation: { form: {}, url: {} } },
  };
  if (era === "2026") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
  const client = new Client({ name: "test-host", version: "1.2.3" }, options as never);
  if (reply !== undefined) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as Record<string, unknown>;
      asked.push(params);
      return reply(params) as never;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

describe("serveMcpHttp", () => {
  let server: McpHttpHandle;
  const clients: Client[] = [];
  let aborted: () => void = () => {};
  let started: () => void = () => {};
  beforeAll(async () => {
    server = await serveMcpHttp({
      tools: testTools([], { started: () => started(), aborted: () => aborted() }),
      name: "test-tools",
      instructions: `Reports are signed with key ${SECRET}.`,
      secrets: [SECRET],
      maxBodyBytes: 64 * 1024,
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await server?.close();
  });
  const open = async (...args: Parameters<typeof connect>) => {
    const connected = await connect(...args);
    clients.push(connected.client);
    return connected;
  };

  for (const era of ["2026", "2025"] as const) {
    describe(`a ${era} client`, () => {
      it("lists the tools with their schemas and calls one", async () => {
        const { client } = await open(server.url, era);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain("add");
        expect(tools.find((tool) => tool.name === "add")?.inputSchema).toMatchObject({
          type: "object",
          required: ["a", "b"],
        });
        const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
        expect(textOf(result)).toBe("5");
        expect(result.isError).toBeFalsy();
      });

      it("asks its person for input and runs the tool again with the answer", async () => {
        const { client, asked } = await open(server.url, era, () => ({
          action: "accept",
          content: { env: "staging" },
        }));
        const result = await client.callTool({ name: "deploy", arguments: { service: "api" } });
        expect(textOf(result)).toBe(
          'deployed api to staging (state {"service":"api","nonce":"n-42"})',
        );
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatchObject({
          message: "Which environment should api go to?",
          requestedSchema: { properties: { env: { enum: ["staging", "production"] } } },
        });
      });

      it("asks for approval before a tool that needs it, and a decline stops it", async () => {
        let action: "accept" | "decline" = "decline";
        const { client, asked } = await open(server.url, era, () => ({ action }));
        const declined = await client.callTool({ name: "wipe", arguments: { disk: "sdb" } });
        expect(declined.isError).toBe(true);
        expect(textOf(declined)).toBe("declined: Wipe sdb?");
        action = "accept";
        const approved = await client.callTool({ name: "wipe", arguments: { disk: "sdb" } });
        expect(textOf(approved)).toBe("wiped sdb");
        expect(asked.map((params) => params.message)).toEqual(["Wipe sdb?", "Wipe sdb?"]);
      });

      it("sends a sign-in link as a URL-mode elicitation", async () => {
        const { client, asked } = await open(server.url, era, () => ({ action: "accept" }));
        const result = await client.callTool({ name: "login", arguments: {} });
        expect(textOf(result)).toBe("signed in");
        expect(asked[0]).toMatchObject({
          mode: "url",
          message: "Sign in to Acme",
          url: "https://acme.example/authorize?x=1",
        });
      });

      it("tells a client that cannot ask its person what the tool needed", async () => {
        const { client } = await open(server.url, era);
        const call = client.callTool({ name: "deploy", arguments: { service: "api" } });
        if (era === "2026") {
          // The 2026 protocol's MissingRequiredClientCapability error (-32021), naming the capability.
          await expect(call).rejects.toMatchObject({
            code: -32021,
            data: { requiredCapabilities: { elicitation: { form: {} } } },
          });
          return;
        }
        const result = await call;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain("needs input: Which environment should api go to?");
        expect(textOf(result)).toContain("does not declare the elicitation capability");
      });

      it("reports progress when the request asks for it", async () => {
        const { client } = await open(server.url, era);
        const seen: number[] = [];
        const result = await client.callTool(
          { name: "count", arguments: { n: 3 } },
          { onprogress: (progress) => seen.push(progress.progress) },
        );
        expect(textOf(result)).toBe("counted to 3");
        expect(seen).toEqual([1, 2, 3]);
      });

      it("scrubs secrets from a tool's error", async () => {
        const { client } = await open(server.url, era);
        const result = await client.callTool({ name: "leaky", arguments: {} });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe("upstream refused key ***");
      });

      it("scrubs secrets from resource addresses, the tools' schemas and the instructions", async () => {
        const { client } = await open(server.url, era);
        const listed = (await client.listTools()).tools.find((tool) => tool.name === "report");
        expect(listed).toMatchObject({
          description: "Makes a report (key ***)",
          inputSchema: { properties: { key: { default: "***", description: "e.g. ***" } } },
        });
        expect(JSON.stringify(listed)).not.toContain(SECRET);
        const result = await client.callTool({ name: "report", arguments: {} });
        expect(result.content).toEqual([
          { type: "text", text: "report ready" },
          {
            type: "resource_link",
            name: "https://files.example/report.pdf?api_key=***",
            uri: "https://files.example/report.pdf?api_key=***",
            mimeType: "application/pdf",
          },
          {
            type: "resource",
            resource: { uri: "https://files.example/r.txt?api_key=***", text: "body ***" },
          },
        ]);
        // The schema is listed scrubbed; arguments are still checked against the tool's own.
        const called = await client.callTool({ name: "report", arguments: { key: SECRET } });
        expect(called.isError).toBeFalsy();
        expect(client.getInstructions()).toBe("Reports are signed with key ***.");
      });

      it("gives the tool who calls and its budget", async () => {
        const { client } = await open(server.url, era);
        const result = await client.callTool({ name: "whoami", arguments: {} });
        const seen = JSON.parse(textOf(result));
        expect(seen).toMatchObject({ timeout: 120_000, callId: "string" });
        expect(seen.mcp.client).toEqual({ name: "test-host", version: "1.2.3" });
      });

      it("answers an unknown tool with the protocol's error", async () => {
        const { client } = await open(server.url, era);
        await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow();
      });
    });
  }

  for (const era of ["2026", "2025"] as const) {
    it(`aborts the tool's signal when a ${era} client cancels the call`, async () => {
      const { client } = await open(server.url, era);
      const sawAbort = new Promise<void>((resolve) => {
        aborted = resolve;
      });
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const stop = new AbortController();
      const call = client.callTool({ name: "hang", arguments: {} }, { signal: stop.signal });
      call.catch(() => {});
      await running;
      stop.abort();
      await expect(call).rejects.toThrow();
      await sawAbort;
    });
  }

  it("refuses a body over the limit and a foreign Host", async () => {
    const big = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { pad: "x".repeat(70_000) },
      }),
    });
    expect(big.status).toBe(413);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(server.url, {
        method: "POST",
        headers: { host: "evil.example", "content-type": "application/json" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(403);
  });
});

describe("serveMcpHttp's session limit", () => {
  it("refuses a 2025 session past the limit", async () => {
    const server = await serveMcpHttp({ tools: testTools(), maxSessions: 1 });
    const first = await connect(server.url, "2025");
    try {
      expect(server.sessions).toBe(1);
      await expect(connect(server.url, "2025")).rejects.toThrow(/as many sessions/);
      // A 2026 client needs no session: it is served all the same.
      const modern = await connect(server.url, "2026");
      expect(textOf(await modern.client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe(
        "2",
      );
      await modern.client.close();
    } finally {
      await first.client.close();
      await server.close();
    }
  });
});
