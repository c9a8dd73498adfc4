// The two SQLite bindings of @toolnexus/store-sqlite against each other, on the same Node and the
// same machine, in one run (not a test: it asserts nothing, it prints figures).
//
//   pnpm --filter @toolnexus/store-sqlite bench:drivers    (builds dist, then runs this file)
//   node bench/drivers.mjs [--runs=2000] [--rounds=3] [--synchronous=full|normal]
//
// Needs a Node with both: 22.16+ with better-sqlite3 built for it, or 24 with a better-sqlite3
// that loads there (13, Node-API; better-sqlite3 12 aborts on Node >= 24.19, so put 13 in its
// place in node_modules to measure it). Each round, for each
// driver (TOOLNEXUS_SQLITE_DRIVER, read at each open), on a fresh file: halts N runs, answers
// them, claims each, journals one entry and finishes it. Prints operations per second per
// phase (the best round of each driver) and the ratio node:sqlite / better-sqlite3.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKPOINT_VERSION } from "@toolnexus/core";
import { sqliteStore } from "../dist/index.js";

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
};
const RUNS = Number(arg("runs", "2000"));
const ROUNDS = Number(arg("rounds", "3"));
const SYNCHRONOUS = arg("synchronous", "full");
const DRIVERS = ["better-sqlite3", "node:sqlite"];
const PHASES = ["halt", "answer", "claim", "journal", "finish"];

const checkpoint = (i) => ({
  version: CHECKPOINT_VERSION,
  runId: `run_${i}`,
  sessionId: `session_${i % 100}`,
  agent: "deployer",
  createdAt: new Date().toISOString(),
  messages: [
    { role: "user", content: `Ship build ${i} please.` },
    {
      role: "assistant",
      id: `msg_${i}`,
      content: "Checking with you first.",
      toolCalls: [
        { id: `call_${i}`, name: "deploy", args: { build: i }, rawArgs: `{"build":${i}}` },
      ],
    },
    { role: "tool", callId: `call_${i}`, name: "deploy", content: "approve?", isError: true },
  ],
  pending: [
    {
      request: { id: `pnd_${i}`, kind: "approval", prompt: `Deploy build ${i}?` },
      callId: `call_${i}`,
      tool: "deploy",
      args: { build: i },
      fingerprint: `deploy:${i}`,
      approval: true,
      slot: 2,
    },
  ],
  turns: 1,
  usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
});

const entry = (i) => ({
  callId: `call_${i}`,
  message: {
    role: "tool",
    callId: `call_${i}`,
    name: "deploy",
    content: "deployed",
    isError: false,
  },
  record: {
    id: `call_${i}`,
    name: "deploy",
    args: { build: i },
    result: { output: "deployed", isError: false },
    status: "ok",
    timedOut: false,
    durationMs: 3,
  },
});

const result = (i) => ({
  status: "done",
  text: "Deployed.",
  messages: [{ role: "assistant", id: `msg_done_${i}`, content: "Deployed." }],
  toolCalls: [],
  turns: 2,
  usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
  model: "bench",
  runId: `run_${i}`,
});

/** One round on a fresh file: operations per second of each phase. */
function round(driver) {
  process.env.TOOLNEXUS_SQLITE_DRIVER = driver;
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-drivers-"));
  const store = sqliteStore({ path: join(dir, "bench.db"), synchronous: SYNCHRONOUS });
  if (store.driver !== driver) throw new Error(`expected ${driver}, got ${store.driver}`);
  const perSecond = {};
  const phase = (name, fn) => {
    const start = process.hrtime.bigint();
    const result = fn();
    perSecond[name] = RUNS / (Number(process.hrtime.bigint() - start) / 1e9);
    return result;
  };
  try {
    phase("halt", () => {
      for (let i = 0; i < RUNS; i++) store.halt(checkpoint(i));
    });
    phase("answer", () => {
      for (let i = 0; i < RUNS; i++) store.answer({ id: `pnd_${i}`, ok: true });
    });
    const leases = phase("claim", () =>
      Array.from({ length: RUNS }, () => store.claim({ owner: "bench", leaseMs: 60_000 }).lease),
    );
    phase("journal", () => {
      for (const [i, lease] of leases.entries()) store.journal(lease, entry(i));
    });
    phase("finish", () => {
      for (const [i, lease] of leases.entries()) {
        store.finish(lease, { state: "done", result: result(i) });
      }
    });
    return perSecond;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!process.getBuiltinModule?.("node:sqlite")) {
  console.error(`node:sqlite is not in Node ${process.version}: run this on Node 22.16 or later`);
  process.exit(1);
}
console.log(
  `node ${process.version}, ${RUNS} runs, ${ROUNDS} rounds, synchronous=${SYNCHRONOUS}; operations per second (best round)`,
);
const best = Object.fromEntries(DRIVERS.map((d) => [d, {}]));
for (let r = 0; r < ROUNDS; r++) {
  // Alternating, so a noisy moment on the machine hits both drivers alike.
  for (const driver of r % 2 === 0 ? DRIVERS : [...DRIVERS].reverse()) {
    const got = round(driver);
    for (const p of PHASES) best[driver][p] = Math.max(best[driver][p] ?? 0, got[p]);
  }
}
const fmt = (n) => Math.round(n).toLocaleString("en").padStart(9);
console.log(
  `  ${"".padEnd(10)}${DRIVERS.map((d) => d.padStart(16)).join("")}   node:sqlite / better-sqlite3`,
);
for (const p of PHASES) {
  const [a, b] = DRIVERS.map((d) => best[d][p]);
  console.log(
    `  ${p.padEnd(10)}${fmt(a).padStart(16)}${fmt(b).padStart(16)}   ${(b / a).toFixed(2)}`,
  );
}
