// The MCP suspension under SIGKILL: runs halted on a 2026-07-28 server's input_required are
// answered, then continued by worker processes that are killed at random and restarted. Every
// run must finish with its own answer and the server's requestState intact, and the test counts
// how often the server's tool ran.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@toolnexus/client";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { loadMcp } from "./index.js";
import { deployScript, MRTR_SERVER } from "./test-support.js";

const RUNS = 12;
const KILLS = 10;
const WORKER = join(import.meta.dirname, "fixtures", "mcp-worker.ts");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stateOf = (service: string) =>
  JSON.stringify({ service, nonce: "n-\u00e9\u{1F680}-42", round: 1 });

describe("an MCP suspension survives SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-kill-"));
  const db = join(dir, "runs.db");
  const log = join(dir, "deploys.log");
  const workers: ChildProcess[] = [];
  afterAll(() => {
    for (const worker of workers) worker.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  const startWorker = () => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, db], {
      cwd: join(import.meta.dirname, ".."),
      env: { ...process.env, MRTR_LOG: log, MRTR_JITTER_MS: "300" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    workers.push(child);
    return child;
  };

  it(`${RUNS} halted runs, answered, continued by workers SIGKILLed ${KILLS} times: every run done with its answer and requestState`, {
    timeout: 180_000,
  }, async () => {
    // 1. Start the runs here; each halts on the server's question, its requestState kept.
    const mcp = await loadMcp({
      mcpServers: { ops: { command: process.execPath, args: [MRTR_SERVER] } },
    });
    const runs = sqliteStore({ path: db, busyTimeoutMs: 30_000 });
    const client = createClient({ model: deployScript(), tools: mcp.tools(), runs });
    const expected = new Map<string, { service: string; env: string }>();
    for (let i = 0; i < RUNS; i++) {
      const service = `svc-${i}`;
      const halted = await client.run(`deploy ${service}`);
      expect(halted.status).toBe("pending");
      if (halted.status !== "pending") return;
      const env = i % 2 === 0 ? "staging" : "production";
      // 2. Record each answer (nothing runs yet): the workers continue the runs.
      await client.answer({ id: halted.pending.id, ok: true, data: { env } });
      expected.set(halted.runId, { service, env });
    }
    await mcp.close();

    // 3. Two workers continue them; a killer SIGKILLs one at random and starts another.
    const alive = [startWorker(), startWorker()];
    const allDone = async () => {
      for (const runId of expected.keys())
        if ((await client.getRun(runId))?.state !== "done") return false;
      return true;
    };
    let kills = 0;
    while (kills < KILLS && !(await allDone())) {
      await pause(150 + Math.random() * 650);
      const index = Math.floor(Math.random() * alive.length);
      alive[index]!.kill("SIGKILL");
      kills++;
      alive[index] = startWorker();
    }
    // 4. The survivors finish what is left.
    const deadline = Date.now() + 120_000;
    while (!(await allDone())) {
      if (Date.now() > deadline) throw new Error("the runs did not all finish in 120 s");
      await pause(200);
    }
    for (const worker of alive) worker.kill("SIGKILL");

    // Every run finished with its own answer and the server's state, byte for byte.
    let done = 0;
    for (const [runId, { service, env }] of expected) {
      const info = await client.getRun(runId);
      expect(info?.result?.text).toBe(
        `final: deployed ${service} to ${env}; state ${stateOf(service)}`,
      );
      done++;
    }
    // How often the server's tool ran: at least once per run; more only where a worker died
    // between the server's reply and the journal write (MCP calls have no idempotency key).
    const deploys = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { service: string; env: string; state: string });
    for (const { service, env } of expected.values()) {
      const mine = deploys.filter((d) => d.service === service);
      expect(mine.length).toBeGreaterThanOrEqual(1);
      for (const d of mine) expect(d).toEqual({ service, env, state: stateOf(service) });
    }
    const repeated = deploys.length - expected.size;
    console.log(
      `mcp durability: ${done}/${RUNS} runs done, ${RUNS}/${RUNS} answers kept, ${kills} SIGKILLs, ` +
        `${deploys.length} deploy executions (${repeated} repeated after a kill)`,
    );
    runs.close();
  });
});
