// The file tools against a real racing process that flips a parent folder between a real folder
// and a symbolic link to outside the root, thousands of calls each while it burns a core: a long
// suite (`pnpm test:long`). Hard links: beneath.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { readTool } from "./read.js";
import { type Sandbox, SECRET, sandbox } from "./test-support.js";
import { writeTool } from "./write.js";

let box: Sandbox;
let racer: ChildProcess | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  if (racer?.pid !== undefined && racer.exitCode === null) {
    const gone = new Promise((resolve) => racer?.once("exit", resolve));
    process.kill(racer.pid, "SIGKILL");
    await gone;
  }
  racer = undefined;
  await box.cleanup();
});

const INSIDE = "inside text\n";

/**
 * Starts a process that swaps `root/d` between a real folder (holding f.txt = INSIDE) and a
 * symbolic link to the folder outside the root (holding f.txt = SECRET), as fast as it can.
 * Resolves once it has flipped a few times.
 */
async function startRacer(): Promise<void> {
  const d = path.join(box.root, "d");
  const parked = path.join(box.root, "parked");
  const away = path.join(box.root, "away");
  await mkdir(d);
  await writeFile(path.join(d, "f.txt"), INSIDE);
  await writeFile(path.join(box.outsideDir, "f.txt"), SECRET);
  await symlink(box.outsideDir, away);
  // A write may create a missing `d` mid-swap (it creates parent folders): then it is removed.
  const script = `
    const { lstatSync, renameSync, rmSync } = require("node:fs");
    const [d, parked, away] = process.argv.slice(1);
    const move = (from, to) => {
      for (;;) {
        try { return renameSync(from, to); } catch {}
        try { if (lstatSync(to, { throwIfNoEntry: false })) rmSync(to, { recursive: true, force: true }); } catch {}
      }
    };
    for (let flips = 0; ; flips++) {
      move(d, parked); move(away, d);
      move(d, away); move(parked, d);
      if (flips === 100) process.stdout.write("racing\\n");
    }`;
  racer = spawn(process.execPath, ["-e", script, d, parked, away], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    racer?.stdout?.once("data", () => resolve());
    racer?.once("exit", (code) => reject(new Error(`the racer exited with ${code}`)));
  });
}

describe("a parent folder swapped for a symbolic link during the call", () => {
  it("read never returns a file outside the root", async () => {
    await startRacer();
    const read = readTool({ root: box.root });
    const counts = { inside: 0, outside: 0, other: 0 };
    for (let i = 0; i < 3_000; i++) {
      const result = await read.execute({ path: "d/f.txt" });
      if (result.output.includes("outside secret")) counts.outside++;
      else if (result.output === INSIDE) counts.inside++;
      else counts.other++; // refused or not found mid-swap
    }
    expect(racer?.exitCode).toBe(null); // still racing
    expect(counts.outside).toBe(0);
    // The race was real: some reads got through to the folder inside, some were refused.
    expect(counts.inside).toBeGreaterThan(0);
    expect(counts.other).toBeGreaterThan(0);
  }, 120_000);

  it("write and edit never change or create a file outside the root", async () => {
    await startRacer();
    const write = writeTool({ root: box.root, needsApproval: false });
    const edit = editTool({ root: box.root, needsApproval: false });
    let written = 0;
    for (let i = 0; i < 1_500; i++) {
      const result = await write.execute({ path: "d/new.txt", content: `write ${i}\n` });
      if (!result.isError) written++;
      await edit.execute({ path: "d/f.txt", oldString: "text", newString: "TEXT" });
      await edit.execute({ path: "d/f.txt", oldString: "TEXT", newString: "text" });
    }
    expect(racer?.exitCode).toBe(null); // still racing
    expect(written).toBeGreaterThan(0);
    expect((await readdir(box.outsideDir)).sort()).toEqual(["f.txt", "secret.txt"]);
    expect(await readFile(path.join(box.outsideDir, "f.txt"), "utf8")).toBe(SECRET);
  }, 120_000);
  it("glob and grep never list or read a folder outside the root", async () => {
    await startRacer();
    const glob = globTool({ root: box.root });
    const grep = grepTool({ root: box.root });
    let listed = 0;
    for (let i = 0; i < 1_500; i++) {
      const found = await glob.execute({ pattern: "**/*.txt" });
      expect(found.output).not.toContain("secret.txt");
      if (found.output.includes("d/f.txt")) listed++;
      const matched = await grep.execute({ pattern: "secret" });
      expect(matched.output).toBe("");
    }
    expect(racer?.exitCode).toBe(null); // still racing
    expect(listed).toBeGreaterThan(0);
  }, 120_000);
});
