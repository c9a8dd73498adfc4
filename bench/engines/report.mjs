// The markdown of a `bench:engines` run, from its figures (engines/run.mjs).
const f = (n, d = 2) => n.toFixed(d);
const row = (label, s, d = 2) =>
  `| ${label} | ${f(s.median, d)} | ${f(s.p25, d)} – ${f(s.p75, d)} |`;

export function render(result) {
  const lines = [
    "# Durable engines: `pnpm bench:engines`",
    "",
    "One toolnexus agent (bench/engines/workload.mjs, an in-memory model) on three durable backends,",
    "one process, one machine: our PostgreSQL store, DBOS Transact (its system database on the same",
    "PostgreSQL server) and Restate (a restate-server process, its own journal). A durable step is a",
    "model turn or a tool call recorded before the run moves on (a run of 10 tool calls: 21 steps);",
    "a cycle is a run that asks a human, halts or waits, takes the answer from outside by its request",
    "id and continues to its end. Ratios are taken per round (each round times every engine once,",
    "in a rotating order), then the median and IQR over the rounds.",
    "",
    `${result.at}, ${result.server}, Node ${result.node}; ${result.rounds} rounds, each ${result.runsPerBlock} runs of ${result.stepsPerRun} durable steps and ${result.runsPerBlock} cycles per engine`,
    `load average (1 min) before/after: ${result.load1.map((l) => f(l)).join(" / ")}`,
    "",
    ...result.engines.filter((e) => e.detail).map((e) => `- ${e.name}: ${e.detail}`),
    "",
    "| ms | median | IQR |",
    "|---|---:|---:|",
  ];
  for (const [name, t] of Object.entries(result.times)) {
    lines.push(row(`${name}, per durable step`, t.step, 3));
    lines.push(row(`${name}, per halt/answer/continue cycle`, t.cycle));
  }
  lines.push("", `| ratio to ${result.base} (per round) | median | IQR |`, "|---|---:|---:|");
  for (const [name, r] of Object.entries(result.ratios)) {
    lines.push(row(`${name}, per durable step`, r.step));
    lines.push(row(`${name}, per cycle`, r.cycle));
  }
  const counted = Object.entries(result.statements ?? {});
  if (counted.length > 0) {
    lines.push(
      "",
      "| PostgreSQL statements (round trips) | per durable step | per cycle |",
      "|---|---:|---:|",
    );
    for (const [name, s] of counted) lines.push(`| ${name} | ${f(s.step, 1)} | ${f(s.cycle, 1)} |`);
  }
  return `${lines.join("\n")}\n`;
}
