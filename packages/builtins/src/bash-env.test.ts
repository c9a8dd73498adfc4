// bash's default environment is an allowlist: a secret in the host's environment does not
// reach the command (nor its output, nor the model). Real child processes.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool } from "./bash.js";
import { BASH_INHERITED_ENV, inheritedEnv } from "./bash-env.js";
import { type Sandbox, sandbox } from "./test-support.js";

const SECRET_VAR = "TOOLNEXUS_TEST_SECRET";
const SECRET = "sk-test-should-never-reach-the-command";

let box: Sandbox;
let before: string | undefined;
beforeEach(async () => {
  box = await sandbox();
  // Test files share a process: put back what this file changes.
  before = process.env[SECRET_VAR];
  process.env[SECRET_VAR] = SECRET;
});
afterEach(async () => {
  if (before === undefined) delete process.env[SECRET_VAR];
  else process.env[SECRET_VAR] = before;
  await box.cleanup();
});

describe("bash environment", () => {
  it("leaves host secrets out by default and keeps PATH and HOME", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    const secret = await bash.execute({ command: `printenv ${SECRET_VAR}` });
    expect(secret).toEqual({
      output: "\nbash: command exited with code 1",
      isError: true,
      metadata: { exitCode: 1 },
    });
    const kept = await bash.execute({ command: 'printf "%s|%s" "$PATH" "$HOME"' });
    expect(kept.output).toBe(`${process.env.PATH ?? ""}|${process.env.HOME ?? ""}`);
    const all = await bash.execute({ command: "env" });
    expect(all.output).not.toContain(SECRET);
  });

  it("gives the command exactly the env option when one is set", async () => {
    const inherit = bashTool({ root: box.root, needsApproval: false, env: process.env });
    expect((await inherit.execute({ command: `printenv ${SECRET_VAR}` })).output).toBe(
      `${SECRET}\n`,
    );
    const own = bashTool({
      root: box.root,
      needsApproval: false,
      env: { PATH: process.env.PATH, ONLY_THIS: "yes" },
    });
    const seen = await own.execute({
      command: `printf "%s|" "$ONLY_THIS"; printenv HOME || printf unset; printf "|"; printenv ${SECRET_VAR} || printf unset`,
    });
    expect(seen.output).toBe("yes|unset|unset");
  });

  it("reads the host environment at each call", async () => {
    const bash = bashTool({ root: box.root, needsApproval: false });
    const lang = process.env.LANG;
    process.env.LANG = "C.UTF-8";
    try {
      expect((await bash.execute({ command: 'printf "%s" "$LANG"' })).output).toBe("C.UTF-8");
    } finally {
      if (lang === undefined) delete process.env.LANG;
      else process.env.LANG = lang;
    }
  });
});

describe("inheritedEnv", () => {
  it("keeps only allowlisted names, and no exported shell functions", () => {
    const host = {
      PATH: "/usr/bin",
      HOME: "/home/x",
      OPENAI_API_KEY: "sk-1",
      AWS_SECRET_ACCESS_KEY: "k",
      TERM: "() { :; }; echo pwned",
    };
    expect(inheritedEnv(host)).toEqual({ PATH: "/usr/bin", HOME: "/home/x" });
    expect(BASH_INHERITED_ENV.filter((name) => /KEY|TOKEN|SECRET|PASS/.test(name))).toEqual([]);
  });
});
