import { readFileSync } from "node:fs";

// What every library's scenario shares: the prompts, the scripted answers, the tool counters
// that prove a tool really ran, and the gate S4's tools wait on.

export const PROMPT = "What is 2 + 3?";
export const ARGS = { a: 2, b: 3 };
export const ARGS_JSON = JSON.stringify(ARGS);
export const FANOUT = 8;
export const LONG_TURNS = 50;

/** The final text each scripted model answers with, per scenario. */
export const FINAL = {
  s1: "The sum is 5.",
  s2: `All ${FANOUT} sums are 5.`,
  s3: `Done after ${LONG_TURNS} sums.`,
  s4: "The slow sum is 5.",
  s5: "Approved; the sum is 5.",
};

/** The call ids a model uses in S3: turn k asks `call_k`, so the model reads only the last message. */
export const callId = (k) => `call_${k}`;

/** The index of the S3 call a tool result answers, from its id (`call_17` -> 17). */
export const turnOf = (id) => Number(id.slice(5));

/** Tool executions per library, checked after every run. */
export function counter() {
  return { n: 0 };
}

/** Throws unless `actual` is `expected`: a library that skipped the tool or lost the answer fails. */
export function expectEqual(what, actual, expected) {
  if (actual !== expected) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** The model side of a tool result must read 5: the tool's output reached the model. */
export function expectFive(what, output) {
  const text = typeof output === "string" ? output : JSON.stringify(output);
  if (text !== "5" && text !== '"5"') {
    throw new Error(`${what}: the model saw tool output ${text}, expected 5`);
  }
}

/**
 * S4's gate: every in-flight tool call parks here until the bench opens it, so a run's whole
 * state stays alive while the heap is measured.
 */
export function gate() {
  const waiting = [];
  return {
    wait: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
      }),
    get parked() {
      return waiting.length;
    },
    open() {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/**
 * Per-turn timestamps for S3: `mark(k)` when the model is asked for turn k. `deltas` holds,
 * per turn, the time from asking the model for turn k to asking it for turn k + 1 (the loop's
 * work around one tool call, including the scripted model and the tool).
 */
export function turnClock() {
  const stamps = new Float64Array(LONG_TURNS + 1);
  const deltas = Array.from({ length: LONG_TURNS }, () => []);
  return {
    mark(k) {
      stamps[k] = performance.now();
    },
    collect() {
      for (let k = 0; k < LONG_TURNS; k++) deltas[k].push((stamps[k + 1] - stamps[k]) * 1000);
    },
    deltas,
    reset() {
      for (const list of deltas) list.length = 0;
    },
  };
}

/**
 * The installed version of a dependency of a bench package: `root` is the package's folder
 * (bench/ by default; bench/next/ for the Node 22 peers).
 */
export function version(name, root = new URL("../", import.meta.url)) {
  const url = new URL(`node_modules/${name}/package.json`, root);
  return JSON.parse(readFileSync(url, "utf8")).version;
}

let responses = 0;
/**
 * The id a provider gives each response; every scripted model hands one out. Written in base 36:
 * a provider's id is a fresh string parsed from its response, and so is this one. A decimal
 * `resp_${n}` went through V8's number-to-string cache, which keeps the last few thousand such
 * strings alive across young-generation collections: every scavenge then copied and promoted
 * about 100 KB of them, charged to whichever library was running (all but the floor, whose
 * responses have no id). Measured on S1: survivors per scavenge 97 KB -> 3 KB, pause 1.1 -> 0.1 ms.
 */
export const responseId = () => `resp_${(++responses).toString(36)}`;
