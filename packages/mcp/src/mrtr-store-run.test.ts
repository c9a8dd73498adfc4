// An MCP server's input_required round on a run store used as the run's durability backend
// (`client.run(prompt, { runId, durability: store })`, as under an engine): the run waits on the
// SQLite file for the answer, then the server finishes the round in the same call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@toolnexus/client";
import { type SqliteStore, sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset } from "./index.js";
import { MRTR_SERVER, script } from "./test-support.js";

describe("input_required with durability: store", () => {
  let mcp: McpToolset;
  let dir: string;
  let store: SqliteStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-store-run-"));
    store = sqliteStore({ path: join(dir, "runs.db") });
    mcp = await loadMcp({
      mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("waits on the store for the answer and finishes the server's round in the same call", async () => {
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "d1", name: "ops_deploy", arguments: { service: "api" } }] },
        (last) => ({ content: `final: ${last}` }),
      ]),
      tools: mcp.tools(),
      runs: store,
    });
    const running = client.run("deploy api", { runId: "mcp-store-1", durability: store });
    let waiting = store.getRun("mcp-store-1")?.requests ?? [];
    while (waiting.length === 0) {
      // The run waits in this process; the store shows its question once it halted.
      await new Promise((resolve) => setTimeout(resolve, 10));
      waiting = store.getRun("mcp-store-1")?.requests ?? [];
    }
    expect(waiting[0]!.request).toMatchObject({
      kind: "input",
      prompt: "Which environment should api go to?",
    });
    store.answer({ id: waiting[0]!.request.id, ok: true, data: { env: "staging" } });
    const result = await running;
    expect(result.status).toBe("done");
    expect(result.text).toMatch(/^final: deployed api to staging; state /);
  });
});
