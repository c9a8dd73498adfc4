// Scenario 1: what recording events costs a durable step. The same durable scripted runs go
// through two clients in one process: one on the real store, one on the same store with its
// event members hidden (the loop then appends nothing). Rounds alternate which goes first, and
// each round's ratio compares two samples taken moments apart.
import { createClient } from "@toolnexus/client";
import { countCalls, hideEvents, median, now, quantile, stepModel, workTool } from "./common.mjs";

const STEPS = 5;

async function sample(client, runs, label) {
  const started = now();
  for (let i = 0; i < runs; i++) {
    const result = await client.run("go", { durable: true });
    if (result.status !== "done" || result.text !== `finished after ${STEPS} steps`) {
      throw new Error(`${label}: a run ended ${result.status}: ${result.text}`);
    }
  }
  // Per durable step: a step is one model turn and one tool call, journaled.
  return (now() - started) / (runs * STEPS);
}

/** Returns per-step times (ms) with events on and off, per round, and their ratios. */
export async function stepCost(store, { rounds, runsPerSample, log }) {
  const make = (runs) => createClient({ model: stepModel(STEPS), tools: [workTool(0)], runs });
  const on = make(store);
  const off = make(hideEvents(store));
  // Warm-up: both paths compiled, both store statements prepared.
  for (let i = 0; i < 3; i++) {
    await sample(on, runsPerSample, "warm-up on");
    await sample(off, runsPerSample, "warm-up off");
  }
  const result = { steps: STEPS, runsPerSample, on: [], off: [], ratios: [] };
  for (let round = 0; round < rounds; round++) {
    let a;
    let b;
    if (round % 2 === 0) {
      a = await sample(on, runsPerSample, "events on");
      b = await sample(off, runsPerSample, "events off");
    } else {
      b = await sample(off, runsPerSample, "events off");
      a = await sample(on, runsPerSample, "events on");
    }
    result.on.push(a);
    result.off.push(b);
    result.ratios.push(a / b);
    log(`  round ${round + 1}/${rounds}: on ${a.toFixed(3)} ms/step, off ${b.toFixed(3)} ms/step`);
  }
  // What one run records either way.
  const last = await on.run("go", { durable: true });
  const lastOff = await off.run("go", { durable: true });
  result.eventsPerRunOn = (await store.readEvents(last.runId, 0)).length;
  result.eventsPerRunOff = (await store.readEvents(lastOff.runId, 0)).length;
  // The store calls one run makes either way (counted outside the timed samples).
  for (const [mode, view] of [
    ["on", store],
    ["off", hideEvents(store)],
  ]) {
    const counts = {};
    await make(countCalls(view, counts)).run("go", { durable: true });
    result[`callsPerRun_${mode}`] = counts;
  }
  result.summary = {
    onMs: median(result.on),
    offMs: median(result.off),
    ratio: median(result.ratios),
    ratioQ1: quantile(result.ratios, 0.25),
    ratioQ3: quantile(result.ratios, 0.75),
  };
  return result;
}
