import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globTool } from "./glob.js";
import { globToRegExp, matchGlob } from "./glob-match.js";
import { grepTool } from "./grep.js";
import { callThroughClient, type Sandbox, sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  const files: Record<string, string> = {
    "a.txt": "alpha\nbeta\n",
    "b.txt": "gamma alpha\n",
    "notes.md": "alpha in markdown\n",
    "sub/c.txt": "no match\nalpha again\n",
    "sub/deep/d.md": "# alpha\n",
    ".hidden/e.txt": "alpha hidden\n",
    "node_modules/pkg/x.txt": "alpha skipped\n",
    ".git/config": "alpha skipped\n",
  };
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(box.root, name)), { recursive: true });
    await writeFile(path.join(box.root, name), content);
  }
  await writeFile(path.join(box.root, "image.bin"), Buffer.from("alpha\0binary"));
});
afterEach(async () => {
  await box.cleanup();
});

describe("grep", () => {
  it("prints file:line:text for every match, files of a folder before its subfolders", async () => {
    const run = await callThroughClient([grepTool({ root: box.root })], "grep", {
      pattern: "alpha",
    });
    const r = box.root;
    expect(run.output).toBe(
      [
        `${r}/a.txt:1:alpha`,
        `${r}/b.txt:1:gamma alpha`,
        `${r}/notes.md:1:alpha in markdown`,
        `${r}/.hidden/e.txt:1:alpha hidden`,
        `${r}/sub/c.txt:2:alpha again`,
        `${r}/sub/deep/d.md:1:# alpha`,
      ].join("\n"),
    );
    expect(run.record.result.metadata).toEqual({ count: 6 });
    expect(run.requests).toEqual([]);
  });

  it("filters with include, searches under path, stops at limit", async () => {
    const tool = grepTool({ root: box.root });
    expect((await tool.execute({ pattern: "alpha", include: "*.md" })).output).toBe(
      `${box.root}/notes.md:1:alpha in markdown\n${box.root}/sub/deep/d.md:1:# alpha`,
    );
    expect((await tool.execute({ pattern: "^alpha", path: "sub" })).output).toBe(
      "sub/c.txt:2:alpha again",
    );
    expect((await tool.execute({ pattern: "a", path: "a.txt" })).output).toBe(
      "a.txt:1:alpha\na.txt:2:beta",
    );
    const limited = await tool.execute({ pattern: "alpha", limit: 2 });
    expect(limited.output.split("\n")).toHaveLength(2);
    expect(limited.metadata).toEqual({ count: 2 });
    expect((await tool.execute({ pattern: "zzz" })).output).toBe("");
  });

  it("reports a bad regex and bad arguments", async () => {
    const tool = grepTool({ root: box.root });
    const bad = await tool.execute({ pattern: "(" });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/^grep: invalid regex: /);
    expect((await tool.execute({ pattern: "a", limit: 0 })).output).toBe(
      "grep: limit must be at least 1",
    );
  });

  it("caps the output with a marker", async () => {
    const tool = grepTool({ root: box.root, maxOutputBytes: 40 });
    const result = await tool.execute({ pattern: "alpha", path: "." });
    expect(result.output).toBe(
      "a.txt:1:alpha\nb.txt:1:gamma alpha\nnotes.\n\n[output truncated: over the 40-byte limit; narrow the pattern, path or include to see the rest]",
    );
  });

  it("refuses ../, absolute paths and symlinked folders outside the root", async () => {
    await symlink(box.outsideDir, path.join(box.root, "away"));
    for (const p of ["..", "../elsewhere", box.outsideDir, "away"]) {
      const run = await callThroughClient([grepTool({ root: box.root })], "grep", {
        pattern: "secret",
        path: p,
      });
      expect(run.isError).toBe(true);
      expect(run.output).toMatch(/^grep: refused .*outside the root folder/);
      expect(run.output).not.toContain("outside secret");
    }
  });

  it("never follows a symlink met on the walk", async () => {
    await symlink(box.outside, path.join(box.root, "leak.txt"));
    await symlink(box.outsideDir, path.join(box.root, "leakdir"));
    const result = await grepTool({ root: box.root }).execute({ pattern: "secret" });
    expect(result).toEqual({ output: "", isError: false, metadata: { count: 0 } });
  });
});

describe("glob", () => {
  it("lists matching relative paths, sorted", async () => {
    const run = await callThroughClient([globTool({ root: box.root })], "glob", {
      pattern: "*.txt",
    });
    expect(run.output).toBe([".hidden/e.txt", "a.txt", "b.txt", "sub/c.txt"].join("\n"));
    expect(run.record.result.metadata).toEqual({ count: 4 });
    const tool = globTool({ root: box.root });
    expect((await tool.execute({ pattern: "**/*.md" })).output).toBe("notes.md\nsub/deep/d.md");
    expect((await tool.execute({ pattern: "sub/**" })).output).toBe("sub/c.txt\nsub/deep/d.md");
    expect((await tool.execute({ pattern: "{a,b}.txt" })).output).toBe("a.txt\nb.txt");
    expect((await tool.execute({ pattern: "*.md", path: "sub" })).output).toBe("deep/d.md");
    expect((await tool.execute({ pattern: "*.txt", limit: 1 })).output.split("\n")).toHaveLength(1);
    expect((await tool.execute({ pattern: "*.zip" })).output).toBe("");
  });

  it("refuses patterns and paths that leave the root", async () => {
    const tool = globTool({ root: box.root });
    for (const pattern of ["../*", "/etc/*", "sub/../../*"]) {
      const result = await tool.execute({ pattern });
      expect(result.isError).toBe(true);
      expect(result.output).toBe(
        `glob: refused ${JSON.stringify(pattern)}: a pattern is relative to the search folder and cannot contain ".." or start with "/" (set path to search elsewhere inside the root)`,
      );
    }
    await symlink(box.outsideDir, path.join(box.root, "away"));
    for (const p of ["..", box.base, "away"]) {
      const run = await callThroughClient([tool], "glob", { pattern: "*", path: p });
      expect(run.output).toMatch(/^glob: refused .*outside the root folder/);
    }
  });

  it("does not list symlinks (nor what they point to)", async () => {
    await symlink(box.outside, path.join(box.root, "leak.txt"));
    await symlink(box.outsideDir, path.join(box.root, "leakdir"));
    const result = await globTool({ root: box.root }).execute({ pattern: "**/*" });
    expect(result.output).not.toContain("leak");
    expect(result.output).not.toContain("secret");
  });
});

describe("glob patterns", () => {
  it.each([
    ["*.ts", "src/a.ts", true],
    ["*.ts", "a.tsx", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["**/test/*.js", "test/a.js", true],
    ["**/test/*.js", "x/test/a.js", true],
    ["src/**", "src", true],
    ["src/**", "src/a/b", true],
    ["src/**", "srcx/a", false],
    ["?.md", "a.md", true],
    ["?.md", "ab.md", false],
    ["[ab].md", "b.md", true],
    ["[!ab].md", "c.md", true],
    ["[!ab].md", "a.md", false],
    ["*.{ts,tsx}", "x/a.tsx", true],
    ["{src,lib}/*.js", "lib/a.js", true],
    ["{src,lib}/*.js", "bin/a.js", false],
    ["a+b(1).txt", "a+b(1).txt", true],
    ["*", ".env", true],
  ])("%s ~ %s = %s", (glob, rel, expected) => {
    expect(matchGlob(rel, glob)).toBe(expected);
  });

  it("compiles to an anchored regular expression", () => {
    expect(globToRegExp("*.ts").source).toBe("^[^/]*\\.ts$");
  });
});
