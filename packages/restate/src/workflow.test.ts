// A toolnexus run on a real restate-server: the agent served by the SDK in this process, started
// and answered through Restate's ingress (an answer from another process goes the same way).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import {
  MAX_DURABLE_ANSWER_CHARS,
  MAX_STORE_ID_CHARS,
  pending,
  type ToolContext,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { answerRun, attachRun, submitRun, waitingRequests } from "./ingress.js";
import { type RestateServer, serveServices, startRestate, until } from "./test-support.js";
import { toolnexusWorkflow } from "./workflow.js";

const run = promisify(execFile);

/** Every execution of the tools, in order, with what they saw. */
const executions: { tool: string; runId: string; answered: boolean; ctx: ToolContext }[] = [];

const deploy = nativeTool({
  name: "deploy",
  description: "Deploys, asking where",
  input: z.object({ app: z.string() }),
  ctx: true,
  run: ({ app }, ctx: ToolContext) => {
    executions.push({
      tool: "deploy",
      runId: ctx.runId ?? "",
      answered: ctx.answer !== undefined,
      ctx,
    });
    if (ctx.answer === undefined)
      return pending({ kind: "input", prompt: `Where does ${app} go?` });
    if (!ctx.answer.ok) return { output: `not deployed (${ctx.answer.reason})`, isError: true };
    return `deployed ${app} to ${String(ctx.answer.data?.env)}`;
  },
});

/** A question whose id the caller knows in advance, so it can be answered before it is asked. */
const confirm = nativeTool({
  name: "confirm",
  description: "Confirms with a known request id",
  ctx: true,
  run: (_args, ctx: ToolContext) => {
    executions.push({
      tool: "confirm",
      runId: ctx.runId ?? "",
      answered: ctx.answer !== undefined,
      ctx,
    });
    if (ctx.answer === undefined)
      return pending({ id: `confirm-${ctx.runId}`, kind: "approval", prompt: "Confirm?" });
    return ctx.answer.ok ? "confirmed" : "refused";
  },
});

// `meet`: each side logs its start and waits for the other side's start, so the two calls of a
// "meet" turn can only both finish when their steps run at the same time.
const meetings: string[] = [];
const started = new Map<string, { promise: Promise<void>; resolve(): void }>();
function startOf(runId: string, side: string) {
  const key = `${runId}/${side}`;
  let got = started.get(key);
  if (got === undefined) {
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    got = { promise, resolve };
    started.set(key, got);
  }
  return got;
}
const meet = nativeTool({
  name: "meet",
  description: "Waits for the other side to start",
  input: z.object({ side: z.string(), other: z.string() }),
  ctx: true,
  run: async ({ side, other }, ctx: ToolContext) => {
    const runId = ctx.runId ?? "";
    meetings.push(`${runId} start ${side}`);
    startOf(runId, side).resolve();
    // Without the other side (steps one at a time) the call's own timeout ends the wait.
    const aborted = new Promise<void>((resolve) =>
      ctx.signal?.addEventListener("abort", () => resolve(), { once: true }),
    );
    await Promise.race([startOf(runId, other).promise, aborted]);
    meetings.push(`${runId} end ${side}`);
    return ctx.signal?.aborted ? `${side} alone` : `${side} met ${other}`;
  },
});

/** The script of every run: its prompt says which turns it plays. */
function agentModel() {
  return scriptedModel(
    Array.from({ length: 200 }, () => (request) => {
      const prompt = String(request.messages.find((m) => m.role === "user")?.content ?? "");
      const tools = request.messages.filter((m) => m.role === "tool");
      if (tools.length === 0) {
        if (prompt === "two") {
          return {
            toolCalls: [
              { name: "deploy", arguments: { app: "a" } },
              { name: "deploy", arguments: { app: "b" } },
            ],
          };
        }
        if (prompt === "confirm") return { toolCalls: [{ name: "confirm", arguments: {} }] };
        if (prompt === "meet") {
          return {
            toolCalls: [
              { name: "meet", arguments: { side: "a", other: "b" } },
              { name: "meet", arguments: { side: "b", other: "a" } },
            ],
          };
        }
        return { toolCalls: [{ name: "deploy", arguments: { app: prompt } }] };
      }
      return { content: tools.map((m) => m.content).join("; ") };
    }),
  );
}

describe("a toolnexus run as a Restate workflow", () => {
  let restate: RestateServer;
  let service: { uri: string; close(): Promise<void> };
  const client = createClient({
    model: agentModel(),
    tools: [deploy, confirm, meet],
    waitTimeoutMs: 3_600_000,
    toolTimeoutMs: 10_000,
  });

  beforeAll(async () => {
    restate = await startRestate();
    service = await serveServices([toolnexusWorkflow({ client })]);
    await restate.register(service.uri);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await restate?.stop();
  });

  it("halts on a question, is answered from another process through the ingress, and continues", async () => {
    await submitRun(restate.ingress, "run-1", { prompt: "api" });
    const [waiting] = await until("the question", async () => {
      const requests = await waitingRequests(restate.ingress, "run-1");
      return requests.length > 0 ? requests : undefined;
    });
    expect(waiting!.request.prompt).toBe("Where does api go?");
    expect(waiting!.deadline).toBeDefined();
    // Another process answers: plain Node, through the ingress URL.
    const answer = { id: waiting!.request.id, ok: true, data: { env: "prod" } };
    const { stdout } = await run(process.execPath, [
      "-e",
      `fetch(process.argv[1] + "/toolnexus/run-1/answer", { method: "POST", headers: { "content-type": "application/json" }, body: process.argv[2] }).then(async (r) => console.log(r.status, await r.text()))`,
      restate.ingress,
      JSON.stringify(answer),
    ]);
    expect(stdout).toContain("200");
    expect(JSON.parse(stdout.slice(4))).toEqual({ requestId: waiting!.request.id, recorded: true });
    const result = await attachRun(restate.ingress, "run-1");
    expect(result.status).toBe("done");
    expect(result.text).toBe("deployed api to prod");
    expect(result.runId).toBe("run-1");
    const mine = executions.filter((e) => e.runId === "run-1");
    // Each execution ran once: the first without, the second with the answer.
    expect(mine.map((e) => e.answered)).toEqual([false, true]);
    expect(mine.map((e) => e.ctx.attempt)).toEqual([1, 1]);
    expect(mine[0]!.ctx.callId).toBeDefined();
    expect(mine[0]!.ctx.signal).toBeInstanceOf(AbortSignal);
    expect(await waitingRequests(restate.ingress, "run-1")).toEqual([]);
    // A second answer to the same request is not recorded: the first is kept.
    const again = await answerRun(restate.ingress, "run-1", { ...answer, data: { env: "dev" } });
    expect(again).toEqual({ requestId: waiting!.request.id, recorded: false });
  });

  it("sibling questions: both asked at once, answered together, each applied", async () => {
    await submitRun(restate.ingress, "run-2", { prompt: "two" });
    const requests = await until("both questions", async () => {
      const got = await waitingRequests(restate.ingress, "run-2");
      return got.length === 2 ? got : undefined;
    });
    // Two answers at once.
    const receipts = await Promise.all(
      requests.map(({ request }, i) =>
        answerRun(restate.ingress, "run-2", { id: request.id, ok: true, data: { env: `env${i}` } }),
      ),
    );
    expect(receipts.every((r) => r.recorded)).toBe(true);
    const result = await attachRun(restate.ingress, "run-2");
    expect(result.status).toBe("done");
    expect(result.text).toBe("deployed a to env0; deployed b to env1");
    const mine = executions.filter((e) => e.runId === "run-2");
    expect(mine.filter((e) => e.answered)).toHaveLength(2);
    expect(mine.filter((e) => !e.answered)).toHaveLength(2);
  });

  it("runs the tool steps of one turn at the same time: each call sees the other start", async () => {
    await submitRun(restate.ingress, "run-meet", { prompt: "meet" });
    const result = await attachRun(restate.ingress, "run-meet");
    expect(result.status).toBe("done");
    expect(result.text).toBe("a met b; b met a");
    // Both started before either ended.
    const mine = meetings.filter((line) => line.startsWith("run-meet "));
    expect(mine.slice(0, 2).sort()).toEqual(["run-meet start a", "run-meet start b"]);
    expect(mine).toHaveLength(4);
  });

  it("keeps an answer recorded before the run reaches its question", async () => {
    const receipt = await answerRun(restate.ingress, "run-3", { id: "confirm-run-3", ok: true });
    expect(receipt.recorded).toBe(true);
    await submitRun(restate.ingress, "run-3", { prompt: "confirm" });
    const result = await attachRun(restate.ingress, "run-3");
    expect(result.status).toBe("done");
    expect(result.text).toBe("confirmed");
  });

  it("refuses a malformed answer with a clear error, before and at the ingress", async () => {
    await expect(answerRun(restate.ingress, "run-1", { id: "", ok: true })).rejects.toThrow(/id/);
    const response = await fetch(`${restate.ingress}/toolnexus/run-1/answer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ok: "yes" }),
    });
    expect(response.status).toBe(400);
    // An answer past the cap is refused before it is sent, and by the handler too.
    const huge = { id: "pnd_huge", ok: true, data: { text: "x".repeat(MAX_DURABLE_ANSWER_CHARS) } };
    await expect(answerRun(restate.ingress, "run-1", huge)).rejects.toMatchObject({
      code: "answer_too_large",
    });
    const tooLarge = await fetch(`${restate.ingress}/toolnexus/run-1/answer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(huge),
    });
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.text()).toMatch(/at most \d+ are recorded/);
  });

  /**
   * Restate's invocations of the workflow keyed `key`, from its admin API's SQL (retried while a
   * fresh server's partitions are not yet ready to answer it).
   */
  function invocationsOf(key: string): Promise<{ status: string; result?: string }[]> {
    return until("the admin query", async () => {
      const response = await fetch(`${restate.admin}/query`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          query: `SELECT status, completion_result AS result FROM sys_invocation WHERE target_service_key = '${key}'`,
        }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return ((await response.json()) as { rows: { status: string; result?: string }[] }).rows;
    });
  }

  it("refuses ids no run store keeps: before sending them, and in the handlers (terminal, no retries)", async () => {
    const long = "r".repeat(2000);
    await expect(submitRun(restate.ingress, long, { prompt: "api" })).rejects.toMatchObject({
      name: "InvalidIdError",
      code: "invalid_id",
    });
    // Nothing reached Restate.
    expect(await invocationsOf(long)).toEqual([]);
    // Straight through the ingress: the run handler fails the workflow for good (400), where the
    // run's first checkpoint used to fail and Restate retried the invocation forever.
    const sent = await fetch(`${restate.ingress}/toolnexus/${long}/run/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "api" }),
    });
    expect(sent.ok).toBe(true);
    const attached = await fetch(`${restate.ingress}/restate/workflow/toolnexus/${long}/attach`);
    expect(attached.status).toBe(400);
    expect(await attached.text()).toContain("runId cannot be stored: it is 2000 characters long");
    // Ended, failed, for good: not backing off to be retried.
    const ended = await until("the invocation's end in the admin API", async () => {
      const rows = await invocationsOf(long);
      return rows[0]?.status === "completed" ? rows : undefined;
    });
    expect(ended).toEqual([{ status: "completed", result: "failure" }]);
    // A session id likewise.
    const session = "s".repeat(MAX_STORE_ID_CHARS + 1);
    await expect(
      submitRun(restate.ingress, "run-session", { prompt: "api", sessionId: session }),
    ).rejects.toMatchObject({ code: "invalid_id" });
    expect(await invocationsOf("run-session")).toEqual([]);
    await fetch(`${restate.ingress}/toolnexus/run-session/run/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "api", sessionId: session }),
    });
    const failed = await fetch(`${restate.ingress}/restate/workflow/toolnexus/run-session/attach`);
    expect(failed.status).toBe(400);
    expect(await failed.text()).toContain("sessionId cannot be stored");
    // An answer id: refused by answerRun, and by the answer handler.
    const answerId = "i".repeat(MAX_STORE_ID_CHARS + 1);
    await expect(
      answerRun(restate.ingress, "run-1", { id: answerId, ok: true }),
    ).rejects.toMatchObject({ code: "invalid_id" });
    const answered = await fetch(`${restate.ingress}/toolnexus/run-1/answer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: answerId, ok: true }),
    });
    expect(answered.status).toBe(400);
    expect(await answered.text()).toContain("answer.id cannot be stored");
  });
});
