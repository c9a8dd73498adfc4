// server-everything, the MCP project's reference server (2025 protocol, push-style questions),
// started by the test over stdio and over Streamable HTTP on 127.0.0.1.
import { createClient, type RunEvent, type WaitFor } from "@toolnexus/client";
import type { Answer, Request } from "@toolnexus/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset, type McpWaitFor } from "./index.js";
import { EVERYTHING, everythingOverHttp, script } from "./test-support.js";

const transports = [
  {
    name: "stdio",
    config: async () => ({
      config: {
        mcpServers: { "every thing": { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      },
      stop: async () => {},
    }),
  },
  {
    name: "Streamable HTTP",
    config: async () => {
      const http = await everythingOverHttp();
      return { config: { mcpServers: { "every thing": { url: http.url } } }, stop: http.stop };
    },
  },
];

describe.each(transports)("server-everything over $name", ({ config }) => {
  let answerWith: (request: Request) => Answer | Promise<Answer> = (request) => ({
    id: request.id,
    ok: false,
    reason: "declined",
  });
  const asked: Request[] = [];
  const waitFor: McpWaitFor = (request) => {
    asked.push(request);
    return answerWith(request);
  };
  let mcp: McpToolset;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const started = await config();
    stop = started.stop;
    mcp = await loadMcp(started.config, { waitFor, waitTimeoutMs: 1_500 });
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await stop?.();
  });

  const tool = (name: string) => {
    const found = mcp.tools().find((t) => t.name === name);
    if (found === undefined)
      throw new Error(`no tool ${name} in ${mcp.tools().map((t) => t.name)}`);
    return found;
  };

  it("lists the tools, named sanitize(server)_sanitize(tool), and reports the server connected", () => {
    expect(mcp.status()).toEqual({ "every thing": "connected" });
    const names = mcp.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "every_thing_echo",
        "every_thing_get-sum",
        "every_thing_trigger-long-running-operation",
      ]),
    );
    for (const t of mcp.tools()) {
      expect(t.source).toBe("mcp");
      expect(t.name).toMatch(/^every_thing_[a-zA-Z0-9_-]+$/);
      expect(t.inputSchema.type).toBe("object");
    }
    const [info] = mcp.servers();
    expect(info).toMatchObject({ name: "every thing", status: "connected", protocol: "2025" });
  });

  it("calls echo and get-sum through createClient with a scripted model", async () => {
    const client = createClient({
      model: script([
        {
          toolCalls: [
            { id: "c1", name: "every_thing_echo", arguments: { message: "hello mcp" } },
            { id: "c2", name: "every_thing_get-sum", arguments: { a: 2, b: 3 } },
          ],
        },
        { content: "done" },
      ]),
      tools: mcp.tools(),
    });
    const result = await client.run("echo and add");
    expect(result.status).toBe("done");
    const [echo, sum] = result.toolCalls;
    expect(echo?.result).toMatchObject({ isError: false });
    expect(echo?.result.output).toContain("hello mcp");
    expect(sum?.result.output).toContain("5");
    expect(sum?.result.metadata).toMatchObject({ server: "every thing", tool: "get-sum" });
  });

  it("reports progress of the long-running operation as progress events", async () => {
    const events: RunEvent[] = [];
    const client = createClient({
      model: script([
        {
          toolCalls: [
            {
              id: "long",
              name: "every_thing_trigger-long-running-operation",
              arguments: { duration: 1, steps: 4 },
            },
          ],
        },
        { content: "ok" },
      ]),
      tools: mcp.tools(),
      onEvent: (event) => events.push(event),
    });
    const result = await client.run("go");
    expect(result.toolCalls[0]?.result.output).toContain("Long running operation completed");
    const progress = events.filter((e) => e.type === "progress");
    // One report per step (the last may race the result and be dropped by the SDK).
    const steps = progress.map((e) => (e as { progress: number }).progress);
    expect(steps.slice(0, 3)).toEqual([1, 2, 3]);
    expect(steps.length).toBeLessThanOrEqual(4);
    expect(progress[0]).toMatchObject({ type: "progress", callId: "long", total: 4 });
  });

  it("cancels the long-running operation when the run's signal aborts", async () => {
    const controller = new AbortController();
    const client = createClient({
      model: script([
        {
          toolCalls: [
            {
              id: "long",
              name: "every_thing_trigger-long-running-operation",
              arguments: { duration: 30, steps: 30 },
            },
          ],
        },
        { content: "ok" },
      ]),
      tools: mcp.tools(),
      onEvent: (event) => {
        if (event.type === "progress") controller.abort(new Error("user stopped"));
      },
    });
    const started = Date.now();
    await expect(client.run("go", { signal: controller.signal })).rejects.toMatchObject({
      name: "RunCancelledError",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    // The tool itself, called directly with an aborted signal, ends with a cancellation.
    const direct = new AbortController();
    const pendingCall = tool("every_thing_trigger-long-running-operation").execute(
      { duration: 30, steps: 30 },
      { signal: direct.signal },
    );
    setTimeout(() => direct.abort(), 300);
    const result = await pendingCall;
    expect(result).toMatchObject({ isError: true, metadata: { cancelled: true } });
    // The server still serves calls afterwards.
    expect((await tool("every_thing_echo").execute({ message: "still here" })).output).toContain(
      "still here",
    );
  });

  it("answers a form elicitation through waitFor (accepted, declined, expired)", async () => {
    const elicit = tool("every_thing_trigger-elicitation-request");
    asked.length = 0;
    answerWith = (request) => ({
      id: request.id,
      ok: true,
      data: { name: "Ada", check: true, firstLine: "Ada Lovelace" },
    });
    const accepted = await elicit.execute({}, { callId: "e1" });
    expect(asked[0]).toMatchObject({ kind: "input", data: { server: "every thing" } });
    expect(asked[0]?.prompt).not.toBe("");
    expect((asked[0]?.data?.schema as { type?: string })?.type).toBe("object");
    expect(accepted.output).toContain("accept");
    expect(accepted.output).toContain("Ada");

    answerWith = (request) => ({ id: request.id, ok: false, reason: "declined" });
    const declined = await elicit.execute({}, { callId: "e2" });
    expect(declined.output).toContain("decline");

    // Nobody answers: the wait expires (waitTimeoutMs) and the server hears "cancel".
    answerWith = () => new Promise<Answer>(() => {});
    const expired = await elicit.execute({}, { callId: "e3" });
    expect(expired.output).toContain("cancel");
  });

  it("answers a URL elicitation through waitFor as an authorization request", async () => {
    asked.length = 0;
    answerWith = (request) => ({ id: request.id, ok: true });
    const url = "https://example.com/consent?flow=1";
    const result = await tool("every_thing_trigger-url-elicitation").execute(
      { url, message: "Please sign in" },
      { callId: "u1" },
    );
    expect(asked[0]).toMatchObject({ kind: "authorization", url, prompt: "Please sign in" });
    expect(result.isError).toBe(false);
    expect(result.output).toContain("accept");

    answerWith = (request) => ({ id: request.id, ok: false, reason: "declined" });
    const declined = await tool("every_thing_trigger-url-elicitation").execute({ url }, {});
    expect(declined.output).toContain("decline");
  });

  it("through the client: the same waitFor serves the loop and the server's questions", async () => {
    answerWith = (request) => ({ id: request.id, ok: true, data: { name: "Grace" } });
    const loopWaitFor: WaitFor = (request, info) => waitFor(request, info);
    const client = createClient({
      model: script([
        {
          toolCalls: [{ id: "q", name: "every_thing_trigger-elicitation-request", arguments: {} }],
        },
        { content: "thanks" },
      ]),
      tools: mcp.tools(),
      waitFor: loopWaitFor,
    });
    const result = await client.run("ask me");
    expect(result.status).toBe("done");
    expect(result.toolCalls[0]?.result.output).toContain("Grace");
  });
});

describe("server-everything without a waitFor: a push-style question halts and replays", () => {
  it("halts the run durably, then replays the call answering from the Answer", async () => {
    const mcp = await loadMcp({
      mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
    });
    try {
      const client = createClient({
        model: script([
          { toolCalls: [{ id: "q", name: "ev_trigger-elicitation-request", arguments: {} }] },
          (last) => ({ content: `got: ${last}` }),
        ]),
        tools: mcp.tools(),
      });
      const halted = await client.run("ask");
      expect(halted.status).toBe("pending");
      if (halted.status !== "pending") return;
      expect(halted.pending.kind).toBe("input");
      const done = await client.resume({
        id: halted.pending.id,
        ok: true,
        data: { name: "Linus" },
      });
      expect(done.status).toBe("done");
      expect(done.text).toContain("Linus");
    } finally {
      await mcp.close();
    }
  });
});
