// Processes that try to outlive a bash call: their own process group (`set -m`), their own
// session (`setsid`), a cleared environment (`env -i`). Real processes, real signals.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool } from "./bash.js";
import {
  alive,
  pollUntilDead,
  processesCarrying,
  type Sandbox,
  sandbox,
  waitUntilDead,
} from "./test-support.js";

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

// The review's escape: `env -i` empties the environment (no marker variable), `setsid` leaves
// the session, and the inner shell exits at once so the escapee is re-parented to init before
// any snapshot of the tree could see its parent. The inherited marker descriptor finds it.
describe.runIf(LINUX)("bash: an env -i + setsid escapee whose parent exits at once", () => {
  const escapees: number[] = [];
  afterEach(() => {
    // A failing test must not leave an hour-long sleep behind.
    for (const pid of escapees.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  const escaping = (inner: string) =>
    `env -i "$(command -v setsid)" /bin/sh -c '${inner} & echo $! > pid.tmp; mv pid.tmp pid'`;
  const escapee = async () => {
    const pids = await pidsIn("pid");
    escapees.push(...pids);
    return pids;
  };
  const waitForFile = async (file: string) => {
    for (let look = 0; look < 500; look++) {
      if (await readFile(path.join(box.root, file), "utf8").catch(() => "")) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${file} never appeared`);
  };

  it.each([
    ["keeping the output pipes", "/bin/sleep 3600"],
    [
      "with its output sent elsewhere (only the marker descriptor left)",
      "/bin/sleep 3600 >/dev/null 2>&1",
    ],
    ["having closed the marker descriptor (only the output pipe left)", "/bin/sleep 3600 19<&-"],
  ])(
    "is killed when the shell exits: %s",
    async (_, inner) => {
      const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
      const result = await bash.execute({
        command: `${escaping(inner)}; sleep 0.05; echo started`,
        timeout: 300_000,
      });
      expect(result).toMatchObject({ output: "started\n", isError: false });
      const pids = await escapee();
      expect(pids).toHaveLength(1);
      expect(await pollUntilDead(pids)).toEqual([]);
    },
    30_000,
  );

  it("is killed at the call's timeout", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const result = await bash.execute({
      command: `${escaping("/bin/sleep 3600 >/dev/null 2>&1")}; sleep 3600`,
      timeout: 1_000,
    });
    expect(result.output).toMatch(/^bash: command timed out after 1000ms\n/);
    expect(result.metadata).toMatchObject({ timedOut: true });
    const pids = await escapee();
    expect(pids).toHaveLength(1);
    expect(await pollUntilDead(pids)).toEqual([]);
  }, 30_000);

  it("is killed when the call is cancelled", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const controller = new AbortController();
    const running = bash.execute(
      { command: `${escaping("/bin/sleep 3600 >/dev/null 2>&1")}; sleep 3600`, timeout: 300_000 },
      { signal: controller.signal },
    );
    let pids: number[];
    try {
      await waitForFile("pid");
      pids = await escapee();
      expect(pids).toHaveLength(1);
      expect(pids.filter(alive)).toEqual(pids); // escaped and running before the cancel
    } finally {
      controller.abort();
    }
    const result = await running;
    expect(result.output).toMatch(/^bash: command cancelled\n/);
    expect(await pollUntilDead(pids)).toEqual([]);
  }, 30_000);

  it("does not touch processes of another call running beside it", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const controller = new AbortController();
    const other = bash.execute(
      {
        command: `${escaping("/bin/sleep 3600 >/dev/null 2>&1").replaceAll("pid", "other")}; sleep 3600`,
        timeout: 300_000,
      },
      { signal: controller.signal },
    );
    try {
      await waitForFile("other");
      const bystander = await pidsIn("other");
      escapees.push(...bystander);
      const result = await bash.execute({
        command: `${escaping("/bin/sleep 3600 >/dev/null 2>&1")}; sleep 0.05`,
      });
      expect(result.isError).toBe(false);
      expect(await pollUntilDead(await escapee())).toEqual([]);
      expect(bystander.filter(alive)).toEqual(bystander);
    } finally {
      controller.abort(); // ends the other call, and its escapee with it
    }
    await other;
    const bystander = await pidsIn("other");
    expect(await pollUntilDead(bystander)).toEqual([]);
  }, 30_000);
});
