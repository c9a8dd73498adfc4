// The markdown of a `bench:engines` run, from its figures (engines/run.mjs).
const f = (n, d = 2) => n.toFixed(d);
const row = (label, s, d = 2) =>
  `| ${label} | ${f(s.median, d)} | ${f(s.p25, d)} – ${f(s.p75, d)} |`;

export function render(result) {
  const lines = [
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
  return `${lines.join("\n")}\n`;
}
