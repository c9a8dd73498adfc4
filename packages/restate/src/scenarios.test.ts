// The stores' scenarios on Restate: a sub-agent's escalated question, an MCP server's
// input_required round, a question that expires, and OpenTelemetry spans under the engine.
import { join } from "node:path";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { agentTool, createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type ToolContext } from "@toolnexus/core";
import { loadMcp, type McpToolset } from "@toolnexus/mcp";
import { nativeTool } from "@toolnexus/native";
import { otelInstrumentation } from "@toolnexus/otel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { answerRun, attachRun, submitRun, waitingRequests } from "./ingress.js";
import { type RestateServer, serveServices, startRestate, until } from "./test-support.js";
import { toolnexusWorkflow } from "./workflow.js";

const MRTR_SERVER = join(
  import.meta.dirname,
  "..",
  "..",
  "mcp",
  "src",
  "fixtures",
  "mrtr-server.mjs",
);

const executions: { tool: string; answered: boolean; ctx: ToolContext }[] = [];
const deploy = nativeTool({
  name: "deploy",
  description: "Deploys, asking where",
  input: z.object({ app: z.string() }),
  ctx: true,
  run: ({ app }, ctx: ToolContext) => {
    executions.push({ tool: "deploy", answered: ctx.answer !== undefined, ctx });
    if (ctx.answer === undefined)
      return pending({ kind: "input", prompt: `Where does ${app} go?` });
    if (!ctx.answer.ok) return { output: `not deployed (${ctx.answer.reason})`, isError: true };
    return `deployed ${app} to ${String(ctx.answer.data?.env)}`;
  },
});

/** Plays the same turns for every run: call `tool` with `args`, then say what the tools said. */
function oneCall(tool: string, args: Record<string, unknown>) {
  return scriptedModel(
    Array.from({ length: 100 }, () => (request) => {
      const results = request.messages.filter((m) => m.role === "tool");
      const asked = request.messages.filter((m) => m.role === "assistant").length;
      if (asked === 0) return { toolCalls: [{ name: tool, arguments: args }] };
      return { content: results.map((m) => m.content).join("; ") };
    }),
  );
}

async function question(ingress: string, service: string, runId: string) {
  const [waiting] = await until(`a question of ${runId}`, async () => {
    const got = await waitingRequests(ingress, runId, { service });
    return got.length > 0 ? got : undefined;
  });
  return waiting!;
}

describe("the stores' scenarios on Restate", () => {
  let restate: RestateServer;
  let service: { uri: string; close(): Promise<void> };
  let mcp: McpToolset;
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  }).getTracer("test");

  beforeAll(async () => {
    mcp = await loadMcp({
      mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } },
    });
    const child = createClient({
      model: oneCall("deploy", { app: "web" }),
      tools: [deploy],
      agent: "ops",
    });
    const lead = createClient({
      model: oneCall("ops", { prompt: "deploy web" }),
      tools: [agentTool(child, { name: "ops", description: "Operations" })],
    });
    const viaMcp = createClient({
      model: oneCall("ops_deploy", { service: "api" }),
      tools: mcp.tools(),
    });
    const hurried = createClient({
      model: oneCall("deploy", { app: "late" }),
      tools: [deploy],
      waitTimeoutMs: 300,
    });
    const traced = createClient({
      model: oneCall("deploy", { app: "seen" }),
      tools: [deploy],
      instrumentation: otelInstrumentation({ tracer }),
    });
    restate = await startRestate();
    service = await serveServices([
      toolnexusWorkflow({ client: lead, name: "lead" }),
      toolnexusWorkflow({ client: viaMcp, name: "mcp" }),
      toolnexusWorkflow({ client: hurried, name: "hurried" }),
      toolnexusWorkflow({ client: traced, name: "traced" }),
    ]);
    await restate.register(service.uri);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await restate?.stop();
    await mcp?.close();
  });

  it("a sub-agent's escalated question is answered through the ingress and continues the child", async () => {
    await submitRun(restate.ingress, "sub-1", { prompt: "ship web" }, { service: "lead" });
    const waiting = await question(restate.ingress, "lead", "sub-1");
    expect(waiting.request.route).toEqual({ agent: "ops", path: ["ops"] });
    await answerRun(
      restate.ingress,
      "sub-1",
      { id: waiting.request.id, ok: true, data: { env: "prod" } },
      { service: "lead" },
    );
    const result = await attachRun(restate.ingress, "sub-1", { service: "lead" });
    expect(result.status).toBe("done");
    expect(result.text).toBe("deployed web to prod");
  });

  it("an MCP server's input_required round halts on Restate and the server finishes with the answer", async () => {
    await submitRun(restate.ingress, "mcp-1", { prompt: "deploy api" }, { service: "mcp" });
    const waiting = await question(restate.ingress, "mcp", "mcp-1");
    expect(waiting.request).toMatchObject({
      kind: "input",
      prompt: "Which environment should api go to?",
    });
    await answerRun(
      restate.ingress,
      "mcp-1",
      { id: waiting.request.id, ok: true, data: { env: "staging" } },
      { service: "mcp" },
    );
    const result = await attachRun(restate.ingress, "mcp-1", { service: "mcp" });
    expect(result.status).toBe("done");
    expect(result.text).toMatch(/^deployed api to staging; state /);
  });

  it("a question nobody answers expires at its deadline: the tool's run reads declined/expired", async () => {
    await submitRun(restate.ingress, "late-1", { prompt: "deploy late" }, { service: "hurried" });
    const result = await attachRun(restate.ingress, "late-1", { service: "hurried" });
    expect(result.status).toBe("done");
    expect(result.text).toMatch(/^declined\/expired: Where does late go\?/);
  });

  it("OpenTelemetry: spans for the model and tool calls of a run under Restate", async () => {
    await submitRun(restate.ingress, "otel-1", { prompt: "deploy seen" }, { service: "traced" });
    const waiting = await question(restate.ingress, "traced", "otel-1");
    await answerRun(
      restate.ingress,
      "otel-1",
      { id: waiting.request.id, ok: true, data: { env: "eu" } },
      { service: "traced" },
    );
    const result = await attachRun(restate.ingress, "otel-1", { service: "traced" });
    expect(result.text).toBe("deployed seen to eu");
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names.filter((n) => n.startsWith("chat "))).toHaveLength(2);
    expect(names.filter((n) => n === "execute_tool deploy")).toHaveLength(2);
    expect(names.filter((n) => n.startsWith("invoke_agent")).length).toBeGreaterThanOrEqual(2);
  });
});
