// runCli in process: colours, the no-store and unknown-command paths, and redaction of a
// connection string held in the environment even before a store is opened.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { describe, expect, it } from "vitest";
import { haltOnQuestion } from "../test/runs.js";
import { EXIT } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { runCli } from "./run-cli.js";

function capture(env: Record<string, string> = {}): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    env,
    color: false,
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
  };
  return io;
}

describe("runCli", () => {
  it("names an unknown command and points to the help", async () => {
    const io = capture();
    expect(await runCli(["runz", "list"], io)).toBe(EXIT.usage);
    expect(io.err).toContain('unknown command "runz list"');
    expect(io.err).toContain("toolnexus --help");
  });

  it("prints a command's help, with the usage line and the exit codes", async () => {
    const io = capture();
    expect(await runCli(["answer", "--help"], io)).toBe(EXIT.ok);
    expect(io.out).toContain("Usage: toolnexus answer <requestId>");
    expect(io.out).toContain("Exit codes:");
  });

  it("checks the arguments before touching the store", async () => {
    const io = capture();
    expect(await runCli(["runs", "show"], io)).toBe(EXIT.usage);
    expect(io.err).toContain("usage: toolnexus runs show <runId>");
  });

  it("masks the environment's connection string in every message", async () => {
    const url = "postgres://app:Sup3r-Secret-9@127.0.0.1:1/none";
    const io = capture({ TOOLNEXUS_DATABASE_URL: url });
    // The value of an unknown option is echoed by parseArgs' message; the secret is masked.
    expect(await runCli(["runs", "list", `--${url}`], io)).toBe(EXIT.usage);
    expect(io.err).not.toContain("Sup3r-Secret-9");
    expect(io.err).toContain("***");
  });

  it("paints states and headings only when colour is asked for", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolnexus-cli-colour-"));
    try {
      const path = join(dir, "runs.db");
      const store = sqliteStore({ path });
      await haltOnQuestion(store, { agent: "support", sessionId: "s1" });
      store.close();
      const plain = capture();
      expect(await runCli(["runs", "list", "--store", path], plain)).toBe(EXIT.ok);
      expect(plain.out).not.toContain("\u001b[");
      const painted = { ...capture(), color: true };
      let out = "";
      painted.stdout = (text: string) => {
        out += text;
      };
      expect(await runCli(["runs", "list", "--store", path], painted)).toBe(EXIT.ok);
      expect(out).toContain("\u001b[33mwaiting");
      expect(out).toContain("\u001b[1mRUN");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
