// The thread grep runs the model's regular expression in. A RegExp that backtracks (`(a+)+$`
// on a long line) cannot be interrupted from JavaScript, so it runs where the main thread can
// terminate it at the call's deadline while its own event loop keeps going.
//
// The code is a string run with `eval: true`: the same text then works from the ESM and CJS
// builds and from the TypeScript sources under vitest, with no worker file to ship or resolve.

/** One file's text to search. */
export interface MatchJob {
  id: number;
  pattern: string;
  text: string;
  /** Stop after this many matching lines. */
  want: number;
  /** A matching line longer than this is cut, with "…". */
  maxLineChars: number;
}

/** `found`: [1-based line number, line as shown] per match; `failed`: what the RegExp threw. */
export type MatchReply = { id: number; found: [number, string][] } | { id: number; failed: string };

export const MATCH_WORKER_SOURCE = `"use strict";
const { parentPort } = require("node:worker_threads");
let compiled;
let compiledFrom;
parentPort.on("message", (job) => {
  try {
    if (compiledFrom !== job.pattern) {
      compiled = new RegExp(job.pattern);
      compiledFrom = job.pattern;
    }
    const lines = job.text.split("\\n");
    const found = [];
    for (let i = 0; i < lines.length && found.length < job.want; i++) {
      const line = lines[i];
      if (!compiled.test(line)) continue;
      const shown =
        line.length > job.maxLineChars ? line.slice(0, job.maxLineChars) + "\\u2026" : line;
      found.push([i + 1, shown]);
    }
    parentPort.postMessage({ id: job.id, found });
  } catch (thrown) {
    const failed = thrown instanceof Error ? thrown.message : String(thrown);
    parentPort.postMessage({ id: job.id, failed });
  }
});
`;
