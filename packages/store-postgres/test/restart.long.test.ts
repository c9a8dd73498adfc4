// Busy processes ride out the database going away: worker processes (client.work) continue
// halted runs while an answering process records answers, and meanwhile the server is restarted
// (pg_ctl restart -m fast: every connection gets 57P01), every backend of the database is
// killed (pg_terminate_backend), and the server is killed outright and started again after two
// seconds down (a failover's outage: connections refused, then crash recovery). No process may
// exit, every run must finish, and no recorded answer may be lost. Its own cluster: the
// restarts would cut the connections of the other test files.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { guard, judgeDurability, stopWorkers } from "@toolnexus/chaos-kit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import {
  type ClusterInfo,
  createDatabase,
  destroyCluster,
  outage,
  restartClusterAsync,
  startCluster,
} from "./cluster.js";
import { startFixture } from "./processes.js";

const RUNS = 300;
const WORKERS = 3;
// Progress (runs done) the test waits for between two disruptions, so each hits busy processes.
const STEP = 25;
const dir = mkdtempSync(join(tmpdir(), "toolnexus-pg-restart-"));
// Removed by the chaos kit's watchdog if this process dies before afterAll.
const releaseDir = guard({ remove: dir });
let cluster: ClusterInfo;
beforeAll(async () => {
  cluster = await startCluster("restart");
}, 120_000);
afterAll(async () => {
  await stopWorkers();
  if (cluster !== undefined) destroyCluster(cluster);
  rmSync(dir, { recursive: true, force: true });
  releaseDir();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `done` now, read on a connection of its own (undefined while the server is away). */
async function doneCount(url: string): Promise<number | undefined> {
  const client = new pg.Client(url);
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM toolnexus.runs WHERE state = 'done'",
    );
    return rows[0]!.n;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

async function waitForDone(url: string, atLeast: number, ms: number): Promise<number> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const done = await doneCount(url);
    if (done !== undefined && (done >= atLeast || Date.now() > giveUpAt)) return done;
    if (Date.now() > giveUpAt) return -1;
    await pause(100);
  }
}

describe("busy processes on postgresStore ride out restarts, killed backends and an outage", () => {
  it(`${RUNS} runs, ${WORKERS} worker processes and an answering process through pg_ctl restart -m fast, pg_terminate_backend of every backend, and a 2 s outage: no process exits, every run finishes, no answer lost`, {
    timeout: 300_000,
  }, async () => {
    const url = await createDatabase(cluster, "restart");
    const logDir = join(dir, "logs");
    mkdirSync(logDir);
    const starter = startFixture("durable-agent.mjs", [
      "start",
      url,
      logDir,
      JSON.stringify({ count: RUNS, prefix: "run", concurrency: 8 }),
    ]);
    await starter.line((v: { startedAll?: boolean }) => v.startedAll === true);
    expect(await starter.exited).toBe(0);

    // Leases long enough that a restart alone does not hand runs to other workers.
    const roles = [
      ...Array.from({ length: WORKERS }, () => ({
        role: "work",
        options: { jitterMs: 40, leaseMs: 5000, pollMs: 200, concurrency: 4 },
      })),
      { role: "answer", options: { paceMs: 25 } },
    ];
    const exits: string[] = [];
    const processes = roles.map(({ role, options }) => {
      const fixture = startFixture("durable-agent.mjs", [
        role,
        url,
        logDir,
        JSON.stringify(options),
      ]);
      void fixture.exited.then((how) => {
        exits.push(
          `${role} ${fixture.child.pid} exited (${how}): ${fixture.stderr().slice(-2000)}`,
        );
      });
      return fixture;
    });
    await Promise.all(processes.map((p) => p.line((v: { ready?: boolean }) => v.ready === true)));

    const doneAt: Record<string, number> = {};
    const stage = (what: string) =>
      console.log(`restart test: ${what}, exits so far ${exits.length}`);
    // 1. A fast restart: every open connection is told 57P01 and closed.
    doneAt.restart = await waitForDone(url, STEP, 120_000);
    stage(`restart at ${doneAt.restart} done`);
    await restartClusterAsync(cluster);
    stage("restarted");
    // 2. Every backend of the database killed, as an operator's pg_terminate_backend does.
    doneAt.terminate = await waitForDone(url, doneAt.restart + STEP, 120_000);
    stage(`terminate at ${doneAt.terminate} done`);
    const admin = new pg.Client(cluster.url);
    admin.on("error", () => {});
    await admin.connect();
    const database = new URL(url).pathname.slice(1);
    const terminated = await admin.query<{ n: number }>(
      // Materialized first: SQL does not promise to test `pid <> pg_backend_pid()` before
      // calling pg_terminate_backend, which could end this very connection.
      `WITH victims AS MATERIALIZED (
         SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid())
       SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM victims`,
      [database],
    );
    await admin.end();
    // 3. A failover's outage: the server dies at once, is down 2 s, comes back.
    doneAt.outage = await waitForDone(url, doneAt.terminate + STEP, 120_000);
    stage(`outage at ${doneAt.outage} done`);
    await outage(cluster, 2000);
    stage("back after the outage");

    const final = await waitForDone(url, RUNS, 180_000);
    for (const fixture of processes) fixture.child.kill("SIGKILL");
    await Promise.all(processes.map((p) => p.exited));
    // The SIGKILLs above are the test's own; an exit before them is a failure.
    const unexpected = exits.filter((line) => !line.includes("exited (SIGKILL)"));

    // What the processes logged (tools started, answers recorded), against the runs stored.
    const store = postgresStore({ connectionString: url });
    const verdict = await judgeDurability({
      runIds: Array.from({ length: RUNS }, (_, i) => `run-${i}`),
      logDir,
      getRun: (id) => store.getRun(id),
    });
    await store.close();
    const report = {
      runs: RUNS,
      finished: verdict.finished,
      toolsRun: verdict.executions,
      answersKept: verdict.answersKept,
      answersLogged: verdict.answersLogged,
      lostAnswers: verdict.lostAnswers,
      doneAt,
      backendsTerminated: terminated.rows[0]!.n,
      processExits: unexpected.length,
    };
    console.log(`postgres restart report: ${JSON.stringify(report)}`);
    expect(unexpected).toEqual([]);
    expect(final).toBe(RUNS);
    expect(verdict.finished).toBe(RUNS);
    expect(verdict.lostAnswers).toBe(0);
    // Each disruption hit processes that still had runs to do.
    expect(doneAt.outage).toBeLessThan(RUNS);
    expect(terminated.rows[0]!.n).toBeGreaterThan(WORKERS);
  });
});
