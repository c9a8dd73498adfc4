// The durable agent: the worker side of the chaos tests, for `node <script> <role> <address>
// <logDir> [options as JSON]` where <script> is a store's (or engine's) few lines that build a
// ChaosEngine and call runDurableAgent. Roles:
//   start:    {count, prefix, concurrency}  starts `count` runs `<prefix>-<i>` (each halts for an
//             answer); a restarted starter starts again from 0 (run_exists is skipped)
//   answer:   {paceMs, listLimit}  answers waiting requests in random order, forever
//   work:     {concurrency, logResults}  a worker (`client.work`), forever
//   continue: reads run ids on stdin, continues each, prints the result
//   resume:   reads Answer JSON lines on stdin, resumes each, prints the result
// Options of every role: leaseMs, pollMs, jitterMs (random delay of tools and model turns, so
// kills land at every point of a run), modelMs (fixed delay of each model turn), twoQuestions
// (the first turn asks two questions), failModel (the first n continuations' model turns fail).
// Each tool execution is logged (exec-log.ts) for the verdict (verdict.ts).
import { createInterface } from "node:readline";
import { type Client, createClient, inProcessModel } from "@toolnexus/client";
import {
  type Awaitable,
  type ConversationStore,
  type Model,
  pending,
  type RunStore,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "@toolnexus/core";
import { logWriter } from "./exec-log.js";

/** What an engine (a store, or a durable-execution engine's adapter) plugs into the agent. */
export interface ChaosEngine {
  /** The client the roles drive, made with the agent's model, tools and lease. */
  client(setup: { model: Model; tools: Tool[]; leaseMs: number }): Client;
  /** Run before any role (migrations); retried while it throws, as a database may be restarting. */
  ready?(): Promise<void>;
  close(): Awaitable<void>;
}

/** The engine of a durable store: `createClient({ runs: store, conversations: store })`. */
export function storeEngine(
  store: RunStore & ConversationStore & { close(): Awaitable<void> },
  ready?: () => Promise<void>,
): ChaosEngine {
  return {
    client: ({ model, tools, leaseMs }) =>
      createClient({ model, tools, runs: store, conversations: store, leaseMs }),
    ...(ready === undefined ? {} : { ready }),
    close: () => store.close(),
  };
}

/** The engine's defaults for options a role was not given. */
export interface AgentDefaults {
  leaseMs: number;
  pollMs: number;
  jitterMs: number;
  /** Whether `start` makes runs durable from their first turn (`run(…, { durable: true })`). */
  durable: boolean;
}

interface Options extends AgentDefaults {
  [key: string]: unknown;
  count?: number;
  prefix?: string;
  concurrency?: number;
  paceMs?: number;
  listLimit?: number;
  modelMs?: number;
  twoQuestions?: boolean;
  failModel?: number;
  logResults?: boolean;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;

/**
 * Runs one role of the durable agent in this process, with `argv` (default: the process's) as
 * `<role> <address> <logDir> [options as JSON]`; `engine` is made from the address and options.
 * Prints `{"ready": true}` once the engine is ready.
 */
export async function runDurableAgent(
  engine: (address: string, options: Record<string, unknown>) => ChaosEngine,
  defaults: AgentDefaults,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const [role, address, logDir, json] = argv;
  if (role === undefined || address === undefined || logDir === undefined) {
    throw new Error("usage: <role> <address> <logDir> [options as JSON]");
  }
  const options: Options = { ...defaults, ...(json ? JSON.parse(json) : {}) };
  const log = logWriter(logDir);
  const jitter = () =>
    options.jitterMs > 0 ? pause(2 + Math.random() * options.jitterMs) : Promise.resolve();
  const backend = engine(address, options);
  const client = backend.client({
    model: chaosModel(options, jitter),
    tools: [
      logged(log, "prepare", async (ctx) => {
        await jitter();
        return { output: `prepared#${ctx.attempt}`, isError: false };
      }),
      logged(log, "approve", async (ctx) => {
        if (ctx.answer === undefined) return pending({ kind: "input", prompt: "Which token?" });
        await jitter();
        return { output: `applied ${ctx.answer.data?.token}#${ctx.attempt}`, isError: false };
      }),
    ],
    leaseMs: options.leaseMs,
  });
  // A process started while the database restarts waits for it.
  for (let tries = 0; backend.ready !== undefined; tries++) {
    try {
      await backend.ready();
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await pause(200);
    }
  }
  console.log(JSON.stringify({ ready: true, pid: process.pid }));
  if (role === "start") await start(client, options);
  else if (role === "answer") await answer(client, options, log);
  else if (role === "work") {
    await client.work({
      signal: new AbortController().signal,
      concurrency: options.concurrency ?? 4,
      pollMs: options.pollMs,
      ...(options.logResults
        ? {
            onResult: (result) =>
              log({ continued: result.runId, status: result.status, at: now() }),
          }
        : {}),
    });
  } else if (role === "continue" || role === "resume") await serve(client, role);
  else throw new Error(`unknown role ${role}`);
  await backend.close();
}

/** Every execution is logged when it starts and when it ends, with the call's identity. */
function logged(
  log: (entry: Record<string, unknown>) => void,
  name: string,
  body: (ctx: ToolContext) => Promise<ToolResult>,
): Tool {
  return {
    name,
    description: `${name} (logged)`,
    inputSchema: { type: "object", properties: {} },
    source: "custom",
    async execute(_args, ctx) {
      const id = {
        tool: name,
        runId: ctx?.runId,
        callId: ctx?.callId,
        attempt: ctx?.attempt,
        answered: ctx?.answer !== undefined,
      };
      log({ ...id, phase: "start", at: now() });
      const result = await body(ctx ?? {});
      log({ ...id, phase: "end" });
      return result;
    },
  };
}

/** Calls `prepare` and `approve` (or `approve` twice), then finishes with what they returned. */
function chaosModel(options: Options, jitter: () => Promise<unknown>): Model {
  let failures = options.failModel ?? 0;
  return inProcessModel({
    id: "chaos-model",
    async generate({ messages }) {
      if (options.modelMs) await pause(options.modelMs);
      await jitter();
      const results = messages.filter((m) => m.role === "tool");
      if (results.length === 0) {
        const second = options.twoQuestions ? "c_a2" : "c_approve";
        return {
          toolCalls: [
            options.twoQuestions
              ? { id: "c_a1", name: "approve" }
              : { id: "c_prepare", name: "prepare" },
            { id: second, name: "approve" },
          ],
        };
      }
      if (failures > 0) {
        failures--;
        throw new Error("503 the model is overloaded");
      }
      return { content: `finished: ${results.map((m) => m.content).join(" | ")}` };
    },
  });
}

async function start(client: Client, options: Options): Promise<void> {
  const count = options.count ?? 0;
  let next = 0;
  const one = async (i: number) => {
    const runId = `${options.prefix}-${i}`;
    for (;;) {
      try {
        const result = await client.run(`job ${i}`, {
          runId,
          ...(options.durable ? { durable: true } : {}),
        });
        console.log(JSON.stringify({ started: result.runId, status: result.status }));
        return;
      } catch (error) {
        if (codeOf(error) === "run_exists") return;
        // Any other failure (a lease lost on a loaded machine, a busy database): once the run is
        // in the store it is the workers' to finish, as for a starter that died; if it never got
        // there, start it again.
        console.error(`start ${runId}: ${codeOf(error) ?? ""} ${(error as Error)?.message}`);
        if ((await client.getRun(runId).catch(() => undefined)) !== undefined) return;
        await pause(20);
      }
    }
  };
  await Promise.all(
    Array.from({ length: options.concurrency ?? 1 }, async () => {
      for (let i = next++; i < count; i = next++) await one(i);
    }),
  );
  console.log(JSON.stringify({ startedAll: true }));
}

/** Two answerers race for the same requests: the same answer twice is a duplicate, never lost. */
async function answer(
  client: Client,
  options: Options,
  log: (entry: Record<string, unknown>) => void,
): Promise<never> {
  for (;;) {
    let waiting: Awaited<ReturnType<RunStore["list"]>> = [];
    try {
      waiting = await client.runs.list({ state: "waiting", limit: options.listLimit ?? 100 });
    } catch {
      // The database restarting: ask again.
      await pause(100);
      continue;
    }
    waiting.sort(() => Math.random() - 0.5);
    for (const summary of waiting.slice(0, 10)) {
      const token = `tok-${summary.runId}`;
      try {
        const receipt = await client.answer({ id: summary.request.id, ok: true, data: { token } });
        log({
          answered: summary.request.id,
          runId: summary.runId,
          token,
          at: now(),
          duplicate: receipt.duplicate,
        });
      } catch (error) {
        // A conflict cannot happen (every answerer sends the same token); a store error (the
        // database restarting, a busy file) is retried.
        if (codeOf(error) === "answer_conflict") throw error;
        await pause(100);
      }
      if (options.paceMs) await pause(options.paceMs);
    }
    if (waiting.length === 0) await pause(20);
  }
}

/** Continues (run ids) or resumes (Answer JSON) each line of stdin, printing each outcome. */
async function serve(client: Client, role: "continue" | "resume"): Promise<void> {
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === "") continue;
    try {
      const result =
        role === "continue"
          ? await client.continueRun(line)
          : await client.resume(JSON.parse(line));
      console.log(
        JSON.stringify({ status: result.status, text: result.text, runId: result.runId }),
      );
    } catch (error) {
      console.log(
        JSON.stringify({
          error: codeOf(error) ?? String(error),
          message: (error as Error)?.message,
        }),
      );
    }
  }
}
