// pnpm bench:streaming — the CPU one Chat Completions stream costs its reader. A server in its
// own process answers every request with a recorded-shape stream of about 5,000 events (1.6 MB)
// in one burst from 127.0.0.1; this process reads it whole with each contender and counts its
// own CPU time (process.cpuUsage, user + system) per stream:
//   - floor: fetch, TextDecoder, split on "\n\n", JSON.parse of each data line, nothing else;
//   - toolnexus: `openai({ baseUrl }).stream(request)` from @toolnexus/openai, every part read;
//   - openai SDK: `chat.completions.create({ stream: true })`, every chunk read — only when the
//     official `openai` package is in bench's dependency tree (it comes with @openai/agents).
// Rounds interleave the contenders (the order rotates each round) on both streams, text and one
// tool call; a ratio is the median of the per-round ratios to the floor of the same round.
//
//   node --expose-gc streaming/run.mjs [--rounds 40] [--warmup 15] [--only floor,toolnexus] [--gc]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import { parseArgs } from "node:util";
import { openai } from "@toolnexus/openai";
import { median, spread } from "../src/stats.mjs";
import { chatStream } from "./fixture.mjs";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "40" },
    warmup: { type: "string", default: "15" },
    only: { type: "string" },
    gc: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(args.rounds);
const WARMUP = Number(args.warmup);
const GC = args.gc;
const STREAMS = ["text", "tool"];
const fixture = Object.fromEntries(STREAMS.map((kind) => [kind, chatStream(kind)]));

/** The official SDK as @openai/agents resolves it, or undefined when it is not installed. */
async function officialSdk() {
  try {
    const fromBench = createRequire(import.meta.url);
    const agents = createRequire(fromBench.resolve("@openai/agents"));
    const agentsOpenai = createRequire(agents.resolve("@openai/agents-openai"));
    const path = agentsOpenai.resolve("openai");
    const mod = await import(path);
    const version = createRequire(path)("openai/version").VERSION;
    return { OpenAI: mod.default ?? mod.OpenAI, version };
  } catch {
    return undefined;
  }
}

const server = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
  stdio: ["pipe", "pipe", "inherit"],
});
const port = await new Promise((resolve, reject) => {
  server.stdout.once("data", (data) => resolve(Number(String(data).trim())));
  server.once("exit", (code) => reject(new Error(`the stream server exited (${code})`)));
});
const base = (kind) => `http://127.0.0.1:${port}/${kind}`;
const request = {
  messages: [{ role: "user", content: "Write the notes." }],
  tools: [],
};

/** Reads one stream; resolves to what it assembled, for the check that all of it was read. */
const contenders = {
  async floor(kind) {
    const response = await fetch(`${base(kind)}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: request.messages }),
    });
    const decoder = new TextDecoder();
    let buffered = "";
    let count = 0;
    for await (const bytes of response.body) {
      buffered += decoder.decode(bytes, { stream: true });
      const events = buffered.split("\n\n");
      buffered = events.pop();
      for (const event of events) {
        const data = event.slice(6);
        if (data === "[DONE]") continue;
        JSON.parse(data);
        count++;
      }
    }
    return count + 1;
  },
  async toolnexus(kind) {
    const model = openai({ model: "gpt-4o-mini", baseUrl: base(kind), apiKey: "sk-bench" });
    let count = 0;
    let finish;
    for await (const part of model.stream(request)) {
      count++;
      if (part.type === "finish") finish = part.response;
    }
    if (kind === "text" && finish.text.length < 20_000) throw new Error("text not read whole");
    if (kind === "tool" && finish.toolCalls[0]?.name !== "write_file") {
      throw new Error("tool call not assembled");
    }
    return count;
  },
};
const sdk = await officialSdk();
if (sdk !== undefined) {
  contenders.openaiSdk = async (kind) => {
    const client = new sdk.OpenAI({ baseURL: base(kind), apiKey: "sk-bench", maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let count = 0;
    for await (const _chunk of stream) count++;
    return count + 1;
  };
}
const only = args.only?.split(",");
const names = Object.keys(contenders).filter((name) => only === undefined || only.includes(name));
if (!names.includes("floor")) names.unshift("floor");

async function cpuOf(name, kind) {
  // --gc: a full collection before each stream, then a pause for V8's background sweeping.
  // Not the default: a forced collection shrinks the young generation, so the stream that
  // follows pays for many more scavenges than it would in a running process (process.cpuUsage
  // counts every thread, the parallel scavenger's included).
  if (GC) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  const before = process.cpuUsage();
  const count = await contenders[name](kind);
  const used = process.cpuUsage(before);
  if (name !== "toolnexus" && count !== fixture[kind].events) {
    throw new Error(`${name} read ${count} of ${fixture[kind].events} events`);
  }
  return (used.user + used.system) / 1000;
}

const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
const loadStart = load();
process.stderr.write(
  `streaming: ${names.join(", ")}${sdk ? ` (openai ${sdk.version})` : ""}; ${WARMUP} warm-up + ${ROUNDS} rounds; load ${loadStart}\n`,
);
const samples = Object.fromEntries(
  STREAMS.map((kind) => [kind, Object.fromEntries(names.map((n) => [n, []]))]),
);
for (let round = -WARMUP; round < ROUNDS; round++) {
  for (const kind of STREAMS) {
    const shift = (round + WARMUP) % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      const ms = await cpuOf(name, kind);
      if (round >= 0) samples[kind][name].push(ms);
    }
  }
}
const loadEnd = load();
server.stdin.end();

const lines = [
  `Streaming, Node ${process.versions.node}, ${ROUNDS} interleaved rounds${GC ? " (forced GC before each)" : ""}, load average ${loadStart} → ${loadEnd}`,
  "",
  "| stream | events | bytes | contender | CPU ms per stream (median, p25–p75) | × floor (median of per-round ratios) |",
  "|---|---|---|---|---|---|",
];
const result = { node: process.versions.node, rounds: ROUNDS, loadStart, loadEnd, streams: {} };
for (const kind of STREAMS) {
  const floor = samples[kind].floor;
  result.streams[kind] = { events: fixture[kind].events, bytes: fixture[kind].bytes.length };
  for (const name of names) {
    const ms = samples[kind][name];
    const ratio = median(ms.map((m, i) => m / floor[i]));
    const s = spread(ms);
    result.streams[kind][name] = { ...s, ratio };
    lines.push(
      `| ${kind} | ${fixture[kind].events} | ${fixture[kind].bytes.length} | ${name === "openaiSdk" ? `openai ${sdk.version}` : name} | ${s.median.toFixed(2)} (${s.p25.toFixed(2)}–${s.p75.toFixed(2)}) | ${ratio.toFixed(2)}× |`,
    );
  }
}
process.stdout.write(`${lines.join("\n")}\n`);
if (process.env.BENCH_STREAMING_JSON) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(process.env.BENCH_STREAMING_JSON, JSON.stringify({ ...result, samples }, null, 2));
}
