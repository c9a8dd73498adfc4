// A real crash: a process running a traced sub-agent tree is SIGKILLed in the middle of the
// grandchild's tool call; this process continues the root from the SQLite files it left. The
// reattached children's invoke_agent spans must end as the children do, not with ERROR
// `run_exists`. See fixtures/takeover.mjs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SpanStatusCode } from "@opentelemetry/api";
import { agentTool, createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { ModelRequest } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelInstrumentation } from "./index.js";
import { exporter, finished, idOf, installTracing, parentOf, spanNamed } from "./test-sdk.js";

beforeAll(installTracing);
beforeEach(() => exporter.reset());

const dir = mkdtempSync(join(tmpdir(), "toolnexus-otel-takeover-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the fixture; resolves once its grandchild's tool is running, with the process. */
function startFirstProcess() {
  const script = fileURLToPath(new URL("./fixtures/takeover.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, dir], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<string>((resolve) => {
    child.on("exit", (code, signal) => resolve(signal ?? String(code)));
  });
  const reached = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.includes('"reached":true')) resolve();
    });
    void exited.then((how) => reject(new Error(`the fixture exited (${how})\n${errors}`)));
  });
  return { child, reached, exited };
}

function level(
  who: string,
  call: { id: string; name: string; arguments: Record<string, unknown> },
) {
  const turn = (request: ModelRequest) => {
    const last = request.messages.at(-1);
    return last?.role === "tool" ? { content: `${who}: ${last.content}` } : { toolCalls: [call] };
  };
  return scriptedModel(
    Array.from({ length: 10 }, () => turn),
    { id: `test:${who}` },
  );
}

describe("continueRun after a SIGKILL", () => {
  it("the reattached children's invoke_agent spans end OK, nested under this process's calls", async () => {
    const first = startFirstProcess();
    await first.reached;
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    const attempts: number[] = [];
    const lookup = nativeTool({
      name: "lookup",
      description: "looks up",
      ctx: true,
      run: (_args, ctx) => {
        attempts.push(ctx.attempt ?? 0);
        return "otters";
      },
    });
    const instrumentation = otelInstrumentation();
    const common = (agent: string) => ({
      agent,
      instrumentation,
      runs: sqliteStore({ path: join(dir, `${agent}.db`) }),
    });
    const searcher = createClient({
      model: level("searcher", { id: "g1", name: "lookup", arguments: { q: "otters" } }),
      tools: [lookup],
      ...common("searcher"),
    });
    const researcher = createClient({
      model: level("researcher", { id: "c1", name: "search", arguments: { prompt: "otters" } }),
      tools: [agentTool(searcher, { name: "search", description: "searches" })],
      ...common("researcher"),
    });
    const lead = createClient({
      model: level("lead", { id: "r1", name: "research", arguments: { prompt: "otters" } }),
      tools: [agentTool(researcher, { name: "research", description: "researches" })],
      ...common("lead"),
    });
    // Waits for the dead process's leases to run out, then takes every level over.
    const done = await lead.continueRun("root-1");
    expect(done.status).toBe("done");
    expect(done.text).toBe("lead: researcher: searcher: otters");
    // The dead process's call was in flight: this is its second attempt.
    expect(attempts).toEqual([2]);

    const spans = finished();
    expect(
      spans
        .filter((span) => span.status.code === SpanStatusCode.ERROR)
        .map((span) => [span.name, span.attributes["error.type"]]),
    ).toEqual([]);
    for (const agent of ["lead", "researcher", "searcher"]) {
      const span = spanNamed(`invoke_agent ${agent}`, spans);
      expect(span.attributes).toMatchObject({
        "toolnexus.run.kind": "continue",
        "toolnexus.run.status": "done",
      });
      // Linked to the span the dead process had open for the same run.
      expect(span.links).toHaveLength(1);
    }
    expect(parentOf(spanNamed("invoke_agent researcher", spans))).toBe(
      idOf(spanNamed("execute_tool research", spans)),
    );
    expect(parentOf(spanNamed("invoke_agent searcher", spans))).toBe(
      idOf(spanNamed("execute_tool search", spans)),
    );
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  }, 60_000);
});
