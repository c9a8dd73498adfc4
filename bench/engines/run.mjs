// Durable engines side by side: the same toolnexus agent (workload.mjs) on our PostgreSQL store,
// on DBOS Transact and on Restate, on one machine, DBOS and our store on the same throwaway
// PostgreSQL server (Restate keeps its journal in its own server process). Two figures per
// engine: ms per durable step (a run of 2n + 1 journaled model turns and tool calls, divided by
// 2n + 1) and ms per halt/answer/continue cycle (a run that asks a human, the answer sent from
// outside the run, the run continued to its end). Each round times one block per engine, in a
// rotating order; the ratios to our store are taken per round, so load that drifts between
// rounds cancels out.
//
//   node engines/run.mjs [--rounds 9] [--runs 20] [--only dbos,restate] [--json out.json] [--md out.md]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startCluster } from "../events/pg.mjs";
import { statementCounter } from "../pg/count.mjs";
import { spread } from "../src/stats.mjs";
import { render } from "./report.mjs";
import { storePostgresEngine } from "./store-postgres.mjs";
import { STEPS_PER_RUN } from "./workload.mjs";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    runs: { type: "string", default: "20" },
    only: { type: "string" },
    json: { type: "string" },
    md: { type: "string" },
  },
});
const ROUNDS = Number(args.rounds);
const RUNS = Number(args.runs);
const only = args.only?.split(",");

const cluster = await startCluster();
// PostgreSQL statements (one round trip each) of the engines on the cluster, per operation.
const counter = statementCounter();
const engines = [await storePostgresEngine(cluster.url, counter)];
if (only === undefined || only.includes("dbos")) {
  const { dbosEngine } = await import("./dbos.mjs");
  engines.push(await dbosEngine(cluster.url.replace(/\/postgres$/, "/bench_dbos"), counter));
}
if (only === undefined || only.includes("restate")) {
  const { restateEngine } = await import("./restate.mjs");
  engines.push(await restateEngine());
}
const base = engines[0].name;

/** `RUNS` runs of each kind, one after the other: ms per durable step and per cycle. */
async function block(engine) {
  let t = performance.now();
  for (let i = 0; i < RUNS; i++) await counter.within(`${engine.name}|steps`, () => engine.steps());
  const step = (performance.now() - t) / (RUNS * STEPS_PER_RUN);
  t = performance.now();
  for (let i = 0; i < RUNS; i++) await counter.within(`${engine.name}|cycle`, () => engine.cycle());
  const cycle = (performance.now() - t) / RUNS;
  return { step, cycle };
}

// Warm-up: connections open, statements prepared, JIT settled, the engines' pools filled.
for (let i = 0; i < 2; i++) for (const engine of engines) await block(engine);
counter.reset();
const times = Object.fromEntries(engines.map((e) => [e.name, { step: [], cycle: [] }]));
const ratios = Object.fromEntries(engines.slice(1).map((e) => [e.name, { step: [], cycle: [] }]));
const loads = [loadavg()[0]];
for (let round = 0; round < ROUNDS; round++) {
  const shift = round % engines.length;
  const order = [...engines.slice(shift), ...engines.slice(0, shift)];
  const got = {};
  for (const engine of order) got[engine.name] = await block(engine);
  for (const [name, figures] of Object.entries(got)) {
    times[name].step.push(figures.step);
    times[name].cycle.push(figures.cycle);
  }
  for (const name of Object.keys(ratios)) {
    ratios[name].step.push(got[name].step / got[base].step);
    ratios[name].cycle.push(got[name].cycle / got[base].cycle);
  }
}
loads.push(loadavg()[0]);

const result = {
  at: new Date().toISOString(),
  node: process.version,
  server: cluster.version,
  rounds: ROUNDS,
  runsPerBlock: RUNS,
  stepsPerRun: STEPS_PER_RUN,
  load1: loads,
  engines: engines.map((e) => ({ name: e.name, detail: e.detail ?? "" })),
  times: Object.fromEntries(
    Object.entries(times).map(([name, t]) => [
      name,
      { step: spread(t.step), cycle: spread(t.cycle) },
    ]),
  ),
  ratios: Object.fromEntries(
    Object.entries(ratios).map(([name, r]) => [
      name,
      { step: spread(r.step), cycle: spread(r.cycle) },
    ]),
  ),
  base,
  // PostgreSQL statements per durable step and per cycle (Restate keeps its journal elsewhere).
  statements: Object.fromEntries(
    engines
      .filter((e) => e.onPostgres)
      .map((e) => {
        const of = (kind) => counter.perCall()[`${e.name}|${kind}`]?.perCall ?? 0;
        return [e.name, { step: of("steps") / STEPS_PER_RUN, cycle: of("cycle") }];
      }),
  ),
};
const report = render(result);
console.log(report);
if (args.json) writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
if (args.md) writeFileSync(args.md, report);
for (const engine of engines) await engine.close();
cluster.stop();
process.exit(0);
