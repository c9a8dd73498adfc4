import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Tool } from "@toolnexus/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editTool } from "./edit.js";
import { MAX_WHOLE_FILE_BYTES } from "./files.js";
import { readTool } from "./read.js";
import { callThroughClient, read, type Sandbox, SECRET, sandbox } from "./test-support.js";
import { writeTool } from "./write.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await writeFile(path.join(box.root, "f.txt"), "alpha\nbeta\nalpha\n");
});
afterEach(async () => {
  await box.cleanup();
});

const at = (...parts: string[]) => path.join(box.root, ...parts);

describe("read", () => {
  it("returns the whole file, or a 1-based line window", async () => {
    const tool = readTool({ root: box.root });
    const whole = await callThroughClient([tool], "read", { path: "f.txt" });
    expect(whole.output).toBe("alpha\nbeta\nalpha\n");
    expect(whole.requests).toEqual([]); // read is not gated
    expect((await tool.execute({ path: "f.txt", offset: 2, limit: 1 })).output).toBe("beta");
    expect((await tool.execute({ path: "f.txt", offset: 2 })).output).toBe("beta\nalpha\n");
    expect((await tool.execute({ path: "f.txt", limit: 2 })).output).toBe("alpha\nbeta");
    expect((await tool.execute({ path: "f.txt", offset: 99 })).output).toBe("");
    expect((await tool.execute({ path: at("f.txt") })).output).toBe("alpha\nbeta\nalpha\n");
  });

  it("gives clear errors for a missing file, a folder, a binary file", async () => {
    const tool = readTool({ root: box.root });
    expect(await tool.execute({ path: "nope.txt" })).toEqual({
      output: "read: file not found: nope.txt",
      isError: true,
    });
    await mkdir(at("dir"));
    expect((await tool.execute({ path: "dir" })).output).toBe(
      "read: dir is a folder, not a file (use glob to list it)",
    );
    await writeFile(at("bin"), Buffer.from([1, 2, 0, 3]));
    expect((await tool.execute({ path: "bin" })).output).toBe(
      'read: refused "bin": it looks like a binary file',
    );
    expect((await tool.execute({})).output).toBe("read: path is required");
  });

  it("caps a large file at whole lines and says where to go on", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`);
    await writeFile(at("big.txt"), lines.join("\n"));
    const tool = readTool({ root: box.root, maxOutputBytes: 1000 });
    const result = await tool.execute({ path: "big.txt" });
    // Lines 1-9 take 6 bytes, 10-99 7, 100-123 8, plus 122 newlines: 998 bytes.
    const shown = lines.slice(0, 123).join("\n");
    expect(Buffer.byteLength(shown)).toBe(998);
    expect(result.output).toBe(
      `${shown}\n\n[output truncated: the 1000-byte limit was reached after line 123; read on with offset=124]`,
    );
    const next = await tool.execute({ path: "big.txt", offset: 124, limit: 2 });
    expect(next.output).toBe("line 124\nline 125");
    // A window deep into the file reads only what it needs.
    expect((await tool.execute({ path: "big.txt", offset: 20_000 })).output).toBe("line 20000");
  });

  it("cuts a single line longer than the cap", async () => {
    await writeFile(at("long.txt"), `${"x".repeat(5000)}\nnext`);
    const tool = readTool({ root: box.root, maxOutputBytes: 100 });
    expect((await tool.execute({ path: "long.txt" })).output).toBe(
      `${"x".repeat(100)}\n\n[output truncated: line 1 is over the 100-byte limit and was cut]`,
    );
  });
});

describe("write", () => {
  it("creates parent folders, reports the byte count, needs approval", async () => {
    const tool = writeTool({ root: box.root });
    const run = await callThroughClient([tool], "write", {
      path: "sub/dir/new.txt",
      content: "héllo",
    });
    expect(run.output).toBe("Wrote 6 bytes to sub/dir/new.txt");
    expect(run.record.result.metadata).toEqual({ bytes: 6 });
    expect(run.requests.map((r) => r.kind)).toEqual(["approval"]);
    expect(await read(at("sub/dir/new.txt"))).toBe("héllo");
    await tool.execute({ path: "sub/dir/new.txt", content: "" });
    expect(await read(at("sub/dir/new.txt"))).toBe("");
  });

  it("does nothing when the approval is declined", async () => {
    const run = await callThroughClient(
      [writeTool({ root: box.root })],
      "write",
      { path: "new.txt", content: "x" },
      { waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }) },
    );
    expect(run.isError).toBe(true);
    expect(run.output).toBe(
      'declined/expired: Allow write to run with {"path":"new.txt","content":"x"}?',
    );
    await expect(stat(at("new.txt"))).rejects.toThrow();
  });

  it("refuses to write onto a folder", async () => {
    await mkdir(at("dir"));
    const result = await writeTool({ root: box.root }).execute({ path: "dir", content: "x" });
    expect(result.output).toBe('write: refused "dir": it is not a regular file');
  });
});

describe("edit", () => {
  it("replaces a unique occurrence; refuses a missing or non-unique one", async () => {
    const tool = editTool({ root: box.root });
    const dup = await callThroughClient([tool], "edit", {
      path: "f.txt",
      oldString: "alpha",
      newString: "OMEGA",
    });
    expect(dup.output).toBe(
      "edit: oldString is not unique in f.txt (2 occurrences); use replaceAll",
    );
    expect(await read(at("f.txt"))).toBe("alpha\nbeta\nalpha\n");
    expect((await tool.execute({ path: "f.txt", oldString: "zeta", newString: "x" })).output).toBe(
      "edit: oldString not found in f.txt",
    );
    const one = await tool.execute({ path: "f.txt", oldString: "beta", newString: "$& $1" });
    expect(one).toEqual({
      output: "Edited f.txt (1 replacement)",
      isError: false,
      metadata: { replacements: 1 },
    });
    expect(await read(at("f.txt"))).toBe("alpha\n$& $1\nalpha\n");
  });

  it("replaceAll replaces every occurrence", async () => {
    const tool = editTool({ root: box.root });
    const all = await tool.execute({
      path: "f.txt",
      oldString: "alpha",
      newString: "OMEGA",
      replaceAll: true,
    });
    expect(all.output).toBe("Edited f.txt (2 replacements)");
    expect(await read(at("f.txt"))).toBe("OMEGA\nbeta\nOMEGA\n");
  });

  it("refuses a replaceAll whose result would pass the 10 MiB limit, before building it", async () => {
    const tool = editTool({ root: box.root });
    const before = "ab".repeat(2 * 1024 * 1024); // 4 MiB, 2 Mi occurrences of "a"
    await writeFile(at("big.txt"), before);
    // 201 bytes of arguments would make it 421 MB (and "Invalid string length" beyond).
    for (const size of [200, 400, 5_000]) {
      const result = await tool.execute({
        path: "big.txt",
        oldString: "a",
        newString: "X".repeat(size),
        replaceAll: true,
      });
      const resultBytes = before.length + 2 * 1024 * 1024 * (size - 1);
      expect(result).toEqual({
        output: `edit: refused "big.txt": the edited file would be ${resultBytes} bytes (2097152 replacements), larger than the ${MAX_WHOLE_FILE_BYTES}-byte limit; nothing was changed`,
        isError: true,
        metadata: { replacements: 0, resultBytes, limitBytes: MAX_WHOLE_FILE_BYTES },
      });
    }
    expect((await stat(at("big.txt"))).size).toBe(before.length); // untouched
    // Multi-byte text counts in UTF-8 bytes: "é" is 2 bytes, 3 of them replace each "a".
    const grows = await tool.execute({
      path: "big.txt",
      oldString: "a",
      newString: "ééé",
      replaceAll: true,
    });
    expect(grows.output).toMatch(
      /^edit: refused "big\.txt": the edited file would be 14680064 bytes/,
    );
    // Up to the limit exactly is fine: 4 MiB + 2 Mi × 2 = 8 MiB.
    const fits = await tool.execute({
      path: "big.txt",
      oldString: "a",
      newString: "XXX",
      replaceAll: true,
    });
    expect(fits.output).toBe("Edited big.txt (2097152 replacements)");
    expect((await stat(at("big.txt"))).size).toBe(8 * 1024 * 1024);
  });

  it("refuses a single replacement whose result would pass the limit", async () => {
    const tool = editTool({ root: box.root });
    const result = await tool.execute({
      path: "f.txt",
      oldString: "beta",
      newString: "x".repeat(MAX_WHOLE_FILE_BYTES),
    });
    expect(result.output).toBe(
      `edit: refused "f.txt": the edited file would be ${MAX_WHOLE_FILE_BYTES + 13} bytes (1 replacement), larger than the ${MAX_WHOLE_FILE_BYTES}-byte limit; nothing was changed`,
    );
    expect(await read(at("f.txt"))).toBe("alpha\nbeta\nalpha\n");
  });

  it("rejects bad arguments and missing files clearly", async () => {
    const tool = editTool({ root: box.root });
    expect((await tool.execute({ path: "f.txt", oldString: "", newString: "x" })).output).toBe(
      "edit: oldString is required",
    );
    expect((await tool.execute({ path: "f.txt", oldString: "a" })).output).toBe(
      "edit: newString is required",
    );
    expect((await tool.execute({ path: "nope.txt", oldString: "a", newString: "b" })).output).toBe(
      "edit: file not found: nope.txt",
    );
  });
});

describe("escapes from the root are refused, nothing outside is touched", () => {
  type Attempt = { tool: Tool; args: (p: string) => Record<string, unknown> };
  const tools = (): Record<string, Attempt> => ({
    read: { tool: readTool({ root: box.root }), args: (p) => ({ path: p }) },
    write: {
      tool: writeTool({ root: box.root }),
      args: (p) => ({ path: p, content: "pwned\n" }),
    },
    edit: {
      tool: editTool({ root: box.root }),
      args: (p) => ({ path: p, oldString: "outside", newString: "pwned" }),
    },
  });

  async function expectUntouched() {
    expect(await read(box.outside)).toBe(SECRET);
    expect(await read(path.join(box.outsideDir, "secret.txt"))).toBe(SECRET);
    await expect(stat(path.join(box.outsideDir, "new.txt"))).rejects.toThrow();
    await expect(stat(path.join(box.base, "new.txt"))).rejects.toThrow();
  }

  for (const name of ["read", "write", "edit"]) {
    it(`${name}: ../ is refused`, async () => {
      const { tool, args } = tools()[name] as Attempt;
      for (const p of ["../outside.txt", "sub/../../outside.txt", "../new.txt"]) {
        const run = await callThroughClient([tool], name, args(p));
        expect(run.isError).toBe(true);
        expect(run.output).toBe(
          `${name}: refused ${JSON.stringify(p)}: it leads outside the root folder ${box.root}`,
        );
        expect(run.record.result.metadata).toEqual({ refused: true, path: p });
      }
      await expectUntouched();
    });

    it(`${name}: an absolute path outside the root is refused`, async () => {
      const { tool, args } = tools()[name] as Attempt;
      for (const p of [box.outside, path.join(box.base, "new.txt"), "/etc/passwd"]) {
        const run = await callThroughClient([tool], name, args(p));
        expect(run.output).toBe(
          `${name}: refused ${JSON.stringify(p)}: it is an absolute path outside the root folder ${box.root}`,
        );
      }
      await expectUntouched();
    });

    it(`${name}: a symlink leading outside is refused (file, folder, dangling)`, async () => {
      const { tool, args } = tools()[name] as Attempt;
      await symlink(box.outside, at("file-link"));
      await symlink(box.outsideDir, at("dir-link"));
      await symlink(path.join(box.outsideDir, "new.txt"), at("dangling-link"));
      await mkdir(at("nested"));
      await symlink("../../outside.txt", at("nested", "relative-link"));
      const cases: [string, string][] = [
        ["file-link", box.outside],
        ["dir-link/secret.txt", path.join(box.outsideDir, "secret.txt")],
        ["dir-link/new.txt", path.join(box.outsideDir, "new.txt")],
        ["dangling-link", path.join(box.outsideDir, "new.txt")],
        ["nested/relative-link", box.outside],
      ];
      for (const [p, target] of cases) {
        const run = await callThroughClient([tool], name, args(p));
        expect(run.output).toBe(
          `${name}: refused ${JSON.stringify(p)}: a symbolic link leads outside the root folder ${box.root} (to ${target})`,
        );
      }
      await expectUntouched();
    });
  }

  it("a symlink that stays inside the root is fine", async () => {
    await symlink("f.txt", at("alias"));
    expect((await readTool({ root: box.root }).execute({ path: "alias" })).output).toBe(
      "alpha\nbeta\nalpha\n",
    );
  });

  it("a root given as a symlink works, and its real path counts as inside", async () => {
    await symlink(box.root, path.join(box.base, "root-link"));
    const tool = readTool({ root: path.join(box.base, "root-link") });
    expect((await tool.execute({ path: "f.txt" })).output).toBe("alpha\nbeta\nalpha\n");
    expect((await tool.execute({ path: at("f.txt") })).output).toBe("alpha\nbeta\nalpha\n");
    expect((await tool.execute({ path: "../outside.txt" })).isError).toBe(true);
  });

  it("the default root is the working directory", async () => {
    const cwd = process.cwd();
    process.chdir(box.root);
    try {
      const tool = readTool();
      expect((await tool.execute({ path: "f.txt" })).output).toBe("alpha\nbeta\nalpha\n");
      expect((await tool.execute({ path: "../outside.txt" })).isError).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("ctx.signal", () => {
  it("a cancelled call does nothing", async () => {
    const signal = AbortSignal.abort();
    const result = await writeTool({ root: box.root }).execute(
      { path: "new.txt", content: "x" },
      { signal },
    );
    expect(result).toEqual({ output: "write: cancelled", isError: true });
    await expect(readFile(at("new.txt"))).rejects.toThrow();
  });
});
