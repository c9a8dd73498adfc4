// The size cap on one skill, with real files: a SKILL.md over the cap is skipped unread, and
// the tool's output never exceeds the cap.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_SKILL_BYTES,
  listSkills,
  loadSkills,
  type Skill,
  SkillsError,
  skillTool,
} from "./index.js";
import { cutUtf8 } from "./size-cap.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tn-skills-cap-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `<dir>/<name>/SKILL.md` of exactly `bytes` bytes; returns its path. */
async function skillFile(name: string, bytes: number): Promise<string> {
  const head = `---\nname: ${name}\ndescription: a skill of ${bytes} bytes\n---\n`;
  await mkdir(join(dir, name));
  const file = join(dir, name, "SKILL.md");
  await writeFile(file, head + "x".repeat(bytes - Buffer.byteLength(head)));
  return file;
}

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

describe("discovery: a SKILL.md over maxSkillBytes", () => {
  it("is skipped as too-large, naming the file and the cap; one at the cap loads", async () => {
    const over = await skillFile("over", 4_097);
    await skillFile("at", 4_096);
    const { skills, skipped } = await listSkills({ dirs: dir, maxSkillBytes: 4_096 });
    expect(skills.map((skill) => skill.name)).toEqual(["at"]);
    expect(skipped).toEqual([
      {
        location: over,
        reason: "too-large",
        message: `${over}: the file is 4097 bytes, over the 4096-byte limit (maxSkillBytes); skill skipped`,
      },
    ]);
  });

  it("the default cap is 1 MiB: a 1.1 MiB SKILL.md is skipped, the tool never returns it", async () => {
    const big = await skillFile("big", Math.round(1.1 * 1024 * 1024));
    await skillFile("small", 200);
    const messages: string[] = [];
    const source = await loadSkills({ dirs: dir, onWarning: (message) => messages.push(message) });
    expect(DEFAULT_MAX_SKILL_BYTES).toBe(1_048_576);
    expect(messages).toEqual([
      `${big}: the file is 1153434 bytes, over the 1048576-byte limit (maxSkillBytes); skill skipped`,
    ]);
    expect(source.skills.map((skill) => skill.name)).toEqual(["small"]);
    const result = await source.tool.execute({ name: "big" });
    expect(result).toEqual({
      output: 'Skill "big" not found. Available skills: small',
      isError: true,
    });
  });

  it("strict: a too-large file is one of the problems thrown", async () => {
    await skillFile("over", 2_000);
    const failure = await loadSkills({ dirs: dir, strict: true, maxSkillBytes: 1_000 }).catch(
      (thrown: unknown) => thrown,
    );
    expect(failure).toBeInstanceOf(SkillsError);
    expect((failure as SkillsError).skipped.map((skip) => skip.reason)).toEqual(["too-large"]);
  });

  it("a bad maxSkillBytes is refused before anything is read", async () => {
    await expect(listSkills({ dirs: dir, maxSkillBytes: 0 })).rejects.toThrow(
      "listSkills: maxSkillBytes must be a positive integer (bytes), got 0",
    );
    await expect(loadSkills({ dirs: dir, maxSkillBytes: 1.5 })).rejects.toThrow(TypeError);
    expect(() => skillTool([], { maxSkillBytes: -1 })).toThrow(/maxSkillBytes/);
  });
});

describe("the skill tool's output cap", () => {
  const dataSkill = (content: string): Skill => ({
    name: "huge",
    location: "skill://huge/",
    content,
    origin: "data",
    resources: ["a.md"],
    base: "skill://huge/",
  });

  it("cuts the content to fit, keeps the frame and says how much was left out", async () => {
    const content = "é".repeat(10_000); // 20,000 bytes, two per character
    const tool = skillTool([dataSkill(content)], { maxSkillBytes: 2_048 });
    const result = await tool.execute({ name: "huge" });
    expect(result.isError).toBe(false);
    expect(bytesOf(result.output)).toBeLessThanOrEqual(2_048);
    expect(result.output).not.toContain("\ufffd");
    expect(result.output.startsWith('<skill_content name="huge">\n# Skill: huge\n\néé')).toBe(true);
    expect(result.output).toMatch(
      /é\n\n\[skill content truncated: \d+ of 20000 bytes shown; the limit of the skill tool's output is 2048 bytes\]\n\nBase directory for this skill: skill:\/\/huge\//,
    );
    expect(result.output.endsWith("<file>a.md</file>\n</skill_files>\n</skill_content>")).toBe(
      true,
    );
    expect(result.metadata).toEqual({
      name: "huge",
      dir: "skill://huge/",
      truncated: true,
      contentBytes: 20_000,
    });
  });

  it("loadSkills passes its cap to the tool; content under it is untouched", async () => {
    await skillFile("near", 3_000);
    const source = await loadSkills({ dirs: dir, maxSkillBytes: 3_000 });
    const result = await source.tool.execute({ name: "near" });
    // The file fits the cap, but with the frame the block does not: its content is cut.
    expect(bytesOf(result.output)).toBeLessThanOrEqual(3_000);
    expect(result.metadata).toMatchObject({ name: "near", truncated: true });
    const roomy = await loadSkills({ dirs: dir, maxSkillBytes: 10_000 });
    const whole = await roomy.tool.execute({ name: "near" });
    expect(whole.output).toContain(`${"x".repeat(2_900)}\n\nBase directory`);
    expect(whole.metadata).toEqual({ name: "near", dir: join(dir, "near") });
  });

  it("a frame larger than the cap is cut too", async () => {
    const tool = skillTool([dataSkill("body")], { maxSkillBytes: 40 });
    const result = await tool.execute({ name: "huge" });
    expect(result.output).toBe('<skill_content name="huge">\n# Skill: hug');
    expect(result.metadata).toMatchObject({ truncated: true, contentBytes: 4 });
  });
});

describe("cutUtf8", () => {
  it("never cuts a character in half", () => {
    expect(cutUtf8("aé😀b", 1)).toBe("a");
    expect(cutUtf8("aé😀b", 2)).toBe("a");
    expect(cutUtf8("aé😀b", 3)).toBe("aé");
    expect(cutUtf8("aé😀b", 6)).toBe("aé");
    expect(cutUtf8("aé😀b", 7)).toBe("aé😀");
    expect(cutUtf8("aé😀b", 8)).toBe("aé😀b");
  });
});
