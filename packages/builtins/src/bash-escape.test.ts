// Processes that try to outlive a bash call: their own process group (`set -m`), their own
// session (`setsid`), a cleared environment (`env -i`). Real processes, real signals.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool } from "./bash.js";
import { alive, processesCarrying, type Sandbox, sandbox, waitUntilDead } from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const LINUX = process.platform === "linux";
const pidsIn = async (file: string) =>
  (await readFile(path.join(box.root, file), "utf8")).split(/\s+/).filter(Boolean).map(Number);

/** A command that exports a unique variable first, so the test can find its processes. */
function tagged(command: string): { command: string; entry: string } {
  const entry = `ESCAPE_TEST=${randomUUID()}`;
  return { command: `export ${entry}; ${command}`, entry };
}

describe("bash: no process outlives the call", () => {
  it.each([
    ["its own process group (set -m)", "set -m; sleep 3600 & echo $! > pid"],
    ["its own session (setsid)", "setsid sleep 3600 & echo $! > pid"],
    [
      "its own session, holding the output pipes",
      "setsid sh -c 'echo $$ > pid; exec sleep 3600' & while [ ! -s pid ]; do sleep 0.05; done",
    ],
    ["a subshell in its own group", "set -m; (sleep 3600; echo alive > marker) & echo $! > pid"],
  ])(
    "a background job in %s is killed when the shell exits",
    async (_, script) => {
      const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
      const { command, entry } = tagged(script);
      const result = await bash.execute({ command, timeout: 300_000 });
      expect(result.isError).toBe(false);
      const pids = await pidsIn("pid");
      expect(pids).toHaveLength(1);
      // Dead when the result comes, not some time later.
      expect(pids.filter(alive)).toEqual([]);
      if (LINUX) expect(processesCarrying(entry)).toEqual([]);
    },
    30_000,
  );

  it.each([
    ["set -m", "set -m; sleep 3600 & echo $! > pid; wait"],
    ["setsid", "setsid sleep 3600 & echo $! > pid; sleep 3600"],
    ["setsid holding the pipes", "setsid sh -c 'echo $$ > pid; exec sleep 3600' & sleep 3600"],
  ])(
    "a call whose escaped child (%s) holds on ends at its timeout",
    async (_, script) => {
      const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
      const { command, entry } = tagged(script);
      // The vitest limit, not an assertion on time: before the fix this call took an hour.
      const result = await bash.execute({ command, timeout: 1_000 });
      expect(result.output).toMatch(/^bash: command timed out after 1000ms\n/);
      const pids = await pidsIn("pid");
      expect(pids.filter(alive)).toEqual([]);
      if (LINUX) expect(processesCarrying(entry)).toEqual([]);
    },
    30_000,
  );

  it("kills a setsid'd escapee that ignores SIGTERM, with SIGKILL after the grace", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const { command, entry } = tagged(
      "setsid sh -c 'trap \"\" TERM; echo $$ > pid; while :; do sleep 1; done' & while [ ! -s pid ]; do sleep 0.05; done",
    );
    const result = await bash.execute({ command });
    expect(result.isError).toBe(false);
    expect((await pidsIn("pid")).filter(alive)).toEqual([]);
    if (LINUX) expect(processesCarrying(entry)).toEqual([]);
  }, 30_000);

  it.runIf(LINUX)(
    "a process that clears its environment (env -i) is found through its parent",
    async () => {
      const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
      // The shell lives long enough for the tree to be snapshotted (every 200 ms) with the
      // env -i child under it; the child then outlives the shell in its own session.
      const result = await bash.execute({
        command: "env -i setsid sleep 3600 & echo $! > pid; sleep 3",
      });
      expect(result.isError).toBe(false);
      expect((await pidsIn("pid")).filter(alive)).toEqual([]);
    },
    30_000,
  );

  it("a forking loop in its own session is frozen and killed", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const { command, entry } = tagged(
      "setsid sh -c 'echo $$ > pid; while :; do sleep 3600 & done' > /dev/null 2>&1 & while [ ! -s pid ]; do sleep 0.05; done; sleep 1",
    );
    const result = await bash.execute({ command });
    expect(result.isError).toBe(false);
    expect(await waitUntilDead(await pidsIn("pid"), 5_000)).toEqual([]);
    if (LINUX) expect(processesCarrying(entry)).toEqual([]);
  }, 60_000);
});
