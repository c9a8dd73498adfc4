// pnpm bench: the whole bench. Two sections, one after the other, each in processes of its own:
//   - Node 20 (the machine's Node): the peers installed in bench/ (ai 6, @openai/agents 0.14);
//   - Node 22: the peers installed in bench/next/ (ai 7, the newest @openai/agents), which need
//     Node 22, run by a Node 22 binary from the npm package `node` kept in a cache folder (the
//     one .ci/other-nodes.sh fills).
// Each section is one process with every library and one with toolnexus and the floor alone.
// Then the sanity check (S1 below S2 for every library), the report, and the exit status.
//
//   node src/run.mjs [--quick] [--only aiSdk,openaiAgents,langgraph] [--section node20|node22]
//                    [--no-alone]
//   node src/run.mjs --render results/latest.json
//
// A full run (no flag) writes results/latest.md and results/latest.json; any other run writes
// results/partial.*, a run whose sanity check failed results/failed.* (and exits 1).
// BENCH_NODE22=/path/to/node uses that Node 22 instead of the cached one. --render writes the
// report again from the figures of an earlier run (after a change to the report's wording).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { renderReport, summary } from "./report.mjs";
import { median, sanityCheck } from "./stats.mjs";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: process.env.BENCH_QUICK === "1" },
    only: { type: "string" },
    section: { type: "string" },
    "no-alone": { type: "boolean", default: false },
    render: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  process.stdout.write(
    "pnpm bench [--quick] [--only aiSdk,openaiAgents,langgraph] [--section node20|node22] [--no-alone]\n" +
      "pnpm bench --render results/latest.json   (the report again from a run's figures)\n",
  );
  process.exit(0);
}

const BENCH = fileURLToPath(new URL("../", import.meta.url));
if (args.render !== undefined) {
  const file = path.resolve(args.render);
  const saved = JSON.parse(readFileSync(file, "utf8"));
  const report = renderReport(saved.sections, { ...saved, quick: saved.sections[0].shared.quick });
  writeFileSync(file.replace(/\.json$/, ".md"), report);
  process.stdout.write(report);
  process.exit(0);
}
const MAIN = path.join(BENCH, "src/main.mjs");
const NODE22_VERSION = "22.23.3";
const log = (line) => process.stderr.write(`${line}\n`);
const started = performance.now();

/** A Node 22 binary: BENCH_NODE22, this Node if it is 22, or the npm package `node` cached. */
function node22() {
  if (process.env.BENCH_NODE22) return process.env.BENCH_NODE22;
  if (process.versions.node.startsWith("22.")) return process.execPath;
  const cache = process.env.TOOLNEXUS_CI_CACHE ?? path.join(os.homedir(), ".cache/toolnexus-ci");
  const dir = path.join(cache, "other-nodes", `node-${NODE22_VERSION}`);
  const bin = path.join(dir, "node_modules/node/bin/node");
  const ok = () => {
    try {
      return execFileSync(bin, ["--version"], { encoding: "utf8" }).trim() === `v${NODE22_VERSION}`;
    } catch {
      return false;
    }
  };
  if (!ok()) {
    log(`bench: installing Node ${NODE22_VERSION} (npm package \`node\`) into ${dir}`);
    mkdirSync(dir, { recursive: true });
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        dir,
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        `node@${NODE22_VERSION}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (!ok()) throw new Error(`bench: ${bin} is not Node ${NODE22_VERSION} after npm install`);
  }
  return bin;
}

const SECTIONS = [
  { key: "node20", node: () => process.execPath, peers: path.join(BENCH, "src/peers.mjs") },
  {
    key: "node22",
    node: node22,
    peers: path.join(BENCH, "next/src/peers.mjs"),
    needs: path.join(BENCH, "next/node_modules/ai/package.json"),
  },
].filter((section) => args.section === undefined || args.section === section.key);
if (SECTIONS.length === 0) throw new Error(`bench: no section ${args.section} (node20, node22)`);

/** One measuring process; its JSON figures. */
function measure(node, extra) {
  const flags = [...(args.quick ? ["--quick"] : []), ...extra];
  const child = spawnSync(node, ["--expose-gc", MAIN, ...flags], {
    cwd: BENCH,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 << 20,
  });
  if (child.status !== 0) {
    throw new Error(
      `bench: ${path.basename(node)} ${flags.join(" ")} failed with status ${child.status}`,
    );
  }
  return JSON.parse(child.stdout);
}

const sections = [];
for (const section of SECTIONS) {
  if (section.needs !== undefined && !existsSync(section.needs)) {
    throw new Error(
      `bench: ${path.dirname(path.dirname(path.dirname(section.needs)))} is not installed; run pnpm install at the root`,
    );
  }
  const node = section.node();
  log(`bench: section ${section.key} on ${node}`);
  const shared = measure(node, [
    "--peers",
    section.peers,
    ...(args.only ? ["--only", args.only] : []),
  ]);
  const alone = args["no-alone"] ? undefined : measure(node, ["--alone"]);
  sections.push({ shared, alone });
}

// The sanity check: wall-clock medians fail the bench; CPU inversions are reported only.
const failures = [];
for (const section of sections) {
  for (const run of [section.shared, section.alone]) {
    if (run === undefined) continue;
    const where = `Node ${run.node}${run.alone ? ", alone" : ""}`;
    const names = run.libs.map((lib) => lib.name);
    const wall = (key) => run.scenarios[key].wall.map(median);
    const cpu = (key) => run.scenarios[key].cpu.map(median);
    for (const failure of sanityCheck(names, wall("s1"), wall("s2")))
      failures.push(`${where}: ${failure}`);
    section.cpuWarnings ??= [];
    for (const warning of sanityCheck(names, cpu("s1"), cpu("s2"), "CPU-time"))
      section.cpuWarnings.push(`${where}: ${warning}`);
  }
}

const cpus = os.cpus();
const machine = `${cpus[0]?.model.trim() ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`;
const full = !args.quick && !args.only && !args.section && !args["no-alone"];
const command = `pnpm bench${process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(" ")}` : ""}`;
const date = new Date().toISOString().slice(0, 16).replace("T", " ");
const meta = {
  date,
  machine,
  command,
  seconds: Math.round((performance.now() - started) / 1000),
  quick: args.quick,
  failures,
};
const report = renderReport(sections, meta);
const json = {
  date,
  machine,
  command,
  seconds: meta.seconds,
  failures,
  summary: sections.map(({ shared, alone }) => summary(shared, alone)),
  sections,
};

const name = failures.length > 0 ? "failed" : full ? "latest" : "partial";
const results = path.join(BENCH, "results");
mkdirSync(results, { recursive: true });
writeFileSync(path.join(results, `${name}.md`), report);
writeFileSync(path.join(results, `${name}.json`), `${JSON.stringify(json, null, 1)}\n`);
process.stdout.write(report);
log(`bench: report written to results/${name}.md and results/${name}.json`);
if (failures.length > 0) {
  log("");
  log("bench FAILED the sanity check: one call (S1) cost more wall-clock time than eight parallel");
  log("calls (S2) for:");
  for (const failure of failures) log(`  - ${failure}`);
  log("A library is then not warm, or the machine was busy: the figures are not to be trusted.");
  log("Rerun on a quieter machine (see the load averages in the report).");
  process.exit(1);
}
