// Tasks under SIGKILL: a worker process starts runs whose calls become tasks on the server of
// fixtures/task-server.mjs (each run halts on its task id), and is killed. The tasks complete
// while no worker lives; new workers, themselves killed and restarted, watch the tasks and
// continue the runs. Every run must finish with its task's result, and the server counts how
// often its tool ran: once per run.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { TASK_REQUEST_KIND } from "./index.js";
import { eventually, startTaskServer, type TaskServer } from "./task-support.js";

const RUNS = 8;
const KILLS = 4;
const WORKER = join(import.meta.dirname, "fixtures", "task-worker.ts");

describe("a run waiting on an MCP task survives SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-task-"));
  const db = join(dir, "runs.db");
  const workers: ChildProcess[] = [];
  let server: TaskServer | undefined;
  afterAll(async () => {
    for (const worker of workers) worker.kill("SIGKILL");
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const startWorker = (url: string, targets: string[] = []) => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, db, url, ...targets], {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    workers.push(child);
    return child;
  };
  const linesOf = (child: ChildProcess) => {
    const lines: string[] = [];
    let rest = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const parts = (rest + chunk.toString("utf8")).split("\n");
      rest = parts.pop() ?? "";
      lines.push(...parts);
    });
    return lines;
  };

  it(`${RUNS} runs halted on tasks, their worker SIGKILLed, continued by workers killed ${KILLS} times: every run done with its task's result, each tool run once`, {
    timeout: 180_000,
  }, async () => {
    server = await startTaskServer();
    const { url } = server;
    const targets = Array.from({ length: RUNS }, (_, i) => `app-${i}`);
    // 1. A worker starts the runs: each call becomes a task, each run halts on its task id.
    const first = startWorker(url, targets);
    const said = linesOf(first);
    await eventually(
      async () => said.includes("ready connected"),
      "the first worker's runs",
      60_000,
    );
    const runIds = said.filter((l) => l.startsWith("pending ")).map((l) => l.slice(8));
    expect(runIds).toHaveLength(RUNS);
    const runs = sqliteStore({ path: db, busyTimeoutMs: 30_000 });
    const waiting = await runs.list({ kind: TASK_REQUEST_KIND, state: "waiting" });
    expect(waiting).toHaveLength(RUNS);
    expect((await server.stats()).executions).toBe(RUNS);

    // 2. The worker dies; the tasks complete while nobody is there to see it.
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    await server.finish();

    // 3. Two workers take over; a killer SIGKILLs one at a time and starts another.
    const alive = [startWorker(url), startWorker(url)];
    const allDone = async () => {
      for (const runId of runIds) if ((await runs.getRun(runId))?.state !== "done") return false;
      return true;
    };
    let kills = 0;
    while (kills < KILLS && !(await allDone())) {
      // Each kill waits for progress (one more run done or a poll), never for a time.
      const before = (await server.stats()).gets;
      await eventually(
        async () => (await server!.stats()).gets > before || (await allDone()),
        "a poll",
        60_000,
      );
      const index = kills % alive.length;
      alive[index]!.kill("SIGKILL");
      kills++;
      alive[index] = startWorker(url);
    }
    await eventually(allDone, "every run done", 120_000);
    for (const worker of alive) worker.kill("SIGKILL");

    for (const [i, runId] of runIds.entries()) {
      const info = await runs.getRun(runId);
      expect(info?.result?.text).toBe(`final: built ${targets[i]}`);
    }
    const stats = await server.stats();
    // Nothing ran twice: the task id was durable before any worker died.
    expect(stats.executions).toBe(RUNS);
    console.log(
      `mcp tasks: ${RUNS}/${RUNS} runs done, ${kills + 1} SIGKILLs, ${stats.executions} tool executions, ${stats.gets} tasks/get polls`,
    );
    runs.close();
  });
});
