// A toolnexus run as a DBOS workflow in this process, on a real PostgreSQL system database: it
// halts on recv, the answer goes in with send, and it continues to its end in the same call.
import { randomBytes } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createClient, inProcessModel } from "@toolnexus/client";
import { MAX_STORE_ID_CHARS, type Message, pending, type Tool } from "@toolnexus/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, launchDbos, waitingFor } from "../test/dbos.js";
import {
  answer,
  type DbosMessenger,
  dbosDurability,
  listWaiting,
  MAX_ANSWER_CHARS,
  registerAgent,
  waitingRequests,
} from "./index.js";

const attempts: Record<string, number[]> = {};

/** Asks once per call (its request id the tool's: `<runId>/<callId>`), then applies the answer. */
const approve: Tool = {
  name: "approve",
  description: "Applies a token a human gives",
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  async execute(_args, ctx) {
    const key = `${ctx?.runId}/${ctx?.callId}`;
    attempts[key] = [...(attempts[key] ?? []), ctx?.attempt ?? 0];
    if (ctx?.answer === undefined) {
      return pending({
        id: key,
        kind: "input",
        prompt: "Which token?",
        data: { schema: { type: "object", properties: { token: { type: "string" } } } },
        ...(ctx?.extra?.expiresAt === undefined ? {} : { expiresAt: String(ctx.extra.expiresAt) }),
      });
    }
    return { output: `applied ${ctx.answer.data?.token} in ${ctx.sessionId}`, isError: false };
  },
};

/** Asks for `approve` as many times as the prompt says (`ask 2`: two calls in one turn). */
const model = inProcessModel({
  id: "asker",
  generate({ messages }) {
    const results = messages.filter((m: Message) => m.role === "tool");
    if (results.length > 0) return { content: results.map((m) => m.content).join(" | ") };
    const prompt = String(messages.find((m: Message) => m.role === "user")?.content);
    const count = Number(prompt.split(" ")[1] ?? 1);
    return {
      toolCalls: Array.from({ length: count }, (_, i) => ({ id: `c${i + 1}`, name: "approve" })),
    };
  },
});

const agent = registerAgent({
  name: "asker",
  client: createClient({ model, tools: [approve] }),
});

// A tool that runs until its signal aborts (the cancel test), and what it saw.
const aborted: unknown[] = [];
let hanging: () => void = () => {};
const hangs = new Promise<void>((resolve) => {
  hanging = resolve;
});
const hanger = registerAgent({
  name: "hanger",
  client: createClient({
    model: inProcessModel({ id: "hanger", generate: () => ({ toolCalls: [{ name: "hang" }] }) }),
    tools: [
      {
        name: "hang",
        description: "Runs until cancelled",
        inputSchema: { type: "object", properties: {} },
        source: "custom",
        execute: (_args, ctx) =>
          new Promise((resolve) => {
            hanging();
            ctx?.signal?.addEventListener("abort", () => {
              aborted.push(ctx.signal?.reason);
              resolve({ output: "stopped", isError: true });
            });
          }),
      },
    ],
  }),
});

let url: string;
beforeAll(async () => {
  url = freshDatabase("agent");
  await launchDbos(url);
}, 120_000);
afterAll(() => DBOS.shutdown());

describe("a run as a DBOS workflow", () => {
  it("halts on its question, takes the answer through send and finishes in the same workflow", async () => {
    await agent.start("ask", { runId: "one", sessionId: "ada" });
    const [awaited] = await waitingFor(DBOS, "one", 1);
    expect(awaited?.request).toMatchObject({ id: "one/c1", kind: "input", prompt: "Which token?" });
    expect(await listWaiting(DBOS, agent.workflowName)).toEqual([
      { runId: "one", requests: [awaited] },
    ]);
    const receipt = await answer(DBOS, "one", { id: "one/c1", ok: true, data: { token: "t1" } });
    expect(receipt).toEqual({ runId: "one", requestId: "one/c1", waiting: true });
    const result = await agent.result("one");
    expect(result.status).toBe("done");
    expect(result.text).toBe("applied t1 in ada");
    // First execution and the one with the answer: each attempt 1 (nothing crashed).
    expect(attempts["one/c1"]).toEqual([1, 1]);
    expect(await waitingRequests(DBOS, "one")).toEqual([]);
  });

  it("keeps an answer sent before the run reaches its question", async () => {
    const { runId } = await agent.start("ask", { runId: "early", queue: null });
    // The workflow exists from start on; its question comes later.
    const receipt = await answer(DBOS, runId, { id: "early/c1", ok: true, data: { token: "e" } });
    expect(receipt.requestId).toBe("early/c1");
    const result = await agent.result(runId);
    expect(result.text).toBe("applied e in undefined");
  });

  it("takes sibling answers in any order, and two answers at once to them both", async () => {
    await agent.start("ask 3", { runId: "siblings" });
    await waitingFor(DBOS, "siblings", 3);
    await answer(DBOS, "siblings", { id: "siblings/c3", ok: true, data: { token: "z" } });
    await Promise.all([
      answer(DBOS, "siblings", { id: "siblings/c1", ok: true, data: { token: "x" } }),
      answer(DBOS, "siblings", { id: "siblings/c2", ok: false, reason: "declined" }),
    ]);
    const result = await agent.result("siblings");
    expect(result.text).toBe(
      "applied x in undefined | declined/expired: Which token? | applied z in undefined",
    );
  });

  it("applies the first of two answers to one request sent at once, and drops the other", async () => {
    await agent.start("ask", { runId: "race" });
    await waitingFor(DBOS, "race", 1);
    await Promise.all(
      ["a", "b", "c"].map((token) =>
        answer(DBOS, "race", { id: "race/c1", ok: true, data: { token } }),
      ),
    );
    const result = await agent.result("race");
    expect(result.text).toMatch(/^applied [abc] in undefined$/);
    expect(result.toolCalls).toHaveLength(1);
  });

  it('answers a request past its expiresAt { ok: false, reason: "expired" } itself', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const result = await agent.run("ask", { runId: "expiring", extra: { expiresAt } });
    // The loop feeds a declined or expired answer back without running the tool again.
    expect(result.text).toBe("declined/expired: Which token?");
    expect(attempts["expiring/c1"]).toEqual([1]);
  });

  it("checks an answer against the request it answers with `check`, and caps its size", async () => {
    await agent.start("ask", { runId: "checked" });
    await waitingFor(DBOS, "checked");
    const check = (request: { data?: Record<string, unknown> }, given: { data?: unknown }) => {
      const token = (given.data as { token?: unknown } | undefined)?.token;
      if (request.data?.schema !== undefined && typeof token !== "string") {
        throw new TypeError("token must be a string");
      }
    };
    await expect(
      answer(DBOS, "checked", { id: "checked/c1", ok: true, data: { token: 7 } }, { check }),
    ).rejects.toThrow("token must be a string");
    await expect(
      answer(DBOS, "checked", {
        id: "checked/c1",
        ok: true,
        data: { token: "x".repeat(MAX_ANSWER_CHARS) },
      }),
    ).rejects.toMatchObject({ code: "answer_too_large" });
    await answer(DBOS, "checked", { id: "checked/c1", ok: true, data: { token: "ok" } }, { check });
    expect((await agent.result("checked", { pollingIntervalMs: 50 })).text).toBe(
      "applied ok in undefined",
    );
  });

  it("aborts the tool in flight through ctx.signal when DBOS cancels the run", async () => {
    const run = await hanger.start("hang", { runId: "cancelled" });
    await hangs;
    await DBOS.cancelWorkflow("cancelled");
    await expect(run.result()).rejects.toThrow();
    expect(aborted).toHaveLength(1);
    expect((await DBOS.getWorkflowStatus("cancelled"))?.status).toBe("CANCELLED");
  });

  it("makes a Durability only inside a workflow", () => {
    expect(() => dbosDurability()).toThrow(/inside a DBOS workflow/);
  });

  it("refuses what is not an answer, and a run that does not exist", async () => {
    await expect(answer(DBOS, "one", { id: "", ok: true } as never)).rejects.toThrow();
    await expect(answer(DBOS, "no-such-run", { id: "x", ok: true })).rejects.toMatchObject({
      code: "run_not_found",
    });
  });

  it("refuses ids no store keeps, or too large for DBOS's indexes, before anything is written or sent", async () => {
    const workflows = async () => (await DBOS.listWorkflows({})).length;
    const before = await workflows();
    // What reaches DBOS through the messenger.
    let reached = 0;
    const counted: DbosMessenger = {
      send: (...args) => {
        reached++;
        return DBOS.send(...args);
      },
      getEvent: (...args) => {
        reached++;
        return DBOS.getEvent(...args);
      },
    };
    const tooLong = "s".repeat(MAX_STORE_ID_CHARS + 1);
    // Random text does not compress: 5,000 characters overflowed the primary key's index.
    const random = randomBytes(2500).toString("hex");
    // 1,024 characters (within core's limit) of three bytes each: 3,072 bytes, past the index's.
    const wide = "\u4e16".repeat(MAX_STORE_ID_CHARS);
    const refused: [string, () => Promise<unknown>][] = [
      ["start: a random 5,000-character run id", () => agent.start("ask", { runId: random })],
      ["start: a NUL in the run id", () => agent.start("ask", { runId: "a\u0000b" })],
      ["start: 3,072 bytes of run id", () => agent.start("ask", { runId: wide })],
      ["start: a long session id", () => agent.start("ask", { runId: "s1", sessionId: tooLong })],
      ["run", () => agent.run("ask", { runId: "a\ud800" })],
      ["result", () => agent.result("a\u0000b")],
      [
        "answer: a NUL in the answer id",
        () => answer(counted, "one", { id: "a\u0000b", ok: true }),
      ],
      [
        "answer: a random 100,000-character answer id",
        () => answer(counted, "one", { id: randomBytes(50_000).toString("hex"), ok: true }),
      ],
      ["answer: 3,072 bytes of answer id", () => answer(counted, "one", { id: wide, ok: true })],
      ["answer: a NUL in the run id", () => answer(counted, "a\u0000b", { id: "x", ok: true })],
      ["waitingRequests", () => waitingRequests(counted, random)],
      [
        "listWaiting",
        () =>
          listWaiting(
            {
              ...counted,
              listWorkflows: (input) => {
                reached++;
                return DBOS.listWorkflows(input);
              },
            },
            "a\u0000",
          ),
      ],
    ];
    for (const [name, call] of refused) {
      const error = await call().then(
        () => new Error("resolved"),
        (thrown: unknown) => thrown as Error & { code?: string },
      );
      expect({ name, code: (error as { code?: string }).code, type: error.name }).toEqual({
        name,
        code: "invalid_id",
        type: "InvalidIdError",
      });
    }
    expect(reached).toBe(0);
    expect(await workflows()).toBe(before);
    expect(() => registerAgent({ name: "a\u0000b", client: createClient({ model }) })).toThrow(
      expect.objectContaining({ code: "invalid_id" }),
    );
    // At the limits: a run id, and its request's id (`<runId>/c1`), of up to 1,024 ASCII
    // characters are kept and answered.
    const runId = "r".repeat(MAX_STORE_ID_CHARS - 3);
    await agent.start("ask", { runId });
    const [awaited] = await waitingFor(DBOS, runId);
    const requestId = awaited!.request.id;
    expect(requestId).toHaveLength(MAX_STORE_ID_CHARS);
    const longAnswer = "q".repeat(MAX_STORE_ID_CHARS);
    expect(await answer(DBOS, runId, { id: longAnswer, ok: true })).toMatchObject({
      waiting: false,
    });
    await answer(DBOS, runId, { id: requestId, ok: true, data: { token: "edge" } });
    expect((await agent.result(runId, { pollingIntervalMs: 50 })).text).toBe(
      "applied edge in undefined",
    );
  });
});
