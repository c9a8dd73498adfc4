// A 2026-07-28 server (the official v2 server package, src/fixtures/mrtr-server.mjs) whose tools
// ask with `input_required`: halted durably into SQLite, resumed in a fresh process.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createClient, type Instrumentation, type RunTrace } from "@toolnexus/client";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset } from "./index.js";
import { MRTR_SERVER, script } from "./test-support.js";

const run = promisify(execFile);
const CHILD = join(import.meta.dirname, "fixtures", "resume-child.ts");
const STATE = '{"service":"api","nonce":"n-\u00e9\u{1F680}-42","round":1}';

async function resumeInChild(db: string, answer: unknown) {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", CHILD, db, JSON.stringify(answer)],
    { cwd: join(import.meta.dirname, ".."), timeout: 60_000 },
  );
  return JSON.parse(stdout) as {
    status: string;
    text: string;
    pending?: { id: string; kind: string; prompt: string };
    protocol: string;
    pid: number;
  };
}

describe("a 2026-07-28 server's input_required", () => {
  let mcp: McpToolset;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-"));
    mcp = await loadMcp({
      mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("speaks the 2026-07-28 protocol", () => {
    expect(mcp.servers()[0]).toMatchObject({ status: "connected", protocol: "2026-07-28" });
  });

  it("halts durably, keeps requestState byte for byte, and resumes in a fresh process", async () => {
    const path = join(dir, "deploy.db");
    const runs = sqliteStore({ path });
    const seen: string[] = [];
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "d1", name: "ops_deploy", arguments: { service: "api" } }] },
        (last) => ({ content: `final: ${last}` }),
      ]),
      tools: mcp.tools(),
      runs,
      hooks: {
        beforeModel: (request) => {
          seen.push(JSON.stringify(request.messages));
          return undefined;
        },
      },
    });
    const halted = await client.run("deploy api");
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    expect(halted.pending).toMatchObject({
      kind: "input",
      prompt: "Which environment should api go to?",
      data: {
        server: "ops",
        schema: {
          type: "object",
          properties: { env: { type: "string", enum: ["staging", "production"] } },
        },
      },
    });
    const info = await client.getRun(halted.runId);
    const kept = info?.checkpoint?.pending[0]?.state as { requestState?: string };
    expect(kept.requestState).toBe(STATE);
    // The model never sees the server's state: not in the transcript, not in what it was sent.
    expect(JSON.stringify(info?.checkpoint?.messages)).not.toContain("nonce");
    expect(seen.join("")).not.toContain("nonce");
    runs.close();

    const child = await resumeInChild(path, {
      id: halted.pending.id,
      ok: true,
      data: { env: "staging" },
    });
    expect(child.pid).not.toBe(process.pid);
    expect(child.protocol).toBe("2026-07-28");
    expect(child.status).toBe("done");
    // The server read its own requestState back, intact, and finished the call with the answer.
    expect(child.text).toBe(`final: deployed api to staging; state ${STATE}`);
  });

  it("a second input_required suspends again; several questions form one Request keyed by the server", async () => {
    const path = join(dir, "release.db");
    const runs = sqliteStore({ path });
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "r1", name: "ops_release", arguments: {} }] },
        (last) => ({ content: `final: ${last}` }),
      ]),
      tools: mcp.tools(),
      runs,
    });
    const first = await client.run("release");
    if (first.status !== "pending") throw new Error(`expected a halt, got ${first.status}`);
    expect(first.pending.kind).toBe("input");
    expect(first.pending.prompt).toBe("Release name?\nVersion?");
    expect(first.pending.data?.requests).toMatchObject({
      name: { kind: "input", prompt: "Release name?" },
      version: { kind: "input", prompt: "Version?" },
    });
    const second = await client.resume({
      id: first.pending.id,
      ok: true,
      data: { name: { name: "Hopper" }, version: { version: "1.2" } },
    });
    if (second.status !== "pending")
      throw new Error(`expected a second halt, got ${second.status}`);
    expect(second.pending.prompt).toBe("Release Hopper 1.2?");
    expect((await client.getRun(second.runId))?.checkpoint?.pending[0]?.round).toBe(2);
    runs.close();

    const child = await resumeInChild(path, {
      id: second.pending.id,
      ok: true,
      data: { yes: true },
    });
    expect(child.status).toBe("done");
    expect(child.text).toBe('final: {"released":true,"name":"Hopper","version":"1.2"}');
  });

  it("answered in-process through the client's waitFor, declined, and bounded in rounds", async () => {
    const answers: Record<string, unknown>[] = [];
    const bounded = await loadMcp(
      { mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } } },
      { maxRounds: 3 },
    );
    try {
      const client = createClient({
        model: script([
          {
            toolCalls: [
              { id: "a", name: "ops_deploy", arguments: { service: "web" } },
              { id: "b", name: "ops_nag", arguments: {} },
              { id: "c", name: "ops_connect", arguments: {} },
            ],
          },
          { content: "ok" },
        ]),
        tools: bounded.tools(),
        waitFor: (request) => {
          answers.push({ kind: request.kind, prompt: request.prompt, url: request.url });
          if (request.kind === "authorization")
            return { id: request.id, ok: false, reason: "declined" };
          return { id: request.id, ok: true, data: { env: "production", ok: true } };
        },
      });
      const result = await client.run("go");
      const byId = (id: string) => result.toolCalls.find((call) => call.id === id);
      const [deploy, nag, connect] = [byId("a"), byId("b"), byId("c")];
      expect(deploy?.result.output).toMatch(/^deployed web to production; state /);
      // Three rounds allowed: the third question's answer brings a fourth, which is not asked.
      expect(nag?.result.output).toBe("unresolved: Question 4?");
      expect(answers.filter((a) => String(a.prompt).startsWith("Question"))).toHaveLength(3);
      expect(answers).toContainEqual({
        kind: "authorization",
        prompt: "Log in to Acme",
        url: "https://acme.example/login?x=1",
      });
      // A declined question reaches the server as a decline.
      expect(connect?.result.output).toBe("login decline");
    } finally {
      await bounded.close();
    }
  });

  it("sends the run's trace context in _meta when the instrumentation provides a carrier", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const trace: RunTrace = {
      model: (_info, call) => call(),
      tool: (_info, call) => call(),
      suspended: () => {},
      waited: () => {},
      carrier: () => ({ traceparent, "toolnexus.haltedAt": "1" }),
      end: () => {},
    };
    const instrumentation: Instrumentation = { startRun: () => trace };
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "e", name: "ops_echo", arguments: { text: "hi" } }] },
        { content: "ok" },
      ]),
      tools: mcp.tools(),
      instrumentation,
    });
    const result = await client.run("echo");
    expect(result.toolCalls[0]?.result.output).toBe(`echo hi meta "${traceparent}"`);
  });
});
