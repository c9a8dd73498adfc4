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

  it("masks a password with a quote or a backslash in --json errors", async () => {
    for (const password of ['q"uote"only', "back\\slash"]) {
      const url = `postgres://pw:${password}@127.0.0.1:1/pwdb`;
      const io = capture({ TOOLNEXUS_DATABASE_URL: url });
      // An unknown command echoes its first words: here, the connection string.
      expect(await runCli(["runs", url, "--json"], io)).toBe(EXIT.usage);
      expect(io.err).not.toContain(password);
      expect(io.err).not.toContain(JSON.stringify(password).slice(1, -1));
      expect(JSON.parse(io.err).error.message).toContain("***");
    }
  });

  it("masks a password with a quote in --json output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolnexus-cli-json-"));
    try {
      const path = join(dir, "runs.db");
      const store = sqliteStore({ path });
      await haltOnQuestion(store, { agent: 'agent-q"uote"only', sessionId: "s1" });
      store.close();
      const io = capture({ TOOLNEXUS_DATABASE_URL: 'postgres://pw:q"uote"only@127.0.0.1:1/pwdb' });
      expect(await runCli(["runs", "list", "--store", path, "--json"], io)).toBe(EXIT.ok);
      expect(io.out).not.toContain('q\\"uote\\"only');
      expect(JSON.parse(io.out)[0].agent).toBe("agent-***");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a key=value connection string, saying to give a URL, never echoing it", async () => {
    const keyValue = "host=127.0.0.1 port=1 user=app password='Sup3r-Secret-9' dbname=runs";
    const io = capture({ TOOLNEXUS_DATABASE_URL: keyValue });
    expect(await runCli(["runs", "list", "--json"], io)).toBe(EXIT.usage);
    const { error } = JSON.parse(io.err);
    expect(error.code).toBe("unsupported_connection_string");
    expect(error.message).toContain("key=value connection string");
    expect(error.message).toContain("postgres://user:password@host:5432/database");
    // Its password stays masked wherever a message would echo it.
    const echoed = capture({ TOOLNEXUS_DATABASE_URL: keyValue });
    expect(await runCli(["runs", "Sup3r-Secret-9"], echoed)).toBe(EXIT.usage);
    expect(echoed.err + io.err).not.toContain("Sup3r-Secret-9");
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
