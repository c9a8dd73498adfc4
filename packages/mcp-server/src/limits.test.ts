// What a served toolkit refuses or cuts, who a tool sees as its caller, and that a round's
// state is good only for the identity it was given to.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { serveMcpHttp } from "./index.js";
import { testTools } from "./test-tools.js";

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

async function connect(url: string, token?: string, manual = false): Promise<Client> {
  const client = new Client({ name: "limits", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    ...(manual ? { inputRequired: { autoFulfill: false } } : {}),
  } as never);
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

describe("limits and identity", () => {
  it("serves only the exposed tools, cuts long output and refuses large arguments", async () => {
    const long = nativeTool({
      name: "long",
      description: "A long text",
      run: () => "x".repeat(500),
    });
    const echo = nativeTool({
      name: "echo",
      description: "Echoes",
      input: { type: "object", properties: { text: { type: "string" } } },
      run: (args) => String(args.text),
    });
    const server = await serveMcpHttp({
      tools: [...testTools(), long, echo],
      expose: ["long", "echo", "nope"],
      maxOutputChars: 100,
      maxArgumentBytes: 200,
    });
    const client = await connect(server.url);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "long"]);
      const cut = textOf(await client.callTool({ name: "long", arguments: {} }));
      expect(cut).toContain("[cut: the result was 500 characters, the limit is 100]");
      expect(cut.startsWith("x".repeat(100))).toBe(true);
      const big = await client.callTool({ name: "echo", arguments: { text: "y".repeat(300) } });
      expect(big.isError).toBe(true);
      expect(textOf(big)).toBe("the arguments of echo are larger than this server accepts");
      expect(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("answers a call past the concurrency limit with an error, and serves it again once one ends", async () => {
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const server = await serveMcpHttp({
      tools: testTools([], { started: () => started() }),
      maxConcurrentCalls: 1,
    });
    const client = await connect(server.url);
    try {
      const stop = new AbortController();
      const hanging = client.callTool({ name: "hang", arguments: {} }, { signal: stop.signal });
      hanging.catch(() => {});
      await running;
      const busy = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      expect(busy.isError).toBe(true);
      expect(textOf(busy)).toBe(
        "this server is running as many calls as it allows; try again later",
      );
      stop.abort();
      await expect(hanging).rejects.toThrow();
      // The cancelled call leaves the server when its tool sees the abort.
      let again = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      while (again.isError)
        again = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      expect(textOf(again)).toBe("3");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("authenticates, tells tools who calls (never the token), and binds a round to its caller", async () => {
    const server = await serveMcpHttp({
      tools: testTools(),
      authenticate: (request) => {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
        if (token === "token-alice" || token === "token-bob") {
          return {
            token,
            clientId: token.slice(6),
            scopes: ["tools"],
            expiresAt: Date.now() / 1000 + 60,
          };
        }
        return new Response("unauthorized", { status: 401 });
      },
    });
    const alice = await connect(server.url, "token-alice", true);
    const bob = await connect(server.url, "token-bob", true);
    try {
      await expect(connect(server.url, "wrong")).rejects.toThrow();
      const seen = textOf(await alice.callTool({ name: "whoami", arguments: {} }));
      expect(JSON.parse(seen).mcp).toMatchObject({ clientId: "alice", scopes: ["tools"] });
      expect(seen).not.toContain("token-alice");

      const asked = (await alice.callTool({ name: "deploy", arguments: { service: "api" } }, {
        allowInputRequired: true,
      } as never)) as unknown as { inputRequests: Record<string, unknown>; requestState: string };
      const key = Object.keys(asked.inputRequests)[0]!;
      const round = {
        name: "deploy",
        arguments: { service: "api" },
        inputResponses: { [key]: { action: "accept", content: { env: "staging" } } },
        requestState: asked.requestState,
      };
      // Bob cannot continue Alice's call with her state; Alice can.
      await expect(bob.callTool(round as never)).rejects.toThrow(/requestState/);
      expect(textOf(await alice.callTool(round as never))).toContain("deployed api to staging");
    } finally {
      await alice.close();
      await bob.close();
      await server.close();
    }
  });
});
