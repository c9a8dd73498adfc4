import { stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatchTool } from "./apply-patch.js";
import { callThroughClient, read, type Sandbox, SECRET, sandbox } from "./test-support.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await writeFile(path.join(box.root, "update.txt"), "line one\nline two\nline three\n");
  await writeFile(path.join(box.root, "gone.txt"), "bye\n");
});
afterEach(async () => {
  await box.cleanup();
});

const at = (...parts: string[]) => path.join(box.root, ...parts);
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe("apply_patch", () => {
  it("adds, updates and deletes in one patch (approval first)", async () => {
    const patchText = [
      "*** Begin Patch",
      "*** Add File: new/added.txt",
      "+created line 1",
      "+created line 2",
      "*** Update File: update.txt",
      "@@",
      " line one",
      "-line two",
      "+line TWO changed",
      " line three",
      "*** Delete File: gone.txt",
      "*** End Patch",
    ].join("\n");
    const run = await callThroughClient([applyPatchTool({ root: box.root })], "apply_patch", {
      patchText,
    });
    expect(run.output).toBe("Applied patch: 3 file operations");
    expect(run.record.result.metadata).toEqual({ added: 1, updated: 1, deleted: 1 });
    expect(run.requests.map((r) => r.kind)).toEqual(["approval"]);
    expect(await read(at("new/added.txt"))).toBe("created line 1\ncreated line 2");
    expect(await read(at("update.txt"))).toBe("line one\nline TWO changed\nline three\n");
    expect(await exists(at("gone.txt"))).toBe(false);
  });

  it("a hunk that does not match changes nothing at all", async () => {
    const patchText = [
      "*** Begin Patch",
      "*** Add File: added.txt",
      "+x",
      "*** Delete File: gone.txt",
      "*** Update File: update.txt",
      "@@",
      "-line that is not there",
      "+y",
      "*** End Patch",
    ].join("\n");
    const result = await applyPatchTool({ root: box.root }).execute({ patchText });
    expect(result).toEqual({
      output:
        "apply_patch: hunk 1 of update.txt does not match the file contents; nothing was changed",
      isError: true,
    });
    expect(await exists(at("added.txt"))).toBe(false);
    expect(await read(at("gone.txt"))).toBe("bye\n");
    expect(await read(at("update.txt"))).toBe("line one\nline two\nline three\n");
  });

  it("finds hunks after an @@ anchor, at the end of file, and moves files", async () => {
    await writeFile(at("code.py"), "def a():\n    return 1\n\ndef b():\n    return 1\n");
    const patchText = [
      "*** Begin Patch",
      "*** Update File: code.py",
      "*** Move to: lib/code.py",
      "@@ def b():",
      "-    return 1",
      "+    return 2",
      "@@",
      "+# end",
      "*** End of File",
      "*** End Patch",
    ].join("\n");
    const result = await applyPatchTool({ root: box.root }).execute({ patchText });
    expect(result.output).toBe("Applied patch: 1 file operation");
    expect(await exists(at("code.py"))).toBe(false);
    expect(await read(at("lib/code.py"))).toBe(
      "def a():\n    return 1\n\ndef b():\n    return 2\n# end\n",
    );
  });

  it("tolerates trailing-space differences in context lines", async () => {
    const patchText =
      "*** Begin Patch\n*** Update File: update.txt\n@@\n line one   \n-line two\n+line 2\n*** End Patch\n";
    expect((await applyPatchTool({ root: box.root }).execute({ patchText })).output).toBe(
      "Applied patch: 1 file operation",
    );
    expect(await read(at("update.txt"))).toBe("line one\nline 2\nline three\n");
  });

  it("reports grammar errors and impossible operations clearly", async () => {
    const tool = applyPatchTool({ root: box.root });
    const run = (patchText: string) => tool.execute({ patchText }).then((r) => r.output);
    expect(await run("*** Add File: x\n+y\n*** End Patch")).toBe(
      "apply_patch: missing '*** Begin Patch'",
    );
    expect(await run("*** Begin Patch\n*** Add File: x\n+y")).toBe(
      "apply_patch: missing '*** End Patch'",
    );
    expect(await run("*** Begin Patch\nhello\n*** End Patch")).toBe(
      "apply_patch: unexpected line: hello",
    );
    expect(await run("*** Begin Patch\n*** Add File: update.txt\n+y\n*** End Patch")).toBe(
      "apply_patch: file already exists: update.txt",
    );
    expect(await run("*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch")).toBe(
      "apply_patch: file not found: nope.txt",
    );
    expect(await run("*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch")).toBe(
      "apply_patch: file not found: nope.txt",
    );
    expect((await tool.execute({})).output).toBe("apply_patch: patchText is required");
  });

  it("restores what it wrote when a later write fails", async () => {
    // gone.txt is a file, so writing gone.txt/new.txt fails after update.txt was written.
    const patchText = [
      "*** Begin Patch",
      "*** Update File: update.txt",
      "@@",
      "-line one",
      "+LINE ONE",
      "*** Add File: gone.txt/new.txt",
      "+x",
      "*** End Patch",
    ].join("\n");
    const result = await applyPatchTool({ root: box.root }).execute({ patchText });
    expect(result.output).toMatch(
      /^apply_patch: could not write gone\.txt\/new\.txt: .*; the files already changed were restored$/,
    );
    expect(await read(at("update.txt"))).toBe("line one\nline two\nline three\n");
    expect(await read(at("gone.txt"))).toBe("bye\n");
  });

  describe("escapes are refused and nothing outside is touched", () => {
    const attempts = (): [string, string][] => [
      ["*** Add File: ../evil.txt\n+pwned", "../evil.txt"],
      [`*** Add File: ${path.join(box.base, "evil.txt")}\n+pwned`, path.join(box.base, "evil.txt")],
      ["*** Delete File: ../outside.txt", "../outside.txt"],
      [`*** Delete File: ${box.outside}`, box.outside],
      ["*** Update File: link.txt\n@@\n-outside secret\n+pwned", "link.txt"],
      ["*** Add File: dir-link/evil.txt\n+pwned", "dir-link/evil.txt"],
      ["*** Update File: update.txt\n*** Move to: ../moved.txt\n@@\n-line one\n+x", "../moved.txt"],
    ];

    it("each attempt is refused with the path and the reason", async () => {
      await symlink(box.outside, at("link.txt"));
      await symlink(box.outsideDir, at("dir-link"));
      for (const [body, refused] of attempts()) {
        const run = await callThroughClient([applyPatchTool({ root: box.root })], "apply_patch", {
          patchText: `*** Begin Patch\n${body}\n*** End Patch`,
        });
        expect(run.isError).toBe(true);
        expect(run.output).toMatch(
          new RegExp(
            `^apply_patch: refused ${JSON.stringify(refused).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: .*(outside the root folder)`,
          ),
        );
      }
      expect(await read(box.outside)).toBe(SECRET);
      expect(await exists(path.join(box.base, "evil.txt"))).toBe(false);
      expect(await exists(path.join(box.base, "moved.txt"))).toBe(false);
      expect(await exists(path.join(box.outsideDir, "evil.txt"))).toBe(false);
      expect(await read(at("update.txt"))).toBe("line one\nline two\nline three\n");
    });
  });
});
