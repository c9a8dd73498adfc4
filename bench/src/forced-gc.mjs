// toolnexus against the floor with a full GC forced before every timed block, the way some
// harnesses measure: the garbage a library leaves and anything a full GC throws away (compiled
// code whose hidden classes died while no run was in flight) are then charged to the block.
//
//   node --expose-gc src/forced-gc.mjs [s1|s2|s5] [runs per block]      (default s1 10000)
//
// Warm-up: 20 blocks of 5,000 runs per library. Then 41 interleaved rounds, each a block of
// toolnexus and a block of the floor, each after `gc()` twice; prints the median time per run
// and the median of the per-round ratios with its interquartile range. `pnpm bench` forces no
// GC; this is the other view, not its headline.
import * as floor from "./libs/floor.mjs";
import * as toolnexus from "./libs/toolnexus.mjs";
import { spread } from "./stats.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const [scenario = "s1", blockText = "10000"] = process.argv.slice(2);
const block = Number(blockText);
if (!["s1", "s2", "s5"].includes(scenario) || !Number.isInteger(block) || block < 1) {
  throw new Error("usage: node --expose-gc src/forced-gc.mjs s1|s2|s5 <runs per block>");
}
const libs = [toolnexus.create(), floor.create()];

/** Microseconds per run of one block, after a full GC. */
async function timed(lib, runs, force) {
  if (force) {
    globalThis.gc();
    globalThis.gc();
  }
  const run = lib[scenario];
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await run.call(lib);
  return Number(process.hrtime.bigint() - started) / runs / 1000;
}

for (let i = 0; i < 20; i++) for (const lib of libs) await timed(lib, 5000, false);
const ours = [];
const floors = [];
const ratios = [];
for (let round = 0; round < 41; round++) {
  const a = await timed(libs[0], block, true);
  const b = await timed(libs[1], block, true);
  ours.push(a);
  floors.push(b);
  ratios.push(a / b);
}
const fmt = (value) => value.toFixed(2);
const ratio = spread(ratios);
process.stdout.write(
  `${scenario}, forced GC before each block of ${block} runs (Node ${process.versions.node}): ` +
    `toolnexus ${fmt(spread(ours).median)} µs, floor ${fmt(spread(floors).median)} µs, ` +
    `toolnexus / floor ${fmt(ratio.median)}× (${fmt(ratio.p25)}–${fmt(ratio.p75)})\n`,
);
