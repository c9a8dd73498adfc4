import { readFile } from "node:fs/promises";
import path from "node:path";
import { RunCancelledError } from "@toolnexus/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool } from "./bash.js";
import { alive, callThroughClient, type Sandbox, sandbox, waitUntilDead } from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const pidsIn = async (file: string) =>
  (await readFile(file, "utf8")).split(/\s+/).filter(Boolean).map(Number);

describe("bash", () => {
  it("returns stdout on exit 0 and is gated by approval", async () => {
    const bash = bashTool({ root: box.root });
    const run = await callThroughClient([bash], "bash", { command: "printf 'hello\\n'" });
    expect(run.output).toBe("hello\n");
    expect(run.isError).toBe(false);
    expect(run.record.result.metadata).toEqual({ exitCode: 0 });
    expect(run.requests).toHaveLength(1);
    expect(run.requests[0]).toMatchObject({
      kind: "approval",
      prompt: `Allow bash to run with {"command":"printf 'hello\\\\n'"}?`,
    });
  });

  it("combines stdout and stderr; a non-zero exit is an error carrying the code", async () => {
    const bash = bashTool({ root: box.root });
    const run = await callThroughClient([bash], "bash", { command: "printf err >&2; exit 3" });
    expect(run.output).toBe("err\nbash: command exited with code 3");
    expect(run.isError).toBe(true);
    expect(run.record.result.metadata).toEqual({ exitCode: 3 });
    expect(run.fedBack).toBe(run.output);
    const both = await bash.execute({ command: "echo to-stdout; echo to-stderr >&2" });
    expect(both.output.split("\n").sort()).toEqual(["", "to-stderr", "to-stdout"]);
  });

  it("runs in the root by default and in a workdir inside it", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    expect((await bash.execute({ command: "pwd" })).output).toBe(`${box.root}\n`);
    await bash.execute({ command: "mkdir sub" });
    const run = await callThroughClient([bash], "bash", { command: "pwd", workdir: "sub" });
    expect(run.output).toBe(`${path.join(box.root, "sub")}\n`);
    expect(run.requests).toHaveLength(0);
  });

  it("refuses a workdir outside the root: ../, absolute, through a symlink", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    const { symlink } = await import("node:fs/promises");
    await symlink(box.outsideDir, path.join(box.root, "away"));
    for (const workdir of ["..", box.base, "away"]) {
      const run = await callThroughClient([bash], "bash", {
        command: "touch escaped",
        workdir,
      });
      expect(run.isError).toBe(true);
      expect(run.output).toMatch(
        new RegExp(`^bash: refused ${JSON.stringify(workdir).replace(/[/\\]/g, "\\$&")}: `),
      );
      expect(run.output).toContain("outside the root folder");
    }
    await expect(readFile(path.join(box.base, "escaped"))).rejects.toThrow();
    await expect(readFile(path.join(box.outsideDir, "escaped"))).rejects.toThrow();
  });

  it("stops at its own timeout argument with the contract's message", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 200 });
    const run = await callThroughClient([bash], "bash", {
      // Generous: on a loaded machine bash can take a while to print "started".
      command: "printf started; sleep 20",
      timeout: 1_500,
    });
    expect(run.output).toBe("bash: command timed out after 1500ms\nstarted");
    expect(run.isError).toBe(true);
    expect(run.record.result.metadata).toMatchObject({ timedOut: true });
  });

  it("kills a process group that ignores SIGTERM: SIGKILL after the grace period", async () => {
    const grace = 400;
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: grace });
    const started = Date.now();
    const result = await bash.execute({
      command: "trap '' TERM; sleep 30 & echo $$ $! > pids; wait; wait; echo survived",
      timeout: 2_500,
    });
    const elapsed = Date.now() - started;
    expect(result.output).toBe("bash: command timed out after 2500ms\n");
    // The result comes only once the group is dead: SIGTERM was ignored, SIGKILL did it.
    expect(elapsed).toBeGreaterThanOrEqual(2_500 + grace - 20);
    const pids = await pidsIn(path.join(box.root, "pids"));
    expect(pids).toHaveLength(2);
    expect(await waitUntilDead(pids, 2_000)).toEqual([]);
  });

  it("the client's timeout stops a SIGTERM-ignoring command and its whole group", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 1_500 });
    const run = await callThroughClient(
      [bash],
      "bash",
      { command: "trap '' TERM; sleep 30 & echo $$ $! > pids; wait; wait" },
      { toolTimeoutMs: 2_500 },
    );
    expect(run.output).toBe("timed out after 2500ms");
    expect(run.record.timedOut).toBe(true);
    const pids = await pidsIn(path.join(box.root, "pids"));
    expect(pids).toHaveLength(2);
    // Right after the timeout the group still lives (SIGTERM is ignored)…
    expect(pids.some(alive)).toBe(true);
    // …and SIGKILL ends all of it.
    expect(await waitUntilDead(pids, 5_000)).toEqual([]);
  });

  it("guards a (bounded) fork bomb with the timeout: every child is gone", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 300 });
    const run = await callThroughClient(
      [bash],
      "bash",
      {
        command:
          "echo $$ > shell; for i in $(seq 1 20); do sleep 30 & echo $! >> pids; done; echo spawned > ready; wait",
      },
      // Long enough for 20 forks on a loaded two-core machine (2.5 s once was not).
      { toolTimeoutMs: 8_000 },
    );
    expect(run.output).toBe("timed out after 8000ms");
    expect(await readFile(path.join(box.root, "ready"), "utf8")).toBe("spawned\n");
    const pids = [
      ...(await pidsIn(path.join(box.root, "shell"))),
      ...(await pidsIn(path.join(box.root, "pids"))),
    ];
    expect(pids).toHaveLength(21);
    expect(await waitUntilDead(pids, 3_000)).toEqual([]);
  });

  it("caps a 100 MB output in bounded memory, keeping its start and end", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    let peak = 0;
    const before = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss - before);
    }, 20);
    const run = await callThroughClient([bash], "bash", {
      command: "yes | head -c 100000000; echo; echo THE-END",
    });
    clearInterval(sampler);
    expect(run.isError).toBe(false);
    expect(run.record.result.metadata).toMatchObject({
      exitCode: 0,
      truncated: true,
      outputBytes: 100_000_009,
    });
    const marker =
      "\n\n[output truncated: 99948809 of 100000009 bytes omitted here; the limit is 51200 bytes]\n\n";
    expect(run.output).toBe(`${"y\n".repeat(12_800)}${marker}\n${"y\n".repeat(12_795)}\nTHE-END\n`);
    expect(Buffer.byteLength(run.output)).toBeLessThan(51_200 + 200);
    expect(peak).toBeLessThan(150 * 1024 * 1024);
  });

  it("maxOutputBytes sets the cap", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, maxOutputBytes: 10 });
    const result = await bash.execute({ command: "printf 0123456789ABCDEFGHIJ" });
    expect(result.output).toBe(
      "01234\n\n[output truncated: 10 of 20 bytes omitted here; the limit is 10 bytes]\n\nFGHIJ",
    );
  });

  it("cancelling the run kills the command's group", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 200 });
    const controller = new AbortController();
    const running = callThroughClient(
      [bash],
      "bash",
      { command: "sleep 30 & echo $$ $! > pids; wait" },
      { signal: controller.signal },
    );
    const pidFile = path.join(box.root, "pids");
    while ((await readFile(pidFile, "utf8").catch(() => "")).split(/\s+/).length < 3) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(RunCancelledError);
    expect(await waitUntilDead(await pidsIn(pidFile), 3_000)).toEqual([]);
  });

  it("a command's leftover background processes are stopped when it exits", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 200 });
    const result = await bash.execute({
      command: "sleep 30 > /dev/null 2>&1 & echo $! > pid; echo done",
    });
    expect(result.output).toBe("done\n");
    expect(await waitUntilDead(await pidsIn(path.join(box.root, "pid")), 3_000)).toEqual([]);
  });

  it("honours ctx.timeout and ctx.signal when called directly", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false, killGraceMs: 100 });
    const timed = await bash.execute({ command: "sleep 10" }, { timeout: 200 });
    expect(timed.output).toBe("bash: command timed out after 200ms\n");
    const cancelled = await bash.execute({ command: "sleep 10" }, { signal: AbortSignal.abort() });
    expect(cancelled).toEqual({ output: "bash: cancelled", isError: true });
  });

  it("rejects bad arguments with a clear error", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    expect((await bash.execute({})).output).toBe("bash: command is required");
    expect((await bash.execute({ command: 1 })).output).toBe("bash: command must be a string");
    expect((await bash.execute({ command: "true", timeout: -1 })).output).toBe(
      "bash: timeout must be greater than 0",
    );
  });
});
