// A 2025 server's tasks: server-everything's simulate-research-query requires task augmentation
// (`taskSupport: "required"`); the call asks for a task, follows it (tasks/get, then tasks/result
// for the result), or halts the run on it until the watcher sees it done.
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { afterAll, describe, expect, it } from "vitest";
import { type LoadMcpOptions, loadMcp, type McpToolset, TASK_REQUEST_KIND } from "./index.js";
import { eventually } from "./task-support.js";
import { EVERYTHING } from "./test-support.js";

const research = (ambiguous = false) =>
  scriptedModel([
    {
      toolCalls: [
        { id: "q1", name: "ev_simulate-research-query", arguments: { topic: "tides", ambiguous } },
      ],
    },
    (request) => ({
      content: `final: ${request.messages.at(-1)?.content.split("\n")[0] ?? ""}`,
    }),
  ]);

describe("tasks of a 2025 server (server-everything)", () => {
  const open: McpToolset[] = [];
  afterAll(async () => {
    await Promise.all(open.map((mcp) => mcp.close()));
  });
  const load = async (taskWaitMs: number, options: LoadMcpOptions = {}) => {
    const mcp = await loadMcp(
      { mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
      { ...options, taskWaitMs },
    );
    open.push(mcp);
    expect(mcp.servers()[0]?.protocol).toBe("2025");
    return mcp;
  };

  it("a call that requires a task is followed in the call to its result", async () => {
    const mcp = await load(60_000);
    const client = createClient({ model: research(), tools: mcp.tools() });
    const result = await client.run("research");
    expect(result.text).toBe("final: # Research Report: tides");
    expect(result.toolCalls?.[0]?.result.metadata).toMatchObject({ server: "ev" });
  });

  it("halts the run on the task; the watcher answers when it is done; the run goes on", async () => {
    const mcp = await load(0);
    const client = createClient({ model: research(), tools: mcp.tools() });
    const halted = await client.run("research later");
    expect(halted.status === "pending" && halted.pending.kind).toBe(TASK_REQUEST_KIND);
    if (halted.status !== "pending") return;
    const stop = new AbortController();
    const watching = mcp.watchTasks({ runs: client.runs, signal: stop.signal, pollMs: 100 });
    await eventually(
      async () => (await client.getRun(halted.runId))?.state === "ready",
      "the run is ready",
    );
    stop.abort();
    expect((await watching).answered).toBe(1);
    const done = await client.continueRun(halted.runId);
    expect(done.text).toBe("final: # Research Report: tides");
  });

  it("a task's question (input_required) reaches waitFor through tasks/result", async () => {
    const asked: string[] = [];
    const mcp = await load(60_000, {
      waitFor: (request) => {
        asked.push(request.prompt);
        return { id: request.id, ok: true, data: { interpretation: "historical" } };
      },
    });
    const client = createClient({ model: research(true), tools: mcp.tools() });
    const result = await client.run("research, ambiguous");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("tides");
    expect(result.text).toBe("final: # Research Report: tides (historical)");
  });
});
