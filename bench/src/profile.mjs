// One toolnexus scenario alone, many times, for a CPU profile of ours:
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof src/profile.mjs s5 20000
//
// Runs the scenario a tenth of the count first (warm-up), then the count, and prints µs per run
// (a look, not a figure to quote: `pnpm bench` measures against the floor in rounds).
import * as toolnexus from "./libs/toolnexus.mjs";

const [scenario = "s1", countText = "20000"] = process.argv.slice(2);
const count = Number(countText);
const lib = toolnexus.create();
const run = lib[scenario];
if (typeof run !== "function" || !Number.isInteger(count) || count < 1) {
  throw new Error("usage: node src/profile.mjs s1|s2|s3|s5 <runs>");
}
for (let i = 0; i < Math.ceil(count / 10); i++) await run.call(lib);
const started = performance.now();
let bytes;
for (let i = 0; i < count; i++) bytes = await run.call(lib);
const us = ((performance.now() - started) * 1000) / count;
process.stdout.write(`${scenario}: ${us.toFixed(2)} µs per run${bytes ? `, ${bytes} B` : ""}\n`);
