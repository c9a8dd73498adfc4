// The same halt-and-resume cycle through toolnexus on this store and through LangGraph.js with
// its Postgres checkpointer (@langchain/langgraph-checkpoint-postgres: interrupt() and
// Command({ resume })), on the same PostgreSQL server, in one process (not a test).
//
//   pnpm --filter @toolnexus/store-postgres bench:langgraph
//   node bench/langgraph.mjs [--runs=1000] [--concurrency=8] [--rounds=2]
//
// The run, in both: a model turn (20 ms), `prepare` (instant), `approve` (halts for a human's
// answer), then after the answer `approve` applies it and a second model turn (20 ms) ends it.
// 1. halting: `runs` new runs up to the halt, `concurrency` at a time;
// 2. resuming: the answer recorded and the run continued to its end, in this process
//    (toolnexus: client.resume(answer); LangGraph: graph.invoke(new Command({ resume }))).
// DATABASE_URL picks a server; without it a throwaway local one is started and removed.
import { Annotation, Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createClient, inProcessModel } from "@toolnexus/client";
import { pending } from "@toolnexus/core";
import { postgresStore } from "../dist/index.js";
import { startServer } from "./server.mjs";

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return Number(found === undefined ? fallback : found.slice(name.length + 3));
};
const RUNS = arg("runs", 1000);
const CONCURRENCY = arg("concurrency", 8);
const ROUNDS = arg("rounds", 2);
const MODEL_MS = 20;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = process.env.DATABASE_URL ? undefined : await startServer();
const url = process.env.DATABASE_URL ?? server.url;

/** Runs `task(i)` for i < count, `CONCURRENCY` at a time; returns the rate per second. */
async function rate(count, task) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function toolnexus(round, durable) {
  const store = postgresStore(
    { connectionString: url },
    { schema: `tnx_vs_lg_${round}_${durable ? "durable" : "halt"}` },
  );
  await store.migrate();
  const tools = [
    {
      name: "prepare",
      description: "prepare",
      inputSchema: { type: "object" },
      execute: () => ({ output: "prepared", isError: false }),
    },
    {
      name: "approve",
      description: "approve",
      inputSchema: { type: "object" },
      execute: (_args, ctx) =>
        ctx.answer === undefined
          ? pending({ kind: "input", prompt: "Which token?" })
          : { output: `applied ${ctx.answer.data?.token}`, isError: false },
    },
  ];
  const model = inProcessModel({
    id: "scripted",
    async generate({ messages }) {
      await pause(MODEL_MS);
      return messages.some((m) => m.role === "tool")
        ? { content: "finished" }
        : {
            toolCalls: [
              { id: "c_prepare", name: "prepare" },
              { id: "c_approve", name: "approve" },
            ],
          };
    },
  });
  const client = createClient({ model, tools, runs: store });
  const ids = [];
  const halts = await rate(RUNS, async (i) => {
    // durable: true writes the run before its first model call and at every step, as LangGraph
    // checkpoints every super-step; without it the run is written once, when it halts.
    const result = await client.run(`job ${i}`, { durable });
    if (result.status !== "pending") throw new Error(`run ${i} did not halt`);
    ids[i] = result.pending.id;
  });
  const resumes = await rate(RUNS, async (i) => {
    const result = await client.resume({ id: ids[i], ok: true, data: { token: `t${i}` } });
    if (result.status !== "done") throw new Error(`run ${i} ended ${result.status}`);
  });
  await store.close();
  return { halts, resumes };
}

async function langgraph(round) {
  const checkpointer = PostgresSaver.fromConnString(url, { schema: `lg_${round}` });
  await checkpointer.setup();
  const State = Annotation.Root({
    log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const graph = new StateGraph(State)
    .addNode("model1", async () => {
      await pause(MODEL_MS);
      return { log: ["call tools"] };
    })
    .addNode("prepare", () => ({ log: ["prepared"] }))
    .addNode("approve", () => {
      const answer = interrupt({ kind: "input", prompt: "Which token?" });
      return { log: [`applied ${answer.token}`] };
    })
    .addNode("model2", async () => {
      await pause(MODEL_MS);
      return { log: ["finished"] };
    })
    .addEdge(START, "model1")
    .addEdge("model1", "prepare")
    .addEdge("prepare", "approve")
    .addEdge("approve", "model2")
    .addEdge("model2", END)
    .compile({ checkpointer });
  const config = (i) => ({ configurable: { thread_id: `r${round}-${i}` } });
  const halts = await rate(RUNS, async (i) => {
    const result = await graph.invoke({ log: [] }, config(i));
    if (result.__interrupt__ === undefined) throw new Error(`thread ${i} did not interrupt`);
  });
  const resumes = await rate(RUNS, async (i) => {
    const result = await graph.invoke(new Command({ resume: { token: `t${i}` } }), config(i));
    if (result.log.at(-1) !== "finished") throw new Error(`thread ${i} did not finish`);
  });
  await checkpointer.end();
  return { halts, resumes };
}

console.log(
  `halt and resume on PostgreSQL (${server?.version ?? "DATABASE_URL"}): ${RUNS} runs, ${CONCURRENCY} at a time, model ${MODEL_MS} ms per turn, node ${process.version}`,
);
const ours = [];
const oursDurable = [];
const theirs = [];
for (let round = 1; round <= ROUNDS; round++) {
  // Alternate who goes first, so neither always gets the warmer server.
  if (round % 2 === 1) {
    ours.push(await toolnexus(round, false));
    oursDurable.push(await toolnexus(round, true));
    theirs.push(await langgraph(round));
  } else {
    theirs.push(await langgraph(round));
    oursDurable.push(await toolnexus(round, true));
    ours.push(await toolnexus(round, false));
  }
}
const best = (list, key) => Math.max(...list.map((r) => r[key]));
const b = { halts: best(theirs, "halts"), resumes: best(theirs, "resumes") };
for (const [label, list] of [
  ["toolnexus (written when it halts)", ours],
  ["toolnexus (durable: true, every step)", oursDurable],
]) {
  for (const key of ["halts", "resumes"]) {
    const a = best(list, key);
    console.log(
      `${key.padEnd(8)} ${label}: ${a.toFixed(0)}/s, LangGraph ${b[key].toFixed(0)}/s: ours ÷ theirs = ${(a / b[key]).toFixed(2)}`,
    );
  }
}
console.log(JSON.stringify({ ours, oursDurable, theirs }));
server?.stop();
