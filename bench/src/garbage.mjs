// What one toolnexus scenario allocates per run (collected or not), and where, from V8's
// sampling heap profiler, for the garbage the GC is charged for:
//
//   node src/garbage.mjs s5 5000
//
// Runs a fifth of the count first (warm-up), then samples every ~512 bytes over the count and
// prints the bytes per run and the functions that allocated most (a look, not a figure to quote):
// the top 20, or TOP=<n> of them. `node --no-turbo-inlining src/garbage.mjs …` charges each
// function its own allocations instead of its inlined callees'.
import { Session } from "node:inspector/promises";
import * as toolnexus from "./libs/toolnexus.mjs";

const [scenario = "s5", countText = "5000"] = process.argv.slice(2);
const count = Number(countText);
const lib = toolnexus.create();
const run = lib[scenario];
if (typeof run !== "function" || !Number.isInteger(count) || count < 1) {
  throw new Error("usage: node src/garbage.mjs s1|s2|s3|s5 <runs>");
}
for (let i = 0; i < Math.ceil(count / 5); i++) await run.call(lib);
const session = new Session();
session.connect();
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 0; i < count; i++) await run.call(lib);
const { profile } = await session.post("HeapProfiler.stopSampling");
session.disconnect();

const bytes = new Map();
let total = 0;
const walk = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = `${functionName || "(anonymous)"} ${url.split("/").slice(-3).join("/")}:${lineNumber + 1}`;
  bytes.set(where, (bytes.get(where) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child);
};
walk(profile.head);
const lines = [`${scenario}: about ${Math.round(total / count)} B allocated per run`];
for (const [where, size] of [...bytes]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.env.TOP ?? 20))) {
  lines.push(`${String(Math.round(size / count)).padStart(7)} B  ${where}`);
}
process.stdout.write(`${lines.join("\n")}\n`);
