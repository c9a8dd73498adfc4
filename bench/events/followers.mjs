// Scenario 2: many concurrent durable runs, each followed. Worker processes start the runs and
// park each before its first turn; this process connects one follower per run (in-process
// `followRunEvents`, or SSE clients in another process through @toolnexus/web served from this
// one), measures its memory before and after, then lets the runs go and times every delivery.
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { followRunEvents } from "@toolnexus/core";
import { createWebHandler } from "@toolnexus/web";
import { toNodeListener } from "@toolnexus/web/node";
import { memory, now, quantile, stampOf } from "./common.mjs";

const TERMINAL = new Set(["done", "failed", "cancelled"]);

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** A child process whose messages resolve the promise of their type. */
function child(file, args) {
  const proc = fork(here(file), [JSON.stringify(args)], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiters = new Map();
  const got = new Map();
  proc.on("message", (message) => {
    got.set(message.type, message);
    waiters.get(message.type)?.(message);
  });
  // "close": after the process ended and its IPC channel closed (its last messages are in).
  const exited = new Promise((resolve) => proc.once("close", resolve));
  return {
    proc,
    send: (message) => proc.send(message),
    when: (type) =>
      got.has(type)
        ? Promise.resolve(got.get(type))
        : Promise.race([
            new Promise((resolve) => waiters.set(type, resolve)),
            exited.then((code) => {
              throw new Error(`${file} exited (${code}) before "${type}"`);
            }),
          ]),
  };
}

function startWorkers(spec, runIds, { workers, steps, toolMs, poolSize }) {
  const share = Math.ceil(runIds.length / workers);
  const procs = [];
  for (let w = 0; w < workers; w++) {
    const ids = runIds.slice(w * share, (w + 1) * share);
    if (ids.length > 0)
      procs.push(child("worker.mjs", { store: spec, runIds: ids, steps, toolMs, poolSize }));
  }
  return {
    parked: () => Promise.all(procs.map((p) => p.when("parked"))),
    go: () => {
      for (const p of procs) p.send({ type: "go" });
    },
    done: () => Promise.all(procs.map((p) => p.when("done"))),
  };
}

function summarize({
  n,
  followers = n,
  connected = followers,
  clientsError,
  events,
  windowMs,
  stampLatency,
  atLatency,
  before,
  after,
  workers,
  clientsFailed,
}) {
  const failed = workers.reduce((sum, w) => sum + w.failed, 0);
  return {
    runs: n,
    followers,
    failed,
    // Followers that failed or ended early; connected: those that got as far as `started`.
    followersFailed: clientsFailed ?? 0,
    connected,
    firstError: clientsError ?? workers.find((w) => w.firstError)?.firstError,
    // Each run's events reach all of its followers: recorded = delivered / followers per run.
    events: events / (followers / n),
    windowMs,
    eventsPerSecond: events / (followers / n) / (windowMs / 1000),
    deliveredPerSecond: events / (windowMs / 1000),
    latency: {
      toolResult: {
        count: stampLatency.length,
        p50: quantile(stampLatency, 0.5),
        p99: quantile(stampLatency, 0.99),
        max: quantile(stampLatency, 1),
      },
      recordedAt: {
        count: atLatency.length,
        p50: quantile(atLatency, 0.5),
        p99: quantile(atLatency, 0.99),
      },
    },
    memory: {
      heapPerFollower: (after.heapUsed - before.heapUsed) / followers,
      rssPerFollower: (after.rss - before.rss) / followers,
      before,
      after,
    },
    workerRss: workers.map((w) => w.rss),
  };
}

const ids = (label, n) => {
  const tag = Math.random().toString(36).slice(2, 8);
  return Array.from({ length: n }, (_, i) => `bench-${label}-${tag}-${i}`);
};

/** One in-process follower (`followRunEvents`) per run. */
export async function inProcessFollowers(store, spec, options) {
  const runIds = ids("ip", options.runs);
  const workers = startWorkers(spec, runIds, options);
  await workers.parked();
  const before = await memory();
  let connected = 0;
  let allConnected;
  const connectedAll = new Promise((resolve) => {
    allConnected = resolve;
  });
  let goAt = 0;
  let events = 0;
  let lastAt = 0;
  const stampLatency = [];
  const atLatency = [];
  let failed = 0;
  let firstError;
  let settled = 0;
  const settle = () => {
    if (++settled === runIds.length) allConnected();
  };
  const follows = runIds.map(async (runId) => {
    let seenStart = false;
    let ended = false;
    try {
      for await (const event of followRunEvents(store, runId)) {
        const at = now();
        // Runs are parked right after `started`: every other event comes after "go".
        if (event.type !== "started") {
          events++;
          lastAt = at;
        }
        if (!seenStart && event.type === "started") {
          seenStart = true;
          connected++;
          settle();
        }
        if (TERMINAL.has(event.type)) ended = true;
        const recorded = Date.parse(event.at);
        if (event.type !== "started") atLatency.push(at - recorded);
        if (event.type === "tool_result") {
          const stamp = stampOf(event);
          if (stamp !== undefined) stampLatency.push(at - stamp);
        }
      }
      if (!ended) throw new Error(`following ${runId} ended before the run's end`);
    } catch (error) {
      failed++;
      firstError ??= String(error?.message ?? error);
      if (!seenStart) settle();
    }
  });
  await connectedAll;
  const after = await memory();
  goAt = now();
  workers.go();
  const done = await workers.done();
  await Promise.all(follows);
  return summarize({
    n: runIds.length,
    events,
    windowMs: lastAt - goAt,
    stampLatency,
    atLatency,
    before,
    after,
    workers: done,
    clientsFailed: failed,
    clientsError: firstError,
    connected,
  });
}

/** One SSE client per run, in a process of its own, through @toolnexus/web served here. */
export async function sseFollowers(store, spec, options) {
  const handler = createWebHandler({
    store,
    identify: (request) =>
      request.headers.get("authorization") === "Bearer bench" ? { id: "bench" } : undefined,
    allow: () => true,
    onError: (error) => {
      serverErrors++;
      firstServerError ??= String(error?.message ?? error);
    },
  });
  let serverErrors = 0;
  let firstServerError;
  const server = createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const runIds = ids("sse", options.runs);
    const workers = startWorkers(spec, runIds, options);
    await workers.parked();
    const before = await memory();
    const perRun = options.ssePerRun ?? 1;
    const clients = child("sse-clients.mjs", {
      base: `http://127.0.0.1:${server.address().port}`,
      runIds,
      perRun,
    });
    const { connected } = await clients.when("connected");
    const after = await memory();
    const goAt = now();
    workers.go();
    const done = await workers.done();
    const report = await clients.when("done");
    const result = summarize({
      n: runIds.length,
      followers: runIds.length * perRun,
      events: report.eventsAfterGo,
      windowMs: report.lastAt - goAt,
      stampLatency: report.stampLatency,
      atLatency: report.atLatency,
      before,
      after,
      workers: done,
      clientsFailed: report.failed,
      clientsError: report.firstError,
      connected,
    });
    result.serverErrors = serverErrors;
    result.firstServerError = firstServerError;
    result.clientRss = report.rss;
    return result;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
