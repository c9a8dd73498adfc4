// Machine instructions one scenario run costs, counted by Valgrind instead of timed: on a shared
// machine whose timings move by half from one run to the next, the count repeats to within
// 0.1 %, so a change of one percent shows.
//
//   node src/instructions.mjs [s1|s2|s3|s5] [count]      (default s5 2000)
//
// For toolnexus and the floor, it runs the scenario in a child process under
// `valgrind --tool=cachegrind` twice, `count` and `2 × count` times after the same warm-up, and
// divides the difference by `count`: start-up, loading and warm-up cancel out. Node runs with
// `--single-threaded`, so the garbage collector's and the compiler's work is counted in the same
// thread (a run's garbage is charged to it), and with `--predictable`, so the count repeats.
// Needs `valgrind` (Debian's package); about a minute per library for s5 at 2,000. A count is
// not a time (a cache miss costs more than an add), so it measures work, not speed; `pnpm bench`
// measures speed.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The child: `node instructions.mjs --child <lib> <scenario> <count>` runs warm-up + count. */
async function child([libName, scenario, countText]) {
  const lib = (await import(`./libs/${libName}.mjs`)).create();
  const run = lib[scenario];
  if (typeof run !== "function") throw new Error(`${libName} has no scenario ${scenario}`);
  for (let i = 0; i < 2000; i++) await run.call(lib);
  for (let i = 0; i < Number(countText); i++) await run.call(lib);
}

/** Instructions of one child run, from cachegrind's summary line ("I refs: 1,234"). */
function count(libName, scenario, runs) {
  const out = spawnSync(
    "valgrind",
    [
      "--tool=cachegrind",
      "--cache-sim=no",
      "--cachegrind-out-file=/dev/null",
      // V8 writes machine code at run time: Valgrind must notice it changed.
      "--smc-check=all-non-file",
      process.execPath,
      "--single-threaded",
      // Deterministic V8 (no time-driven heuristics): the same count from run to run, where
      // without it the count moved by a few percent with when the garbage collector ran.
      "--predictable",
      fileURLToPath(import.meta.url),
      "--child",
      libName,
      scenario,
      String(runs),
    ],
    { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
  );
  const line = /I\s+refs:\s+([\d,]+)/.exec(out.stderr);
  if (out.status !== 0 || line === null) {
    throw new Error(
      `valgrind failed (${out.status}): ${out.stderr.split("\n").slice(-8).join("\n")}`,
    );
  }
  return Number(line[1].replaceAll(",", ""));
}

if (process.argv[2] === "--child") {
  await child(process.argv.slice(3));
} else {
  const [scenario = "s5", countText = "2000"] = process.argv.slice(2);
  const runs = Number(countText);
  if (!["s1", "s2", "s3", "s5"].includes(scenario) || !Number.isInteger(runs) || runs < 1) {
    throw new Error("usage: node src/instructions.mjs s1|s2|s3|s5 <count>");
  }
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("valgrind is not installed (Debian: apt-get install valgrind)");
  }
  const per = {};
  for (const lib of ["floor", "toolnexus"]) {
    per[lib] = (count(lib, scenario, 2 * runs) - count(lib, scenario, runs)) / runs;
    process.stdout.write(`${scenario} ${lib}: ${Math.round(per[lib])} instructions per run\n`);
  }
  process.stdout.write(
    `${scenario} toolnexus / floor: ${(per.toolnexus / per.floor).toFixed(2)}×\n`,
  );
}
