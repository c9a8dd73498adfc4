// The durable rounds across processes: two server processes on two ports share one SQLite
// file; a call asks in one, and the round that answers goes to the other, which continues it.
// Then our own @toolnexus/mcp client does the same through its durable input_required path.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { loadMcp } from "@toolnexus/mcp";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "./test-processes.js";

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

async function manualClient(url: string): Promise<Client> {
  const client = new Client({ name: "lb-client", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {}, url: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    inputRequired: { autoFulfill: false },
  } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe("durable rounds behind a load balancer", () => {
  let dir: string;
  let db: string;
  let a: ServerProcess;
  let b: ServerProcess;
  const clients: Client[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-server-"));
    db = join(dir, "runs.db");
    const env = { MCP_DB: db, MCP_STATE_KEY: randomBytes(32).toString("hex") };
    [a, b] = await Promise.all([
      startServer("serve-http.ts", env),
      startServer("serve-http.ts", env),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("asks in one process and continues in the other, once", async () => {
    expect(a.pid).not.toBe(b.pid);
    const [toA, toB] = [await manualClient(a.url), await manualClient(b.url)];
    clients.push(toA, toB);
    const asked = (await toA.callTool({ name: "ship", arguments: { what: "v2" } }, {
      allowInputRequired: true,
    } as never)) as unknown as {
      resultType: string;
      inputRequests: Record<string, { params: { message: string } }>;
      requestState: string;
    };
    expect(asked.resultType).toBe("input_required");
    const key = Object.keys(asked.inputRequests)[0]!;
    expect(asked.inputRequests[key]!.params.message).toBe("Where should v2 ship?");
    // The run waits in the shared store, and nothing of the tool's state is on the wire.
    const store = sqliteStore({ path: db });
    try {
      const waiting = await store.list({ state: "waiting" });
      expect(waiting.map((s) => s.request.prompt)).toEqual(["Where should v2 ship?"]);
    } finally {
      store.close();
    }
    expect(Buffer.from(asked.requestState.split(".")[1]!, "base64url").toString()).not.toContain(
      "asked",
    );

    const round = {
      name: "ship",
      arguments: { what: "v2" },
      inputResponses: { [key]: { action: "accept", content: { env: "prod" } } },
      requestState: asked.requestState,
    };
    const done = await toB.callTool(round as never);
    expect(textOf(done)).toBe(`shipped v2 to prod by ${b.pid} (asked by {"asked":${a.pid}})`);
    // The same round again (a retry through the balancer) gets the same result, not a second run.
    const again = await toA.callTool(round as never);
    expect(textOf(again)).toBe(textOf(done));
  });

  it("refuses a tampered requestState", async () => {
    const client = await manualClient(b.url);
    clients.push(client);
    const asked = (await client.callTool({ name: "ship", arguments: { what: "v3" } }, {
      allowInputRequired: true,
    } as never)) as unknown as { requestState: string };
    const [version, body, mac] = asked.requestState.split(".");
    const forged = JSON.parse(Buffer.from(body!, "base64url").toString());
    forged.p.run = "mcprun_someone_else";
    const tampered = `${version}.${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${mac}`;
    await expect(
      client.callTool({
        name: "ship",
        arguments: { what: "v3" },
        inputResponses: { toolnexus: { action: "accept", content: { env: "prod" } } },
        requestState: tampered,
      } as never),
    ).rejects.toThrow(/requestState/);
  });

  it("our own client halts durably on the question and resumes through the other process", async () => {
    const clientDb = join(dir, "client.db");
    const first = await loadMcp({ mcpServers: { ops: { url: a.url, protocol: "2026-07-28" } } });
    let runId: string;
    let requestId: string;
    const runs = sqliteStore({ path: clientDb });
    try {
      expect(first.tools().map((tool) => tool.name)).toContain("ops_ship");
      const client = createClient({
        model: scriptedModel([{ toolCalls: [{ name: "ops_ship", arguments: { what: "v4" } }] }]),
        tools: first.tools(),
        runs,
      });
      const halted = await client.run("ship v4");
      if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
      expect(halted.pending.prompt).toBe("Where should v4 ship?");
      runId = halted.runId;
      requestId = halted.pending.id;
    } finally {
      await first.close();
    }
    // A fresh toolkit whose server is the other process, as after a restart behind a balancer.
    const second = await loadMcp({ mcpServers: { ops: { url: b.url, protocol: "2026-07-28" } } });
    try {
      // The scripted model's next turn is the final answer: the halted call is not asked again.
      const client = createClient({
        model: scriptedModel([{ content: "done" }]),
        tools: second.tools(),
        runs,
      });
      const resumed = await client.resume({ id: requestId, ok: true, data: { env: "eu" } });
      expect(resumed.status).toBe("done");
      expect(resumed.runId).toBe(runId);
      const call = resumed.toolCalls.find((c: { name: string }) => c.name === "ops_ship");
      expect(call?.result.output).toBe(
        `shipped v4 to eu by ${b.pid} (asked by {"asked":${a.pid}})`,
      );
    } finally {
      await second.close();
      runs.close();
    }
  });
});
