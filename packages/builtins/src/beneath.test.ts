// The file tools against hard links to files outside the root. (A parent folder swapped for a
// symbolic link during the call, by a racing process: beneath-race.long.test.ts.)
import { link, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatchTool } from "./apply-patch.js";
import { editTool } from "./edit.js";
import { grepTool } from "./grep.js";
import { readTool } from "./read.js";
import { type Sandbox, SECRET, sandbox } from "./test-support.js";
import { writeTool } from "./write.js";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe("hard links", () => {
  it("are refused by read, edit, write and skipped by grep; allowHardLinks accepts them", async () => {
    await link(box.outside, path.join(box.root, "hard.txt"));
    const read = await readTool({ root: box.root }).execute({ path: "hard.txt" });
    expect(read.isError).toBe(true);
    expect(read.output).toMatch(/^read: refused "hard.txt": it is a hard link/);
    expect(read.metadata).toMatchObject({ refused: true, path: "hard.txt" });

    const edit = await editTool({ root: box.root, needsApproval: false }).execute({
      path: "hard.txt",
      oldString: "secret",
      newString: "changed",
    });
    expect(edit.output).toMatch(/^edit: refused "hard.txt": it is a hard link/);
    const write = await writeTool({ root: box.root, needsApproval: false }).execute({
      path: "hard.txt",
      content: "overwritten",
    });
    expect(write.output).toMatch(/^write: refused "hard.txt": it is a hard link/);
    expect(await readFile(box.outside, "utf8")).toBe(SECRET);

    const patch = await applyPatchTool({ root: box.root, needsApproval: false }).execute({
      patchText:
        "*** Begin Patch\n*** Update File: hard.txt\n@@\n-outside secret\n+changed\n*** End Patch",
    });
    expect(patch.output).toMatch(/^apply_patch: refused "hard.txt": it is a hard link/);
    expect(await readFile(box.outside, "utf8")).toBe(SECRET);

    const grep = await grepTool({ root: box.root }).execute({ pattern: "secret" });
    expect(grep.output).toBe("");

    const allowed = await readTool({ root: box.root, allowHardLinks: true }).execute({
      path: "hard.txt",
    });
    expect(allowed.output).toBe(SECRET);
  });
});
