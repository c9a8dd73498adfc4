// The bench's markdown report, from the JSON figures each section's process printed.
import { median, roundRatios } from "./stats.mjs";

const SCENARIOS = ["s1", "s2", "s3", "s5"];

export const fmtUs = (us) =>
  us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(us >= 100 ? 0 : 1)} µs`;
export const fmtBytes = (bytes) =>
  bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${Math.round(bytes)} B`;
export const fmtX = (ratio) =>
  `${ratio >= 100 ? ratio.toFixed(0) : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
const bare = (ratio) =>
  ratio >= 100 ? ratio.toFixed(0) : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2);
/** `31× (29–33; 27–36)`: the median, the interquartile range and the extremes of the rounds. */
export const fmtSpread = (s) =>
  `${fmtX(s.median)} (${bare(s.p25)}–${bare(s.p75)}; ${bare(s.min)}–${bare(s.max)})`;
const fmtLoad = (load) => load.map((value) => value.toFixed(1)).join(" ");

const table = (header, rows) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");

/** Medians over rounds, per library, of a scenario's wall-clock or CPU samples. */
export const medians = (scenario, what = "wall") => scenario[what].map(median);

/** Per-round ratios of every library to library `base` (wall-clock by default). */
export const ratiosTo = (scenario, base, what = "wall") => roundRatios(scenario[what], base);

/** Figures a README or a reader wants from one section, computed the way the report does. */
export function summary(shared, alone) {
  const iTN = 0;
  const iFloor = shared.libs.length - 1;
  const out = { node: shared.node, peers: {}, floor: {}, floorAlone: {}, toolnexus: {} };
  for (const key of SCENARIOS) {
    const scenario = shared.scenarios[key];
    const toTN = ratiosTo(scenario, iTN);
    out.toolnexus[key] = median(scenario.wall[iTN]);
    for (let i = 1; i < iFloor; i++) {
      const lib = shared.libs[i];
      out.peers[lib.key] ??= { name: lib.name, version: lib.version };
      out.peers[lib.key][key] = { us: median(scenario.wall[i]), ...strip(toTN[i]) };
    }
    out.floor[key] = strip(ratiosTo(scenario, iFloor)[iTN]);
    if (alone !== undefined) {
      const a = alone.scenarios[key];
      out.floorAlone[key] = {
        toolnexusUs: median(a.wall[0]),
        floorUs: median(a.wall[a.wall.length - 1]),
        ...strip(ratiosTo(a, a.wall.length - 1)[0]),
      };
    }
  }
  return out;
}
const strip = ({ ratios, ...rest }) => rest;

function sectionReport(shared, alone, cpuWarnings) {
  const libs = shared.libs;
  const iTN = 0;
  const iFloor = libs.length - 1;
  const sc = shared.scenarios;
  const labels = SCENARIOS.map((key) => sc[key].label);
  const out = [];
  const title = shared.section?.title ?? "section";
  out.push(`## Node ${shared.node}: ${title.replace(/^Node \d+, /, "")}`);
  out.push("");
  out.push(
    `${libs
      .slice(1, -1)
      .map((lib) => `${lib.name} \`${lib.version}\``)
      .join(
        ", ",
      )}, next to toolnexus \`${libs[0].version}\` (the workspace packages) and the floor. ` +
      `Load average (1, 5, 15 min) at the start ${fmtLoad(shared.load.start)}, at the end ${fmtLoad(shared.load.end)}; ` +
      `${shared.seconds} s${alone === undefined ? "" : `, and ${alone.seconds} s for the run alone`}.`,
  );
  out.push("");

  out.push("### Wall-clock time per run");
  out.push("");
  out.push("Median over the rounds of each library's samples.");
  out.push("");
  out.push(
    table(
      ["library", ...labels, "S4 heap per in-flight run", "S5 checkpoint"],
      libs.map((lib, i) => [
        lib.name,
        ...SCENARIOS.map((key) => fmtUs(median(sc[key].wall[i]))),
        shared.s4 === undefined ? "n/a" : fmtBytes(shared.s4.bytes[i]),
        shared.s5bytes[i] === undefined ? "n/a" : fmtBytes(shared.s5bytes[i]),
      ]),
    ),
  );
  out.push("");

  out.push("### How many times toolnexus's time each library takes");
  out.push("");
  out.push(
    "Wall-clock. In every round, the library's sample over toolnexus's sample of the same round; " +
      "then the median of those per-round ratios, (the interquartile range; the lowest and highest round).",
  );
  out.push("");
  out.push(
    table(
      ["library", ...labels],
      libs
        .map((lib, i) => [i, lib])
        .filter(([i]) => i !== iTN)
        .map(([i, lib]) => [
          lib.name,
          ...SCENARIOS.map((key) => fmtSpread(ratiosTo(sc[key], iTN)[i])),
        ]),
    ),
  );
  out.push("");
  if (shared.s4 !== undefined) {
    const heap = shared.s4.bytes;
    out.push(
      `S4 heap per in-flight run against toolnexus's: ${libs
        .slice(1)
        .map((lib, j) => `${lib.name} ${fmtX(heap[j + 1] / heap[iTN])}`)
        .join(
          ", ",
        )} (median of ${shared.s4.rounds} round${shared.s4.rounds === 1 ? "" : "s"} of ${shared.s4.runs} runs).`,
    );
    out.push("");
  }

  out.push("### toolnexus against the floor (the hand-written loop)");
  out.push("");
  out.push(
    "toolnexus's wall-clock time over the floor's, per round, summarized as above. In the shared " +
      "process the peers' heap and garbage slow every microsecond-scale loop, the floor (the " +
      "smallest) the most, which flatters toolnexus; the run alone (a process that loads no peer) " +
      "is the ratio a user of toolnexus sees.",
  );
  out.push("");
  const floorRows = [
    ["shared process", ...SCENARIOS.map((key) => fmtSpread(ratiosTo(sc[key], iFloor)[iTN]))],
  ];
  if (alone !== undefined) {
    const a = alone.scenarios;
    const last = alone.libs.length - 1;
    floorRows.push(["alone", ...SCENARIOS.map((key) => fmtSpread(ratiosTo(a[key], last)[0]))]);
    floorRows.push([
      "alone: toolnexus / floor µs",
      ...SCENARIOS.map(
        (key) => `${fmtUs(median(a[key].wall[0]))} / ${fmtUs(median(a[key].wall[last]))}`,
      ),
    ]);
  }
  out.push(table(["toolnexus / floor", ...labels], floorRows));
  out.push("");

  out.push("### CPU time per run");
  out.push("");
  out.push(
    "Median over the rounds of `process.cpuUsage()` per run (user + system), and its ratio to the " +
      "wall-clock median. `process.cpuUsage()` counts every thread of the process: V8's background " +
      "compiler and garbage-collector threads run beside the main thread, so CPU time can exceed " +
      "wall-clock time on a multi-core machine, and a library that makes more garbage or more code " +
      "to compile is charged for that work however much of it overlaps. Wall-clock is the headline.",
  );
  out.push("");
  out.push(
    table(
      ["library", ...labels],
      libs.map((lib, i) => [
        lib.name,
        ...SCENARIOS.map((key) => {
          const cpu = median(sc[key].cpu[i]);
          return `${fmtUs(cpu)} (${(cpu / median(sc[key].wall[i])).toFixed(2)}× wall)`;
        }),
      ]),
    ),
  );
  out.push("");
  if (cpuWarnings.length > 0) {
    out.push(`CPU time only, not failing the bench: ${cpuWarnings.join("; ")}.`);
    out.push("");
  }

  out.push(`### S3: one turn at the start and at the end of a ${shared.longTurns}-turn run`);
  out.push("");
  out.push(
    "Wall-clock time from asking the model for turn k to asking it for turn k + 1 (the loop " +
      "around one tool call), median over every measured run.",
  );
  out.push("");
  out.push(
    table(
      ["library", "turn 1", `turn ${shared.longTurns}`, `turn ${shared.longTurns} / turn 1`],
      libs.map((lib, i) => [
        lib.name,
        fmtUs(shared.s3turns[i].first),
        fmtUs(shared.s3turns[i].last),
        fmtX(shared.s3turns[i].last / shared.s3turns[i].first),
      ]),
    ),
  );
  out.push("");

  out.push("### Warm-up and samples");
  out.push("");
  out.push(
    `Pre-warm (S1, S2, S5 in turn): ${shared.prewarm === undefined ? "none" : libs.map((lib, i) => `${lib.name} ${shared.prewarm[i].cycles.toLocaleString("en-US")} cycles`).join(", ")}. ` +
      "Then the runs and time each library was warmed up for before its first measured sample (batches of " +
      `five samples until two consecutive batch medians agreed within ${(shared.warm.tolerance * 100).toFixed(0)} %), ` +
      "and the runs in each measured sample. Rounds: " +
      SCENARIOS.map(
        (key) => `${sc[key].label} ${sc[key].rounds} of ${sc[key].sampleMs} ms samples`,
      ).join(", ") +
      ".",
  );
  out.push("");
  const warmCell = (w, n) =>
    `${w.runs.toLocaleString("en-US")} runs, ${(w.ms / 1000).toFixed(1)} s${w.settled ? "" : " (**cap, not settled**)"}; ${n.toLocaleString("en-US")}/sample`;
  out.push(
    table(
      ["library", ...labels],
      libs.map((lib, i) => [
        lib.name,
        ...SCENARIOS.map((key) => warmCell(sc[key].warm[i], sc[key].runsPerSample[i])),
      ]),
    ),
  );
  out.push("");
  return out.join("\n");
}

/**
 * The whole report. `sections`: `{ shared, alone }` per section; `meta`: `{ date, machine,
 * command, seconds, quick, failures, cpuWarnings }`.
 */
export function renderReport(sections, meta) {
  const parts = [];
  parts.push("# toolnexus bench");
  parts.push("");
  parts.push(
    `Measured ${meta.date} UTC on ${meta.machine}, with \`${meta.command}\` (${meta.seconds} s in all).`,
  );
  parts.push("");
  if (meta.quick) {
    parts.push(
      "**Quick mode**: fewer, shorter rounds and a shorter warm-up; for a look, not for quoting.",
    );
    parts.push("");
  }
  if (meta.failures.length > 0) {
    parts.push("**The sanity check failed**, so these figures are not to be trusted:");
    parts.push("");
    for (const failure of meta.failures) parts.push(`- ${failure}`);
    parts.push("");
  }
  parts.push(
    [
      "Every model is an in-memory script (no network); each library really runs the tool and",
      "produces the final text, or the bench throws. Method, per section (one process per section):",
      "",
      "- Warm-up: first every library cycles through S1, S2 and S5 for 8 s (1.5 s in quick mode; the scenarios share most",
      "  of a library's code; without it the scenario measured first catches the slow libraries",
      "  still tiering up). Then, before each scenario, every library runs it in batches of five timed samples until two",
      "  consecutive batch medians agree within 3 % (at least three batches and a minimum number of",
      "  runs, thousands for the one-turn scenarios; capped at 20 s), so the JIT has settled for the",
      "  slow libraries as much as for the fast ones. The warm-up table gives what each one took.",
      "- Samples: one sample is as many back-to-back runs as last about 100 ms (300 ms for S3) of",
      "  wall-clock time for that library, so a library a thousand times slower gets as many",
      "  samples, each as long, as the fastest.",
      "- Rounds are interleaved (A B C D E, then B C D E A, …) and every ratio is taken within a",
      "  round, between samples taken moments apart under the same load; the report gives the",
      "  median of those per-round ratios with their interquartile range and extremes.",
      "- Wall-clock time is the headline. CPU time (`process.cpuUsage()`) is reported too; it",
      "  includes V8's background threads, see the CPU tables.",
      "- Sanity check: for every library, one call (S1) must cost less wall-clock time than eight",
      "  parallel calls (S2); when it does not, the bench exits non-zero and names the library.",
      "- toolnexus and the floor are also run alone, in a process that loads no peer.",
    ].join("\n"),
  );
  parts.push("");
  for (const { shared, alone, cpuWarnings } of sections)
    parts.push(sectionReport(shared, alone, cpuWarnings));
  parts.push("## Sanity check");
  parts.push("");
  parts.push(
    meta.failures.length === 0
      ? "Passed: in every section (and alone) every library's S1 wall-clock median is below its S2 median."
      : meta.failures.map((failure) => `- FAILED: ${failure}`).join("\n"),
  );
  parts.push("");
  parts.push(
    [
      "## Scenarios",
      "",
      '- S1: the model asks for `add({"a":2,"b":3})`, the tool returns 5, the model answers.',
      "- S2: eight `add` calls in one turn, run in parallel, then the answer.",
      `- S3: ${sections[0].shared.longTurns} turns of one \`add\` call each, then the answer.`,
      "- S4: 1,000 concurrent runs whose tool awaits a promise the bench resolves later; heap bytes",
      "  per run after a forced GC while all of them wait.",
      "- S5: the tool needs a human; the run halts, its state goes through JSON text and back, and a",
      "  fresh client resumes with the approval; time per full cycle and the persisted bytes.",
      "  toolnexus: a tool returning `pending()`, the in-memory run store (JSON text, answers",
      "  recorded, a lease, the journal); the halted run's checkpoint as JSON text, loaded into a",
      "  fresh `memoryRunStore()` under a fresh `createClient` that `resume`s (a full durable cycle:",
      "  answer recorded, run claimed, call journaled, result stored); the halting store drops the",
      "  run (`cancel`). AI SDK: `needsApproval`",
      "  and the response messages as JSON. OpenAI Agents SDK: `needsApproval` and `RunState`",
      "  `toString`/`fromString`. LangGraph: `interrupt()` in the tool, a `MemorySaver` (bytes:",
      "  everything it keeps for the thread) and `Command({ resume })`. Floor: the transcript and the",
      "  suspended call as JSON.",
      "- Models: toolnexus a `Model` whose calls come through core's `toolCall()`; AI SDK the mock",
      "  language model of `ai/test` (V3 in ai 6, V4 in ai 7; its call log switched off); OpenAI",
      "  Agents SDK a fake `Model` with tracing disabled; LangGraph a `BaseChatModel` subclass under",
      "  `createReactAgent`. Each answers from the last message only. Tools validate `{ a, b }` with",
      "  the same zod schema (the floor checks by hand).",
      "",
    ].join("\n"),
  );
  return parts.join("\n");
}
