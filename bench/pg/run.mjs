// PostgreSQL side by side: LangGraph.js with its PostgreSQL checkpointer against a toolnexus
// durable run on @toolnexus/store-postgres, on one throwaway server, the same scripted in-memory
// model. A halt: the run asks for approval inside its tool and stops (LangGraph: interrupt();
// toolnexus: pending(), the run stored waiting). A resume: the answer goes in and the run
// continues to its end (LangGraph: invoke(Command({ resume })); toolnexus: client.resume(),
// which records the answer, claims the run, journals the call and finishes). Rounds alternate
// which library goes first; each round times `CYCLES` halts and resumes of each.
//
//   node bench/pg/run.mjs [--rounds 15] [--cycles 40] [--json out.json] [--store dist/index.js]
//
// `--store` takes another build of @toolnexus/store-postgres (an earlier release's dist), to
// measure a before and an after on the same machine.
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createClient } from "@toolnexus/client";
import { z } from "zod";
import { startCluster } from "../events/pg.mjs";
import { peers } from "../src/peers.mjs";
import { spread } from "../src/stats.mjs";
import { statementCounter } from "./count.mjs";
import { approvalModel, approvalTool, FINAL, PROMPT } from "./scripted.mjs";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "15" },
    cycles: { type: "string", default: "40" },
    json: { type: "string" },
    store: { type: "string" },
  },
});
const ROUNDS = Number(args.rounds);
const CYCLES = Number(args.cycles);

const cluster = await startCluster();
const counter = statementCounter();

// --- toolnexus -------------------------------------------------------------------------------
const { postgresStore } = args.store
  ? await import(pathToFileURL(resolve(args.store)).href)
  : await import("@toolnexus/store-postgres");
const store = postgresStore({ connectionString: cluster.url }, { schema: "bench_toolnexus" });
counter.track(store.pool);
await store.migrate();
const model = approvalModel();
const approvedAdd = approvalTool();
const counted = counter.storeView(store);
const ours = createClient({ model, tools: [approvedAdd], runs: counted });
let runs = 0;
const toolnexus = {
  name: "toolnexus",
  async halt() {
    const halted = await counter.within("client.run (halt)", () =>
      ours.run(PROMPT, { durable: true, runId: `bench-${process.pid}-${++runs}` }),
    );
    if (halted.status !== "pending") throw new Error(`toolnexus halted ${halted.status}`);
    return halted.pending.id;
  },
  async resume(requestId) {
    const done = await counter.within("client.resume", () =>
      ours.resume({ id: requestId, ok: true }),
    );
    if (done.text !== FINAL) throw new Error(`toolnexus resumed to ${JSON.stringify(done.text)}`);
  },
};

// --- LangGraph.js ----------------------------------------------------------------------------
const lg = await peers.langgraph();
const saver = PostgresSaver.fromConnString(cluster.url, { schema: "bench_langgraph" });
counter.track(saver.pool);
await saver.setup();
const { AIMessage } = lg.messages;
let responses = 0;
class ScriptedChatModel extends lg.chatModels.BaseChatModel {
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const last = messages[messages.length - 1];
    const message =
      last._getType() === "tool"
        ? new AIMessage({ id: `r${++responses}`, content: FINAL })
        : new AIMessage({
            id: `r${++responses}`,
            content: "",
            tool_calls: [{ id: "c1", name: "add", args: { a: 2, b: 3 }, type: "tool_call" }],
          });
    return { generations: [{ text: String(message.content), message }] };
  }
}
const lgAdd = lg.tools.tool(
  async ({ a, b }) => {
    const approved = lg.langgraph.interrupt({ kind: "approval", prompt: "Allow add?" });
    return approved === true ? a + b : "declined";
  },
  {
    name: "add",
    description: "Add two numbers once a human approves",
    schema: z.object({ a: z.number(), b: z.number() }),
  },
);
const graph = lg.prebuilt.createReactAgent({
  llm: new ScriptedChatModel({}),
  tools: [lgAdd],
  checkpointer: saver,
});
let threads = 0;
const langgraph = {
  name: "LangGraph.js",
  async halt() {
    const config = { configurable: { thread_id: `t${process.pid}-${++threads}` } };
    const halted = await counter.within("graph.invoke (halt)", () =>
      graph.invoke({ messages: [{ role: "user", content: PROMPT }] }, config),
    );
    if (!(halted.__interrupt__?.length > 0)) throw new Error("LangGraph did not interrupt");
    return config;
  },
  async resume(config) {
    const done = await counter.within("graph.invoke (resume)", () =>
      graph.invoke(new lg.langgraph.Command({ resume: true }), config),
    );
    const text = done.messages[done.messages.length - 1].content;
    if (text !== FINAL) throw new Error(`LangGraph resumed to ${JSON.stringify(text)}`);
  },
};

// --- rounds ----------------------------------------------------------------------------------
/** Times `CYCLES` halts, then their resumes; ms per halt and per resume. */
async function block(lib) {
  const handles = [];
  let t = performance.now();
  for (let i = 0; i < CYCLES; i++) handles.push(await lib.halt());
  const halt = (performance.now() - t) / CYCLES;
  t = performance.now();
  for (const handle of handles) await lib.resume(handle);
  const resume = (performance.now() - t) / CYCLES;
  return { halt, resume };
}

const libs = [toolnexus, langgraph];
// Warm-up: connections open, statements prepared, JIT settled.
for (let i = 0; i < 3; i++) for (const lib of libs) await block(lib);
counter.reset();
const times = { toolnexus: { halt: [], resume: [] }, "LangGraph.js": { halt: [], resume: [] } };
const ratios = { halt: [], resume: [] };
const loads = [loadavg()[0]];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? libs : [...libs].reverse();
  const got = {};
  for (const lib of order) got[lib.name] = await block(lib);
  for (const name of Object.keys(got)) {
    times[name].halt.push(got[name].halt);
    times[name].resume.push(got[name].resume);
  }
  ratios.halt.push(got.toolnexus.halt / got["LangGraph.js"].halt);
  ratios.resume.push(got.toolnexus.resume / got["LangGraph.js"].resume);
}
loads.push(loadavg()[0]);

const statements = counter.perCall();
const result = {
  at: new Date().toISOString(),
  node: process.version,
  server: cluster.version,
  store: args.store ?? "@toolnexus/store-postgres (this checkout)",
  rounds: ROUNDS,
  cycles: CYCLES,
  load1: loads,
  times: Object.fromEntries(
    Object.entries(times).map(([name, t]) => [
      name,
      { halt: spread(t.halt), resume: spread(t.resume) },
    ]),
  ),
  ratios: { halt: spread(ratios.halt), resume: spread(ratios.resume) },
  statements,
};

const f = (n, d = 2) => n.toFixed(d);
const row = (label, s) => `| ${label} | ${f(s.median, 3)} | ${f(s.p25, 3)} – ${f(s.p75, 3)} |`;
console.log(`${cluster.version}, Node ${process.version}, ${ROUNDS} rounds × ${CYCLES} cycles`);
console.log(`load average (1 min) before/after: ${loads.map((l) => f(l)).join(" / ")}\n`);
console.log("| ms per operation | median | IQR |\n|---|---:|---:|");
for (const [name, t] of Object.entries(result.times)) {
  console.log(row(`${name} halt`, t.halt));
  console.log(row(`${name} resume`, t.resume));
}
console.log(row("ratio toolnexus / LangGraph, halt", result.ratios.halt));
console.log(row("ratio toolnexus / LangGraph, resume", result.ratios.resume));
console.log("\n| statements (= round trips) | calls | per call |\n|---|---:|---:|");
for (const [op, s] of Object.entries(statements)) {
  console.log(`| ${op} | ${s.calls} | ${f(s.perCall, 1)} |`);
}
if (args.json) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
}
await store.close();
await saver.end();
cluster.stop();
