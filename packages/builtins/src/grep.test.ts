// grep's regex runs in a worker thread stopped at the call's deadline: a pattern that
// backtracks for ever is a timeout error, never an empty success, and never holds the process.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grepTool } from "./grep.js";
import { type Sandbox, sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  // 25 a's then "!" took 2 s in-process; 31 never finished.
  await writeFile(path.join(box.root, "short.txt"), `${"a".repeat(25)}!\n`);
  await mkdir(path.join(box.root, "long"));
  await writeFile(path.join(box.root, "long", "f.txt"), `${"a".repeat(31)}!\n`);
  await writeFile(path.join(box.root, "plain.txt"), "alpha\nbeta\naaaa\n");
});
afterEach(async () => {
  await box.cleanup();
});

const CATASTROPHIC = "^(a+)+$";
const TIMED_OUT =
  /^grep: timed out after 300ms while matching the pattern: the regular expression ran out of time/;

describe("grep: a pattern that runs out of time", () => {
  it("is a timeout error for each catastrophic search, not an empty success", async () => {
    const grep = grepTool({ root: box.root });
    const calls = [
      { pattern: CATASTROPHIC, path: "short.txt" },
      { pattern: CATASTROPHIC, path: "long" },
      { pattern: "(a|aa)+$", path: "long/f.txt" },
      { pattern: "^(a*)*b" },
    ];
    const results = await Promise.all(calls.map((args) => grep.execute(args, { timeout: 300 })));
    const outcomes = results.map((result) =>
      result.isError && TIMED_OUT.test(result.output) ? "timed out" : result.output,
    );
    expect(outcomes).toEqual(["timed out", "timed out", "timed out", "timed out"]);
    for (const result of results) {
      expect(result.metadata).toEqual({ timedOut: true, cancelled: false });
    }
  });

  it("is cancelled by the call's signal in the middle of a match", async () => {
    const grep = grepTool({ root: box.root });
    const controller = new AbortController();
    const pending = grep.execute(
      { pattern: CATASTROPHIC, path: "long" },
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result).toEqual({
      output: "grep: cancelled",
      isError: true,
      metadata: { timedOut: false, cancelled: true },
    });
  });

  it("leaves other calls, concurrent and later, their normal results", async () => {
    const grep = grepTool({ root: box.root });
    const [stuck, normal] = await Promise.all([
      grep.execute({ pattern: CATASTROPHIC, path: "long" }, { timeout: 300 }),
      grep.execute({ pattern: "^a+$", path: "plain.txt" }, { timeout: 20_000 }),
    ]);
    expect(stuck.isError).toBe(true);
    expect(stuck.output).toMatch(TIMED_OUT);
    expect(normal).toEqual({
      output: "plain.txt:3:aaaa",
      isError: false,
      metadata: { count: 1 },
    });
    // The stopped thread was replaced: the same pattern on a harmless line still matches.
    const after = await grep.execute({ pattern: CATASTROPHIC, path: "plain.txt" });
    expect(after).toEqual({ output: "plain.txt:3:aaaa", isError: false, metadata: { count: 1 } });
  });
});

describe("grep results through the worker thread", () => {
  it("cuts long matching lines, counts across files and stops at limit", async () => {
    await writeFile(path.join(box.root, "wide.txt"), `x${"y".repeat(2_500)}\nshort x\n`);
    const grep = grepTool({ root: box.root });
    const wide = await grep.execute({ pattern: "^x", path: "wide.txt" });
    expect(wide.output).toBe(`wide.txt:1:x${"y".repeat(1_999)}…`);
    const all = await grep.execute({ pattern: "a" });
    expect(all.output).toBe(
      [
        "plain.txt:1:alpha",
        "plain.txt:2:beta",
        "plain.txt:3:aaaa",
        `short.txt:1:${"a".repeat(25)}!`,
        `long/f.txt:1:${"a".repeat(31)}!`,
      ]
        .map((line) => `${box.root}/${line}`)
        .join("\n"),
    );
    expect(all.metadata).toEqual({ count: 5 });
    // The limit carries across files: 3 from plain.txt, then 1 more from short.txt.
    const four = await grep.execute({ pattern: "a", path: ".", limit: 4 });
    expect(four.output).toBe(
      `plain.txt:1:alpha\nplain.txt:2:beta\nplain.txt:3:aaaa\nshort.txt:1:${"a".repeat(25)}!`,
    );
    expect(four.metadata).toEqual({ count: 4 });
  });
});
