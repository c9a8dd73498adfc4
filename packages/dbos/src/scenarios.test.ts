// The scenarios every durable backend must pass, on DBOS: a sub-agent's escalated question, an
// MCP server's input_required round, and the OpenTelemetry spans of model and tool calls.
import { fileURLToPath } from "node:url";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { agentTool, createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type Tool } from "@toolnexus/core";
import { loadMcp, type McpToolset } from "@toolnexus/mcp";
import { otelInstrumentation } from "@toolnexus/otel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, launchDbos, waitingFor } from "../test/dbos.js";
import { answer, registerAgent } from "./index.js";

/** The MCP test server whose tools ask with `input_required` (@toolnexus/mcp's fixture). */
const MRTR_SERVER = fileURLToPath(
  new URL("../../mcp/src/fixtures/mrtr-server.mjs", import.meta.url),
);

const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const deploy: Tool = {
  name: "deploy",
  description: "Deploys once a human names the environment",
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  async execute(_args, ctx) {
    if (ctx?.answer === undefined) return pending({ kind: "input", prompt: "Which environment?" });
    return { output: `deployed to ${ctx.answer.data?.env}`, isError: false };
  },
};

// A lead agent whose `ops` tool is a sub-agent; the sub-agent's `deploy` asks.
const ops = createClient({
  model: scriptedModel([
    { toolCalls: [{ name: "deploy", arguments: {} }] },
    (request) => ({ content: `ops: ${request.messages.at(-1)?.content}` }),
  ]),
  tools: [deploy],
  agent: "ops",
});
const lead = registerAgent({
  name: "lead",
  client: createClient({
    model: scriptedModel([
      { toolCalls: [{ name: "ops", arguments: { prompt: "deploy web" } }] },
      (request) => ({ content: `lead: ${request.messages.at(-1)?.content}` }),
    ]),
    tools: [agentTool(ops, { name: "ops", description: "Operations" })],
  }),
});

// An agent on the MCP server's tools, loaded before DBOS registers the workflow.
const mcp: McpToolset = await loadMcp({
  mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } },
});
const mcpAgent = registerAgent({
  name: "mcp",
  client: createClient({
    model: scriptedModel([
      { toolCalls: [{ id: "d1", name: "ops_deploy", arguments: { service: "api" } }] },
      (request) => ({ content: `final: ${request.messages.at(-1)?.content}` }),
    ]),
    tools: mcp.tools(),
  }),
});

// An agent traced with @toolnexus/otel.
const traced = registerAgent({
  name: "traced",
  client: createClient({
    model: scriptedModel([
      { toolCalls: [{ name: "deploy", arguments: {} }] },
      { content: "traced done" },
    ]),
    tools: [deploy],
    agent: "traced",
    instrumentation: otelInstrumentation(),
  }),
});

beforeAll(async () => {
  await launchDbos(freshDatabase("scenarios"));
}, 120_000);
afterAll(async () => {
  await DBOS.shutdown();
  await mcp.close();
});

describe("the durable scenarios on DBOS", () => {
  it("a sub-agent's escalated question waits in the lead's workflow and continues the child", async () => {
    await lead.start("ship", { runId: "sub" });
    const [awaited] = await waitingFor(DBOS, "sub");
    expect(awaited?.request.route).toEqual({ agent: "ops", path: ["ops"] });
    await answer(DBOS, "sub", { id: awaited!.request.id, ok: true, data: { env: "prod" } });
    const result = await lead.result("sub");
    expect(result.status).toBe("done");
    expect(result.text).toBe("lead: ops: deployed to prod");
  });

  it("an MCP server's input_required is a request the run waits for; the answer finishes the round", async () => {
    await mcpAgent.start("deploy api", { runId: "mcp" });
    const [awaited] = await waitingFor(DBOS, "mcp");
    expect(awaited?.request).toMatchObject({
      kind: "input",
      prompt: "Which environment should api go to?",
    });
    // The server's requestState stays with the run, never in what the answerer sees.
    expect(JSON.stringify(awaited)).not.toContain("nonce");
    await answer(DBOS, "mcp", { id: awaited!.request.id, ok: true, data: { env: "staging" } });
    const result = await mcpAgent.result("mcp");
    expect(result.text).toMatch(/^final: deployed api to staging; state \{"service":"api"/);
  });

  it("traces the model and tool calls of a run through a halt (invoke_agent, chat, execute_tool)", async () => {
    spans.reset();
    await traced.start("go", { runId: "otel" });
    const [awaited] = await waitingFor(DBOS, "otel");
    await answer(DBOS, "otel", { id: awaited!.request.id, ok: true, data: { env: "eu" } });
    expect((await traced.result("otel")).text).toBe("traced done");
    const names = spans
      .getFinishedSpans()
      .map((span) => span.name)
      .filter((name) => /^(invoke_agent|chat|execute_tool) /.test(name));
    expect(names.filter((name) => name.startsWith("chat "))).toHaveLength(2);
    // The first execution (it asked) and the one with the answer.
    expect(names.filter((name) => name === "execute_tool deploy")).toHaveLength(2);
    expect(names).toContain("invoke_agent traced");
  });
});
