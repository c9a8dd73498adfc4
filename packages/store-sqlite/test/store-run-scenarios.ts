// The engines' scenarios (packages/restate, packages/dbos) on a run store used as the run's
// durability backend, `client.run(prompt, { runId, durability: store })`: halt, an answer
// recorded by another process, continue in the same call; sibling answers, two at once; two
// answers to one request at once; a sub-agent's escalated question; a second call with the same
// run id continuing the stored run; a deadline that passes. Run by the SQLite and the PostgreSQL
// stores' tests on a real file and a real server.
import { agentTool, createClient, RunCancelledError, type RunResult } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import {
  type Answer,
  type AnswerReceipt,
  type ModelRequest,
  pending,
  type RunStore,
  type Tool,
} from "@toolnexus/core";
import { describe, expect, it } from "vitest";

/** What a store's test gives the scenarios. */
export interface ScenarioStore {
  /** The store under test; each scenario uses run ids of its own. */
  store: RunStore;
  /** Records `answer` from another process (a child Node process opening the same store). */
  answerElsewhere(answer: Answer): Promise<AnswerReceipt>;
}

interface Execution {
  runId: string;
  answered: boolean;
  attempt: number;
}

/** `deploy {app}`: asks where, then deploys there; every execution logged. */
function deployTool(executions: Execution[]): Tool {
  return {
    name: "deploy",
    description: "Deploys, asking where",
    inputSchema: { type: "object", properties: { app: { type: "string" } }, required: ["app"] },
    source: "native",
    execute: async (args, ctx) => {
      // The loop always passes a context.
      const { runId, answer, attempt } = ctx!;
      executions.push({ runId: runId!, answered: answer !== undefined, attempt: attempt! });
      const app = String(args.app);
      if (answer === undefined) return pending({ kind: "input", prompt: `Where does ${app} go?` });
      return { output: `deployed ${app} to ${String(answer.data?.env)}`, isError: false };
    },
  };
}

/**
 * Turn 1 calls `tool` once per word of the prompt ("a b": two calls), with `{ app: word }` (or
 * `{ prompt: word }` for an agent tool); turn 2 joins what the tools said.
 */
function deployModel(tool = "deploy", arg = "app") {
  return scriptedModel(
    Array.from({ length: 100 }, () => (request: ModelRequest) => {
      const said = request.messages.filter((m) => m.role === "tool");
      if (said.length > 0) return { content: said.map((m) => m.content).join("; ") };
      const user = request.messages.findLast((m) => m.role === "user")!;
      return {
        toolCalls: user.content
          .split(" ")
          .map((word, i) => ({ id: `c${i}`, name: tool, arguments: { [arg]: word } })),
      };
    }),
  );
}

/** The store's requests of `runId` that wait for an answer, once there are `count`. */
async function questions(store: RunStore, runId: string, count: number) {
  for (;;) {
    const info = await store.getRun(runId);
    const waiting = info?.requests.filter((r) => r.state === "waiting") ?? [];
    if (waiting.length >= count) return waiting.map((r) => r.request);
    // Polled: the run waits in this process, in the same call that asked.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function storeRunScenarios(name: string, open: () => ScenarioStore): void {
  describe(`${name} as the run's durability backend (client.run with durability: store)`, () => {
    const executions: Execution[] = [];
    const client = () => {
      const { store } = open();
      return createClient({ model: deployModel(), tools: [deployTool(executions)], runs: store });
    };
    const mine = (runId: string) => executions.filter((e) => e.runId === runId);
    const prefix = `${name.replace(/\W/g, "")}-${Date.now()}`;

    it("halts, takes an answer recorded by another process, and continues in the same call", async () => {
      const { store, answerElsewhere } = open();
      const runId = `${prefix}-one`;
      const running = client().run("api", { runId, durability: store });
      const [request] = await questions(store, runId, 1);
      expect(request!.prompt).toBe("Where does api go?");
      const receipt = await answerElsewhere({ id: request!.id, ok: true, data: { env: "prod" } });
      expect(receipt).toMatchObject({ runId, requestId: request!.id, duplicate: false });
      const result = await running;
      expect(result.status).toBe("done");
      expect(result.text).toBe("deployed api to prod");
      expect(mine(runId).map((e) => [e.answered, e.attempt])).toEqual([
        [false, 1],
        [true, 1],
      ]);
      expect((await store.getRun(runId))?.state).toBe("done");
    });

    it("sibling questions answered at once: both applied, each tool run once with its answer", async () => {
      const { store, answerElsewhere } = open();
      const runId = `${prefix}-two`;
      const running = client().run("a b", { runId, durability: store });
      const requests = await questions(store, runId, 2);
      await Promise.all(
        requests.map((request, i) =>
          answerElsewhere({ id: request.id, ok: true, data: { env: `env${i}` } }),
        ),
      );
      const result = await running;
      expect(result.text).toBe("deployed a to env0; deployed b to env1");
      expect(mine(runId).filter((e) => e.answered)).toHaveLength(2);
      expect(mine(runId).filter((e) => !e.answered)).toHaveLength(2);
    });

    it("two different answers to one request at once: one is applied, the other refused", async () => {
      const { store, answerElsewhere } = open();
      const runId = `${prefix}-race`;
      const running = client().run("web", { runId, durability: store });
      const [request] = await questions(store, runId, 1);
      const given = await Promise.allSettled([
        answerElsewhere({ id: request!.id, ok: true, data: { env: "x" } }),
        answerElsewhere({ id: request!.id, ok: true, data: { env: "y" } }),
      ]);
      expect(given.filter((g) => g.status === "fulfilled")).toHaveLength(1);
      const result = await running;
      expect(result.text).toMatch(/^deployed web to [xy]$/);
      expect(mine(runId).filter((e) => e.answered)).toHaveLength(1);
    });

    it("a second call with the run's id continues the stored run; no step runs again", async () => {
      const { store, answerElsewhere } = open();
      const runId = `${prefix}-again`;
      // The first caller stops waiting (its process goes away); the run stays in the store.
      const stop = new AbortController();
      const first = client().run("db", { runId, durability: store, signal: stop.signal });
      const [request] = await questions(store, runId, 1);
      const reason = new Error("the caller went away");
      stop.abort(reason);
      // Rejected as every cancelled run is, with the transcript so far and the abort's reason.
      const cancelled = await first.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(cancelled).toBeInstanceOf(RunCancelledError);
      expect((cancelled as RunCancelledError).cause).toBe(reason);
      expect((cancelled as RunCancelledError).messages.length).toBeGreaterThan(0);
      expect((await store.getRun(runId))?.state).toBe("waiting");
      await answerElsewhere({ id: request!.id, ok: true, data: { env: "eu" } });
      // Another caller (a fresh client) with the same id: the prompt is the run's, not new.
      const result = await client().run("ignored", { runId, durability: store });
      expect(result.text).toBe("deployed db to eu");
      expect(mine(runId).map((e) => e.answered)).toEqual([false, true]);
      // Called once more when it is done: the stored result, nothing runs.
      const again: RunResult = await client().run("db", { runId, durability: store });
      expect(again.text).toBe("deployed db to eu");
      expect(mine(runId)).toHaveLength(2);
    });

    it("a sub-agent's escalated question waits on the store and continues the child", async () => {
      const { store, answerElsewhere } = open();
      const runId = `${prefix}-sub`;
      const child = createClient({
        model: deployModel(),
        tools: [deployTool(executions)],
        runs: store,
        agent: "ops",
      });
      const lead = createClient({
        model: deployModel("ops", "prompt"),
        tools: [agentTool(child, { name: "ops", description: "Operations" })],
        runs: store,
      });
      const running = lead.run("web", { runId, durability: store });
      const [request] = await questions(store, runId, 1);
      expect(request!.route).toEqual({ agent: "ops", path: ["ops"] });
      await answerElsewhere({ id: request!.id, ok: true, data: { env: "prod" } });
      const result = await running;
      expect(result.status).toBe("done");
      expect(result.text).toBe("deployed web to prod");
    });

    it("a question nobody answers expires at its deadline: the tool reads declined/expired", async () => {
      const { store } = open();
      const runId = `${prefix}-late`;
      const hurried = createClient({
        model: deployModel(),
        tools: [deployTool(executions)],
        runs: store,
        waitTimeoutMs: 200,
      });
      const result = await hurried.run("late", { runId, durability: store });
      expect(result.status).toBe("done");
      expect(result.text).toMatch(/^declined\/expired: Where does late go\?/);
      // The expiry is the answer: the call was not run again for it.
      expect(mine(runId).map((e) => e.answered)).toEqual([false]);
    });
  });
}
