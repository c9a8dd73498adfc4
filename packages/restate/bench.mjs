// Restate's figures for bench/engines (H2's harness imports restateEngine through
// bench/engines/restate.mjs): the bench agent (bench/engines/workload.mjs) as a Restate workflow,
// served by the SDK in this process, on a restate-server started here on free ports (its journal
// in a temp dir). `steps()` runs 2n + 1 durable steps through the ingress; `cycle()` starts a run
// that asks, answers it through the ingress once it waits, and waits for its end.
//
//   node packages/restate/bench.mjs [runs]   (after building @toolnexus/restate): figures alone
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endpoint } from "@restatedev/restate-sdk";
import { createClient } from "@toolnexus/client";
import {
  ASK_PROMPT,
  benchModel,
  benchTools,
  finalOf,
  MAX_TURNS,
  STEP_PROMPT,
  STEPS_PER_RUN,
} from "../../bench/engines/workload.mjs";
import { answerRun, toolnexusWorkflow, waitingRequests } from "./dist/index.js";

const BIN = join(import.meta.dirname, "node_modules", ".bin", "restate-server");

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(probe) {
  for (let i = 0; i < 2000; i++) {
    try {
      if (await probe()) return;
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("restate-server did not come up");
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

export async function restateEngine() {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-restate-"));
  const [node, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(
    join(dir, "config.toml"),
    [
      'cluster-name = "toolnexus-bench"',
      "default-num-partitions = 4",
      `bind-address = "127.0.0.1:${node}"`,
      `advertised-address = "http://127.0.0.1:${node}/"`,
      "[admin]",
      `bind-address = "127.0.0.1:${admin}"`,
      "disable-web-ui = true",
      "[ingress]",
      `bind-address = "127.0.0.1:${ingress}"`,
    ].join("\n"),
  );
  const server = spawn(
    BIN,
    [
      "--config-file",
      join(dir, "config.toml"),
      "--base-dir",
      join(dir, "data"),
      "--listen-mode",
      "tcp",
      "--no-logo",
    ],
    // Its own process group: the .bin launcher starts the real server as a child, and close()
    // must stop both.
    { stdio: "ignore", detached: true },
  );
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  await until(async () => (await fetch(`${adminUrl}/health`)).ok);
  const client = createClient({ model: benchModel(), tools: benchTools(), maxTurns: MAX_TURNS });
  const bound = endpoint()
    .bind(toolnexusWorkflow({ client }))
    // The SDK logs each invocation at INFO; a bench shows only what goes wrong.
    .setLogger((meta, message, ...rest) => {
      if (meta.level === "warn" || meta.level === "error") console.error(message, ...rest);
    });
  const service = http2.createServer(bound.http2Handler());
  await new Promise((resolve) => service.listen(0, "127.0.0.1", resolve));
  await until(async () => {
    await post(`${adminUrl}/deployments`, {
      uri: `http://127.0.0.1:${service.address().port}`,
      force: true,
    });
    return true;
  });
  let runs = 0;
  const runId = () => `restate-${process.pid}-${++runs}`;
  return {
    name: "toolnexus on Restate",
    async steps() {
      const done = await post(`${ingressUrl}/toolnexus/${runId()}/run`, { prompt: STEP_PROMPT });
      if (done.status !== "done") throw new Error(`restate steps ended ${done.status}`);
    },
    async cycle() {
      const id = runId();
      const finished = post(`${ingressUrl}/toolnexus/${id}/run`, { prompt: ASK_PROMPT });
      let waiting = [];
      // The question is listed once the run waits: ask for it until it is.
      while (waiting.length === 0) waiting = await waitingRequests(ingressUrl, id);
      await answerRun(ingressUrl, id, { id: waiting[0].request.id, ok: true, data: { token: id } });
      const done = await finished;
      if (done.text !== finalOf(ASK_PROMPT, `approved ${id}`)) {
        throw new Error(`restate cycle ended ${JSON.stringify(done.text)}`);
      }
    },
    async close() {
      service.close();
      const exited = new Promise((resolve) => server.once("exit", resolve));
      process.kill(-server.pid, "SIGKILL");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Per-step and per-cycle ms, measured alone (bench/engines/run.mjs compares the engines). */
export { STEPS_PER_RUN };

if (process.argv[1] === import.meta.filename) {
  const runs = Number(process.argv[2] ?? 20);
  const engine = await restateEngine();
  try {
    for (let i = 0; i < 5; i++) {
      await engine.steps();
      await engine.cycle();
    }
    let t = performance.now();
    for (let i = 0; i < runs; i++) await engine.steps();
    const step = (performance.now() - t) / (runs * STEPS_PER_RUN);
    t = performance.now();
    for (let i = 0; i < runs; i++) await engine.cycle();
    const cycle = (performance.now() - t) / runs;
    console.log(JSON.stringify({ engine: engine.name, runs, msPerStep: step, msPerCycle: cycle }));
  } finally {
    await engine.close();
  }
}
