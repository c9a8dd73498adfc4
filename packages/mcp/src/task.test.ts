// A 2026 server's tasks (Tasks extension) against the real server of fixtures/task-server.mjs:
// followed in the call, halted on durably and continued after the watcher saw the task move,
// asking the human through tasks/update, and cancelled with their run.
import { createClient } from "@toolnexus/client";
import { pendingOf, resumeStateOf } from "@toolnexus/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset, TASK_REQUEST_KIND } from "./index.js";
import { eventually, startTaskServer, type TaskServer, taskScript } from "./task-support.js";

describe("MCP tasks", () => {
  let server: TaskServer;
  const open: McpToolset[] = [];
  const watchers: AbortController[] = [];
  beforeAll(async () => {
    server = await startTaskServer();
  });
  afterAll(async () => {
    for (const watcher of watchers) watcher.abort();
    await Promise.all(open.map((mcp) => mcp.close()));
    await server?.stop();
  });

  const load = async (taskWaitMs: number) => {
    const mcp = await loadMcp(
      { mcpServers: { ci: { url: server.url, protocol: "2026-07-28" } } },
      { taskWaitMs },
    );
    open.push(mcp);
    expect(mcp.status()).toEqual({ ci: "connected" });
    return mcp;
  };
  const watch = (mcp: McpToolset, runs: Parameters<McpToolset["watchTasks"]>[0]["runs"]) => {
    const stop = new AbortController();
    watchers.push(stop);
    const summary = mcp.watchTasks({ runs, signal: stop.signal, pollMs: 20 });
    return { stop, summary };
  };

  it("follows a task in the call until it completes: the tool ran once", async () => {
    const mcp = await load(60_000);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    const before = await server.stats();
    const run = client.run("inline");
    await eventually(async () => (await server.stats()).gets > before.gets, "a poll");
    await server.finish();
    const result = await run;
    expect(result.status).toBe("done");
    expect(result.text).toBe("final: built inline");
    expect((await server.stats()).executions - before.executions).toBe(1);
  });

  it("halts the run on a working task; the watcher answers once it completes; the run goes on with its result", async () => {
    const mcp = await load(0);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    const before = await server.stats();
    const halted = await client.run("later");
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    expect(halted.pending.kind).toBe(TASK_REQUEST_KIND);
    expect(halted.pending.data).toMatchObject({ server: "ci", status: "working" });
    const { stop, summary } = watch(mcp, client.runs);
    await server.finish();
    await eventually(
      async () => (await client.getRun(halted.runId))?.state === "ready",
      "the run is ready",
    );
    const done = await client.continueRun(halted.runId);
    expect(done.text).toBe("final: built later");
    stop.abort();
    expect((await summary).answered).toBe(1);
    expect((await server.stats()).executions - before.executions).toBe(1);
  });

  it("a task that needs input asks the human; the answer goes back with tasks/update", async () => {
    const mcp = await load(0);
    const client = createClient({ model: taskScript("ci_release"), tools: mcp.tools() });
    const before = await server.stats();
    const halted = await client.run("v2");
    expect(halted.status === "pending" && halted.pending.kind).toBe(TASK_REQUEST_KIND);
    if (halted.status !== "pending") return;
    const { stop } = watch(mcp, client.runs);
    await server.finish();
    await eventually(
      async () => (await client.getRun(halted.runId))?.state === "ready",
      "the run is ready",
    );
    const asked = await client.continueRun(halted.runId);
    stop.abort();
    expect(asked.status).toBe("pending");
    if (asked.status !== "pending") return;
    expect(asked.pending.kind).toBe("input");
    expect(asked.pending.prompt).toBe("Release v2?");
    const done = await client.resume({ id: asked.pending.id, ok: true, data: { approve: true } });
    expect(done.text).toBe("final: released v2");
    const after = await server.stats();
    expect(after.updates - before.updates).toBe(1);
    expect(after.executions - before.executions).toBe(1);
  });

  it("a server slow to show the answer: the run waits on the task again, not asking twice", async () => {
    const mcp = await load(0);
    const client = createClient({ model: taskScript("ci_release"), tools: mcp.tools() });
    const halted = await client.run("lag-v3");
    if (halted.status !== "pending") throw new Error(`not halted: ${halted.status}`);
    const { stop, summary } = watch(mcp, client.runs);
    await server.finish();
    const ready = async () => (await client.getRun(halted.runId))?.state === "ready";
    await eventually(ready, "the run is ready");
    const asked = await client.continueRun(halted.runId);
    expect(asked.status === "pending" && asked.pending.kind).toBe("input");
    if (asked.status !== "pending") return;
    // The answer goes back; the server still shows the question for a poll: the run waits.
    const again = await client.resume({ id: asked.pending.id, ok: true, data: { approve: true } });
    expect(again.status === "pending" && again.pending.kind).toBe(TASK_REQUEST_KIND);
    if (again.status !== "pending") return;
    expect(again.pending.data?.answered).toHaveLength(1);
    await eventually(ready, "the run is ready again");
    expect((await client.continueRun(halted.runId)).text).toBe("final: released lag-v3");
    stop.abort();
    expect((await summary).answered).toBe(2);
  });

  it("a task's question the host answers (roots) goes back with tasks/update in the call", async () => {
    const mcp = await loadMcp(
      { mcpServers: { ci: { url: server.url, protocol: "2026-07-28" } } },
      { taskWaitMs: 60_000, roots: [{ uri: "file:///work", name: "work" }] },
    );
    open.push(mcp);
    const client = createClient({ model: taskScript("ci_audit"), tools: mcp.tools() });
    const before = await server.stats();
    const run = client.run("repo");
    await eventually(async () => (await server.stats()).gets > before.gets, "a poll");
    await server.finish();
    const result = await run;
    expect(result.text).toBe("final: audited repo in file:///work");
    const after = await server.stats();
    expect(after.updates - before.updates).toBe(1);
    expect(after.executions - before.executions).toBe(1);
  });

  it("a failed task is an error result with the server's message", async () => {
    const mcp = await load(60_000);
    const model = taskScript("ci_crash");
    const client = createClient({ model, tools: mcp.tools() });
    const before = await server.stats();
    const run = client.run("app");
    await eventually(async () => (await server.stats()).gets > before.gets, "a poll");
    await server.finish();
    const result = await run;
    expect(result.text).toBe(
      "final: MCP server ci: the task of crash failed: disk full while building app",
    );
    const call = result.toolCalls?.[0];
    expect(call?.result.isError).toBe(true);
    expect(call?.result.metadata).toMatchObject({ server: "ci", tool: "crash" });
  });

  it("with tasks: false the extension is not declared and the server answers in place", async () => {
    const mcp = await loadMcp(
      { mcpServers: { ci: { url: server.url, protocol: "2026-07-28" } } },
      { tasks: false },
    );
    open.push(mcp);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    expect((await client.run("now")).text).toBe("final: build of now done at once");
  });

  it("the server unreachable while the call polls: the run halts on the task and goes on later", async () => {
    const mcp = await load(60_000);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    const before = await server.stats();
    const run = client.run("outage");
    await eventually(async () => (await server.stats()).gets > before.gets, "a poll");
    await server.control("down");
    const halted = await run;
    await server.control("up");
    expect(halted.status === "pending" && halted.pending.kind).toBe(TASK_REQUEST_KIND);
    if (halted.status !== "pending") return;
    const { stop } = watch(mcp, client.runs);
    await server.finish();
    await eventually(
      async () => (await client.getRun(halted.runId))?.state === "ready",
      "the run is ready",
    );
    stop.abort();
    expect((await client.continueRun(halted.runId)).text).toBe("final: built outage");
    expect((await server.stats()).executions - before.executions).toBe(1);
  });

  it("a task the server forgot: the watcher lets the run go on, the call reports the error", async () => {
    const mcp = await load(0);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    const halted = await client.run("lost");
    if (halted.status !== "pending") throw new Error(`not halted: ${halted.status}`);
    await server.control("forget");
    const errors: string[] = [];
    const stop = new AbortController();
    watchers.push(stop);
    const watching = mcp.watchTasks({
      runs: client.runs,
      signal: stop.signal,
      pollMs: 20,
      onError: (e) => errors.push(e.message),
    });
    await eventually(
      async () => (await client.getRun(halted.runId))?.state === "ready",
      "the run is ready",
    );
    stop.abort();
    expect((await watching).answered).toBe(1);
    expect(errors.some((e) => e.includes("unknown task"))).toBe(true);
    const done = await client.continueRun(halted.runId);
    expect(done.text).toMatch(
      /^final: MCP server ci: the task of build could not be followed: .*unknown task/,
    );
  });

  it("a kept task whose call stops is left running unless the run was cancelled", async () => {
    const quick = await load(0);
    const slow = await load(60_000);
    const tool = (mcp: McpToolset) => mcp.tools().find((t) => t.name === "ci_build")!;
    const halted = await tool(quick).execute({ target: "kept" });
    const request = pendingOf(halted)!;
    const state = resumeStateOf(halted);
    const before = await server.stats();
    const takeUp = (reason: unknown) => {
      const stop = new AbortController();
      const result = tool(slow).execute(
        { target: "kept" },
        { answer: { id: request.id, ok: true }, resumeState: state, signal: stop.signal },
      );
      return { result, stop: () => stop.abort(reason) };
    };
    // A worker stopping (or losing its lease): the run waits on the same task again.
    const stopping = takeUp(new DOMException("the worker stops", "AbortError"));
    await eventually(async () => (await server.stats()).gets > before.gets, "a poll");
    stopping.stop();
    expect(pendingOf(await stopping.result)?.kind).toBe(TASK_REQUEST_KIND);
    expect((await server.stats()).cancels).toBe(before.cancels);
    // The run cancelled: the task is cancelled on the server too.
    const cancelling = takeUp(
      Object.assign(new Error("run cancelled"), { code: "cancel_requested" }),
    );
    const polled = (await server.stats()).gets;
    await eventually(async () => (await server.stats()).gets > polled, "a poll");
    cancelling.stop();
    expect((await cancelling.result).metadata).toMatchObject({ cancelled: true });
    expect((await server.stats()).cancels).toBe(before.cancels + 1);
  });

  it("cancelling the run cancels its task on the server", async () => {
    const mcp = await load(0);
    const client = createClient({ model: taskScript("ci_build"), tools: mcp.tools() });
    const before = await server.stats();
    const halted = await client.run("doomed");
    if (halted.status !== "pending") throw new Error(`not halted: ${halted.status}`);
    await client.cancel(halted.runId, { reason: "not needed" });
    const { stop, summary } = watch(mcp, client.runs);
    await eventually(async () => (await server.stats()).cancels > before.cancels, "tasks/cancel");
    stop.abort();
    expect((await summary).cancelled).toBe(1);
    expect((await client.getRun(halted.runId))?.state).toBe("cancelled");
  });
});
