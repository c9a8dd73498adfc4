// The markdown report of `pnpm bench:events`, from the figures run.mjs writes.
const ms = (v) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : "n/a");
const kib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : "n/a");
const int = (v) => Math.round(v).toLocaleString("en-US");

// Below a few hundred followers, the memory delta is mostly the collector's noise.
const few = (r) => (r.followers ?? r.runs) < 200;

const calls = (counts) =>
  Object.entries(counts ?? {})
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");

function storeSection(name, s, config) {
  if (s.skipped) return [`## ${name}`, "", `Skipped: ${s.skipped}.`, ""];
  const c = s.stepCost.summary;
  const lines = [
    `## ${name}`,
    "",
    "### Cost per durable step, events on against off",
    "",
    `Median of ${s.stepCost.ratios.length} interleaved rounds, each ${s.stepCost.runsPerSample} sequential durable runs of ${s.stepCost.steps} steps (one model turn + one tool call, journaled) per mode. Events off = the same store with \`appendEvents\`/\`readEvents\`/\`watchEvents\` hidden: the loop records none of its events, the store still writes its own (${s.stepCost.eventsPerRunOff} events a run against ${s.stepCost.eventsPerRunOn}).`,
    "",
    "| per step, events on | per step, events off | on / off (interquartile range) |",
    "|---:|---:|---:|",
    `| ${ms(c.onMs)} | ${ms(c.offMs)} | ${c.ratio.toFixed(2)}× (${c.ratioQ1.toFixed(2)}–${c.ratioQ3.toFixed(2)}) |`,
    "",
    `Store calls per run (${s.stepCost.steps} steps): events on ${calls(s.stepCost.callsPerRun_on)}; off ${calls(s.stepCost.callsPerRun_off)}.`,
    "",
    "### Concurrent runs, each followed",
    "",
    `Runs started at once by ${config.workers} worker processes (${config.steps} steps each, the tool waits ${config.toolMs} ms), parked before their first turn until every follower had received the run's \`started\` event, then let go together. Latency: from the worker's clock when the tool returned (stamped in its output) to the follower receiving the \`tool_result\` event; it includes the event waiting for the step's journal write, which carries it. Memory: this process's heap and RSS after a full GC, with every follower connected and idle, minus before, per follower.`,
    "",
    "| follower | runs (failed) | followers (failed or cut) | events recorded after go | recorded/s | delivered/s | tool_result latency p50 | p99 | max | `at` to receipt p50 / p99 | heap per follower | RSS per follower |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [label, r] of [
    ["in-process `followRunEvents`", s.inProcess],
    ["in-process, light load", s.light],
    ...(s.sse ?? []).map((r) => [
      `SSE clients, ${r.followers / r.runs} per run (\`@toolnexus/web\` on node:http, clients in another process)`,
      r,
    ]),
  ]) {
    if (!r) continue;
    const t = r.latency.toolResult;
    const a = r.latency.recordedAt;
    lines.push(
      `| ${label} | ${int(r.runs)} (${r.failed}) | ${int(r.followers ?? r.runs)} (${r.followersFailed ?? 0}) | ${int(r.events)} | ${int(r.eventsPerSecond)} | ${int(r.deliveredPerSecond)} | ${ms(t.p50)} | ${ms(t.p99)} | ${ms(t.max)} | ${ms(a.p50)} / ${ms(a.p99)} | ${few(r) ? "too few to measure" : kib(r.memory.heapPerFollower)} | ${few(r) ? "" : kib(r.memory.rssPerFollower)} |`,
    );
  }
  for (const r of [s.inProcess, s.light, ...(s.sse ?? [])]) {
    if (r?.firstError) {
      lines.push(
        "",
        `With ${int(r.followers)} followers, the first error: \`${r.firstError.split("\n")[0]}\``,
      );
    }
    if (r?.serverErrors) {
      lines.push(
        "",
        `With ${int(r.followers)} SSE clients, the handler reported ${int(r.serverErrors)} errors, the first: \`${r.firstServerError}\``,
      );
    }
  }
  lines.push("");
  return lines;
}

export function render(results) {
  const { machine: m, config } = results;
  return [
    "# Run events: recording and following",
    "",
    `\`pnpm bench:events${config.quick ? " --quick" : ""}\`, ${m.date.slice(0, 10)}: ${m.cpus} cores (${m.cpu}), ${m.memGiB} GiB, Node ${m.node}${m.postgres ? `, ${m.postgres} (throwaway cluster, fsync off, on the same machine)` : ""}; load average (1 min) ${m.loadStart.toFixed(1)} at the start, ${m.loadEnd.toFixed(1)} at the end; ${m.seconds} s. A shared, noisy machine: read the figures as orders of magnitude.`,
    "",
    ...Object.entries(results.stores).flatMap(([name, s]) =>
      storeSection(name === "postgres" ? "PostgreSQL" : "SQLite", s, config),
    ),
  ].join("\n");
}
