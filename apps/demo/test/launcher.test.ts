// The root `demo` script as a person runs it: the launcher (apps/demo/scripts/launch.mjs) builds
// quietly and hands the terminal to the demo, and the commands the demo prints work when typed
// back exactly as printed, through a shell, the way the README starts the demo
// (`npx -y pnpm@12.4.2 demo`).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./processes.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const LAUNCHER = fileURLToPath(new URL("../scripts/launch.mjs", import.meta.url));
const PNPM = (
  JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { packageManager: string }
).packageManager;
const README_COMMAND = `npx -y ${PNPM} demo`;

/** What must never reach the person: turbo's banner and summary, pnpm's recursive-run wrapper. */
const NOISE = [
  /turbo/i,
  /Packages in scope/,
  /Running build in/,
  /Tasks:/,
  /ERR_PNPM/,
  /recursive run/,
];

let tmp: ReturnType<typeof tempDir>;
let db: string;
/** A folder with `pnpm` in it (the README's pinned one, through npx), for the launcher's PATH. */
let pnpmBin: string;
beforeEach(() => {
  tmp = tempDir();
  db = tmp.file("demo.db");
  pnpmBin = tmp.file("bin");
  mkdirSync(pnpmBin);
  writeFileSync(join(pnpmBin, "pnpm"), `#!/bin/sh\nexec npx -y ${PNPM} "$@"\n`, { mode: 0o755 });
});
afterEach(() => tmp.cleanup());

/**
 * The environment of a shell a person opened: none of the variables a package manager sets for
 * the scripts it runs (this test itself runs under one), no demo settings unless given.
 */
function personEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_SCRIPT|INIT_CWD$|TOOLNEXUS_DEMO_|NO_COLOR$|FORCE_COLOR$)/i.test(key))
      continue;
    env[key] = value;
  }
  // npx uses the pnpm it already has rather than asking the registry again.
  env.npm_config_prefer_offline = "true";
  return { ...env, ...extra };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A command line exactly as printed, run by a shell in the repository root. */
function shell(line: string, env: NodeJS.ProcessEnv = personEnv()): Promise<Ran> {
  return run("sh", ["-c", line], env);
}

function expectQuiet(ran: Ran): void {
  for (const text of [ran.stdout, ran.stderr]) {
    for (const line of text.split("\n")) {
      for (const noise of NOISE) expect(line, `${ran.stdout}\n${ran.stderr}`).not.toMatch(noise);
    }
  }
}

/** The indented command the demo prints after a halt. */
function printedResume(stdout: string): string {
  const line = stdout.split("\n").find((l) => /^ {4}\S.* demo resume pnd_/.test(l));
  expect(line, stdout).toBeDefined();
  return line!.trim();
}

/** The launcher run straight from node, as the root `demo` script runs it, pnpm on the PATH. */
function launch(args: readonly string[]): Promise<Ran> {
  const env = personEnv();
  env.PATH = `${pnpmBin}${delimiter}${env.PATH ?? ""}`;
  return run(process.execPath, [LAUNCHER, ...args], env);
}

describe("the root demo script's launcher", () => {
  it("shows only the demo, on success and on an error, and exits with the demo's status", async () => {
    const ok = await launch(["--durable", "--db", db]);
    expect(ok.code, ok.stderr).toBe(0);
    expectQuiet(ok);
    expect(ok.stdout.startsWith("toolnexus demo · release assistant")).toBe(true);
    expect(ok.stdout).toContain("⏸ halted");

    const bad = await launch(["--answer", "env=moon"]);
    expect(bad.code).toBe(2);
    expectQuiet(bad);
    expect(bad.stderr).toContain('"env" must be one of staging, production (got "moon")');
    expect(bad.stderr).not.toMatch(/ELIFECYCLE/);
    // Only the demo's own message, no build output.
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);

    const usage = await launch(["nonsense"]);
    expect(usage.code).toBe(2);
    expectQuiet(usage);
    expect(usage.stderr).toContain(`unknown command "nonsense"; see ${README_COMMAND} --help`);
  });

  it("through pnpm as the README says: the printed commands work as printed and keep TOOLNEXUS_DEMO_DB", async () => {
    const halted = await shell(`${README_COMMAND} --durable`, personEnv({ TOOLNEXUS_DEMO_DB: db }));
    expect(halted.code, halted.stderr).toBe(0);
    expectQuiet(halted);
    const first = printedResume(halted.stdout);
    expect(first).toMatch(
      new RegExp(
        `^npx -y ${PNPM.replace(/\./g, "\\.")} demo resume pnd_\\w+ --answer env=staging --db ${db}$`,
      ),
    );

    // Typed back exactly, in a shell without the variable: it finds the same file.
    const deployed = await shell(first);
    expect(deployed.code, deployed.stderr).toBe(0);
    expectQuiet(deployed);
    expect(deployed.stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging");
    const second = printedResume(deployed.stdout);
    expect(second).toMatch(/ demo resume pnd_\w+ --approve yes --db /);

    const done = await shell(second);
    expect(done.code, done.stderr).toBe(0);
    expectQuiet(done);
    expect(done.stdout).toContain("✓ rollback[staging] rolled staging back to 2.4.0");
    expect(done.stdout).toContain("✓ done");

    // The listing it points to works as printed too.
    const pending = /or list what waits with (.+ demo pending --db \S+)/.exec(halted.stdout)?.[1];
    expect(pending, halted.stdout).toBeDefined();
    const listed = await shell(pending!.replace(/ · .*$/, ""));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("nothing waits in");
  });

  it("through pnpm, an error is the demo's message and status; pnpm adds only its own exit line", async () => {
    const bad = await shell(`${README_COMMAND} --answer env=moon`);
    expect(bad.code).toBe(2);
    expectQuiet(bad);
    const foreign = bad.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("✗ "));
    // pnpm 12 echoes the script it runs, and reports a script's non-zero exit in one line even
    // under --silent; the build, the nested pnpm run and its recursive-run report are gone.
    expect(foreign).toEqual([
      "$ node apps/demo/scripts/launch.mjs --answer env=moon",
      "[ELIFECYCLE] Command failed with exit code 2.",
    ]);
  });
});
