import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  listSkills,
  loadSkills,
  NO_SKILLS_PROMPT,
  parseSkillFile,
  type Skill,
  SkillsError,
  skillsPrompt,
  skillTool,
} from "./index.js";

const fixtures = fileURLToPath(new URL("../test-fixtures", import.meta.url));
const root = join(fixtures, "skills");
const more = join(fixtures, "more-skills");
const at = (...parts: string[]) => join(root, ...parts);

/** Collects warnings instead of printing them. */
function warnings() {
  const messages: string[] = [];
  return { messages, onWarning: (message: string) => messages.push(message) };
}

const TAIL =
  "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.";

describe("discovery", () => {
  it("finds nested SKILL.md files in the shared depth-first order, first name wins", async () => {
    const { skills, skipped } = await listSkills(root);
    expect(skills.map((skill) => [skill.name, skill.location])).toEqual([
      ["plain", at("plain", "SKILL.md")],
      ["outer", at("nested", "SKILL.md")],
      ["beta", at("nested", "deep", "beta", "SKILL.md")],
      ["many", at("many", "SKILL.md")],
      // Subfolders are visited last-sorted first (a stack), so dup-b is found before dup-a.
      ["twin", at("dup-b", "SKILL.md")],
      ["alpha", at("alpha", "SKILL.md")],
    ]);
    expect(skipped.map((skip) => [skip.reason, skip.location])).toEqual([
      ["missing-name", at("no-name", "SKILL.md")],
      ["duplicate-name", at("dup-a", "SKILL.md")],
      ["malformed-frontmatter", at("broken", "SKILL.md")],
    ]);
  });

  it("reads YAML front matter: folded scalars, quotes, CRLF, trimmed values", async () => {
    const { skills } = await listSkills(root);
    const byName = new Map(skills.map((skill) => [skill.name, skill]));
    expect(byName.get("alpha")?.description).toBe("Write alpha reports. Use when asked for alpha.");
    expect(byName.get("beta")?.description).toBe("Beta: quoted, with a colon");
    expect(byName.get("beta")?.content).toBe("\r\n  Beta body, CRLF front matter.  \r\n");
    expect(byName.get("plain")).not.toHaveProperty("description");
  });

  it("parseSkillFile: scalars become trimmed strings; lists, maps and null are dropped", () => {
    const parsed = parseSkillFile(
      "---\nname: 42\ndescription: |\n  two\n  lines\nflag: true\ntags: [a, b]\nmeta: {a: 1}\nempty:\n---\nbody",
    );
    expect(parsed).toEqual({
      data: { name: "42", description: "two\nlines", flag: "true" },
      content: "body",
    });
    expect(parseSkillFile("no front matter")).toEqual({ data: {}, content: "no front matter" });
    expect(parseSkillFile("\ufeff---\nname: bom\n---\nx").data).toEqual({ name: "bom" });
    expect(parseSkillFile("---\nname: a\nname: b\n---\nx").malformed).toMatch(/unique/i);
  });

  it("an earlier folder wins a name clash with a later one", async () => {
    const { skills, skipped } = await listSkills([root, more]);
    expect(skills.find((skill) => skill.name === "alpha")?.location).toBe(at("alpha", "SKILL.md"));
    expect(skipped.at(-1)).toMatchObject({
      reason: "duplicate-name",
      location: join(more, "alpha", "SKILL.md"),
    });
  });

  it("every skip is a warning naming the file; the load goes on", async () => {
    const { messages, onWarning } = warnings();
    const source = await loadSkills({ dirs: [root, join(fixtures, "missing")], onWarning });
    expect(source.skills).toHaveLength(6);
    expect(messages).toEqual([
      `${at("no-name", "SKILL.md")}: the front matter has no "name"; skill skipped`,
      `duplicate skill name "twin" (${at("dup-a", "SKILL.md")}) — keeping first (${at("dup-b", "SKILL.md")})`,
      expect.stringMatching(
        new RegExp(
          `^${at("broken", "SKILL.md").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the front matter is not valid YAML \\(.+\\); skill skipped$`,
        ),
      ),
      `skills dir not found: ${join(fixtures, "missing")}`,
    ]);
  });

  it("strict: every problem at once, in a SkillsError", async () => {
    const failure = await loadSkills({ dirs: [root, join(fixtures, "missing")], strict: true })
      .then(() => undefined)
      .catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(SkillsError);
    const { skipped, message } = failure as SkillsError;
    expect(skipped.map((skip) => skip.reason)).toEqual([
      "missing-name",
      "duplicate-name",
      "malformed-frontmatter",
      "dir-not-found",
    ]);
    expect(message.split("\n")[0]).toBe("4 skill problems:");
    expect(message).toContain(`- skills dir not found: ${join(fixtures, "missing")}`);
  });

  it("an aborted signal stops discovery", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(listSkills({ dirs: root, signal: controller.signal })).rejects.toThrow("stop");
  });

  it("a bad sampleLimit is refused before discovery", async () => {
    await expect(loadSkills({ dirs: root, sampleLimit: -2 })).rejects.toThrow(/sampleLimit/);
    expect(() => skillTool([], { sampleLimit: 1.5 })).toThrow(/sampleLimit/);
  });
});

describe("on disk: symbolic links, node_modules", () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), "toolnexus-skills-"));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("follows linked folders and linked SKILL.md files, ends link cycles, skips node_modules", async () => {
    const skills = join(tmp, "skills");
    const outside = join(tmp, "outside");
    await mkdir(join(skills, "node_modules", "dep"), { recursive: true });
    await writeFile(
      join(skills, "node_modules", "dep", "SKILL.md"),
      "---\nname: dep\ndescription: in node_modules\n---\nx",
    );
    await cp(join(root, "alpha"), join(outside, "alpha"), { recursive: true });
    await mkdir(join(outside, "single"), { recursive: true });
    await writeFile(join(outside, "single", "SKILL.md"), "---\nname: single\n---\nLinked file.");
    await symlink(join(outside, "alpha"), join(skills, "linked-alpha"));
    await mkdir(join(skills, "by-file"), { recursive: true });
    await symlink(join(outside, "single", "SKILL.md"), join(skills, "by-file", "SKILL.md"));
    await symlink(skills, join(skills, "loop")); // a cycle back to the root

    const { messages, onWarning } = warnings();
    const source = await loadSkills({ dirs: skills, onWarning });
    expect(source.skills.map((skill) => [skill.name, skill.location])).toEqual([
      ["alpha", join(skills, "linked-alpha", "SKILL.md")],
      ["single", join(skills, "by-file", "SKILL.md")],
    ]);
    expect(messages).toEqual([]);

    const dir = join(skills, "linked-alpha");
    const result = await source.tool.execute({ name: "alpha" });
    expect(result.output.split("\n").slice(-5)).toEqual([
      "<skill_files>",
      `<file>${join(dir, "scripts", "run.sh")}</file>`,
      `<file>${join(dir, "reference", "guide.md")}</file>`,
      "</skill_files>",
      "</skill_content>",
    ]);
  });

  it("a skill folder with no other file has an empty file list", async () => {
    const dir = join(tmp, "lonely");
    await mkdir(dir);
    await writeFile(join(dir, "SKILL.md"), "---\nname: lonely\n---\nAlone.");
    const { tool } = await loadSkills(tmp);
    expect((await tool.execute({ name: "lonely" })).output).toBe(
      [
        '<skill_content name="lonely">',
        "# Skill: lonely",
        "",
        "Alone.",
        "",
        `Base directory for this skill: ${pathToFileURL(dir).href}`,
        TAIL,
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        "",
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    );
  });
});

describe("the skill tool", () => {
  it("byte-exact output for a nested skill with folders", async () => {
    const { tool } = await loadSkills({ dirs: root, onWarning: () => {} });
    const dir = at("alpha");
    const result = await tool.execute({ name: "alpha" });
    expect(result).toEqual({
      output: `<skill_content name="alpha">
# Skill: alpha

# Alpha

Follow \`reference/guide.md\`, then run \`scripts/run.sh\`.

Base directory for this skill: ${pathToFileURL(dir).href}
${TAIL}
Note: file list is sampled.

<skill_files>
<file>${dir}/scripts/run.sh</file>
<file>${dir}/reference/guide.md</file>
</skill_files>
</skill_content>`,
      isError: false,
      metadata: { name: "alpha", dir },
    });
  });

  it("samples at most 10 files: the folder's own in byte order, then subfolders last-first", async () => {
    const { tool } = await loadSkills({ dirs: root, onWarning: () => {} });
    const dir = at("many");
    const output = (await tool.execute({ name: "many" })).output;
    expect(output).toBe(`<skill_content name="many">
# Skill: many

Many files.

Base directory for this skill: ${pathToFileURL(dir).href}
${TAIL}
Note: file list is sampled.

<skill_files>
<file>${dir}/README.md</file>
<file>${dir}/f01.txt</file>
<file>${dir}/f02.txt</file>
<file>${dir}/f03.txt</file>
<file>${dir}/f04.txt</file>
<file>${dir}/f05.txt</file>
<file>${dir}/z-sub/z1.txt</file>
<file>${dir}/z-sub/z2.txt</file>
<file>${dir}/a-sub/a1.txt</file>
<file>${dir}/a-sub/a2.txt</file>
</skill_files>
</skill_content>`);
  });

  it("sampleLimit: n caps the list, -1 drops the block", async () => {
    const dir = at("many");
    const capped = await loadSkills({ dirs: root, sampleLimit: 3, onWarning: () => {} });
    expect((await capped.tool.execute({ name: "many" })).output).toContain(
      `<skill_files>\n<file>${dir}/README.md</file>\n<file>${dir}/f01.txt</file>\n<file>${dir}/f02.txt</file>\n</skill_files>`,
    );
    const none = await loadSkills({ dirs: root, sampleLimit: -1, onWarning: () => {} });
    expect((await none.tool.execute({ name: "many" })).output).toBe(
      `<skill_content name="many">\n# Skill: many\n\nMany files.\n\nBase directory for this skill: ${pathToFileURL(dir).href}\n${TAIL}\n</skill_content>`,
    );
  });

  it("a nested skill's SKILL.md is never sampled, its other files are", async () => {
    const { tool } = await loadSkills({ dirs: root, onWarning: () => {} });
    expect((await tool.execute({ name: "outer" })).output).toContain(
      `<skill_files>\n<file>${at("nested", "deep", "beta", "notes.txt")}</file>\n</skill_files>`,
    );
  });

  it("an unknown or missing name lists the available skills, sorted", async () => {
    const { tool } = await loadSkills({ dirs: root, onWarning: () => {} });
    const available = "Available skills: alpha, beta, many, outer, plain, twin";
    expect(await tool.execute({ name: "gamma" })).toEqual({
      output: `Skill "gamma" not found. ${available}`,
      isError: true,
    });
    expect((await tool.execute({})).output).toBe(`Skill "" not found. ${available}`);
    expect((await skillTool([]).execute({ name: "x" })).output).toBe(
      'Skill "x" not found. Available skills: none',
    );
  });

  it("the not-found error is bounded: a long name by its start, at most 50 skills", async () => {
    const data = (name: string): Skill => ({
      name,
      content: "x",
      location: `skill://${name}/`,
      origin: "data",
    });
    const names = Array.from({ length: 20_000 }, (_, i) => `skill-${String(i).padStart(5, "0")}`);
    const tool = skillTool(names.map(data).reverse(), { maxSkillBytes: 4096 });
    const first50 = names.slice(0, 50).join(", ");
    expect(await tool.execute({ name: "A".repeat(5 * 1024 * 1024) })).toEqual({
      output: `Skill "${"A".repeat(40)}"… (5242880 characters) not found. Available skills: ${first50}, … and 19950 more`,
      isError: true,
    });
    // A name up to 80 characters is quoted whole, as before; a longer one JSON-quoted.
    const eighty = "b".repeat(80);
    expect((await tool.execute({ name: eighty })).output).toContain(
      `Skill "${eighty}" not found. `,
    );
    const hostile = `"\n${"c".repeat(80)}`;
    expect((await tool.execute({ name: hostile })).output).toContain(
      `Skill ${JSON.stringify(hostile.slice(0, 40))}… (82 characters) not found. `,
    );
    // Exactly 50 skills are all listed; long names stop the list sooner.
    expect((await skillTool(names.slice(0, 50).map(data)).execute({ name: "x" })).output).toBe(
      `Skill "x" not found. Available skills: ${first50}`,
    );
    const long = ["a", "b", "c"].map((letter) => data(letter.repeat(1500)));
    expect((await skillTool(long).execute({ name: "x" })).output).toBe(
      `Skill "x" not found. Available skills: ${"a".repeat(1500)}, ${"b".repeat(1500)}, … and 1 more`,
    );
  });

  it("ctx.signal: an aborted call loads nothing", async () => {
    const { tool } = await loadSkills({ dirs: root, onWarning: () => {} });
    const controller = new AbortController();
    controller.abort(new DOMException("timed out after 5ms", "TimeoutError"));
    expect(await tool.execute({ name: "many" }, { signal: controller.signal })).toEqual({
      output: 'Skill "many" was not loaded: timed out after 5ms',
      isError: true,
    });
  });

  it("filter: an allowlist, a drop-list, unknown names warned", async () => {
    const { messages, onWarning } = warnings();
    const allow = await loadSkills({
      dirs: root,
      filter: { alpha: true, plain: false, ghost: true },
      onWarning,
    });
    expect(allow.skills.map((skill) => skill.name)).toEqual(["alpha"]);
    expect(messages.at(-1)).toBe('skill filter name "ghost" matched no skill');
    expect((await allow.tool.execute({ name: "many" })).output).toBe(
      'Skill "many" not found. Available skills: alpha',
    );
    const drop = await loadSkills({ dirs: root, filter: { alpha: false }, onWarning });
    expect(drop.skills.map((skill) => skill.name)).toEqual([
      "plain",
      "outer",
      "beta",
      "many",
      "twin",
    ]);
  });
});

describe("skills as data", () => {
  it("a logical base and the supplied resources, no host path", async () => {
    const source = await loadSkills({
      skills: [
        { name: "docs", description: "d", content: "  Read them.\n", resources: ["a.md", "b.md"] },
        { name: "only", content: "Instructions only.", base: "mem://only/" },
      ],
    });
    expect((await source.tool.execute({ name: "docs" })).output).toBe(
      `<skill_content name="docs">\n# Skill: docs\n\nRead them.\n\nBase directory for this skill: skill://docs/\n${TAIL}\nNote: file list is sampled.\n\n<skill_files>\n<file>a.md</file>\n<file>b.md</file>\n</skill_files>\n</skill_content>`,
    );
    const only = await source.tool.execute({ name: "only" });
    expect(only.output).toBe(
      `<skill_content name="only">\n# Skill: only\n\nInstructions only.\n\nBase directory for this skill: mem://only/\n${TAIL}\n</skill_content>`,
    );
    expect(only.metadata).toEqual({ name: "only", dir: "mem://only/" });
  });

  it("folder skills come first, then data, then the provider; a failing provider is isolated", async () => {
    const { messages, onWarning } = warnings();
    const source = await loadSkills({
      dirs: join(fixtures, "conformance"),
      skills: [
        { name: "hello-world", content: "loses" },
        { name: "", content: "nameless" },
      ],
      provider: () => {
        throw new Error("backend down");
      },
      onWarning,
    });
    expect(source.skills.map((skill) => [skill.name, skill.origin])).toEqual([
      ["hello-world", "folder"],
    ]);
    expect(messages).toEqual([
      'duplicate skill name "hello-world" (skill://hello-world/) — keeping first (' +
        join(fixtures, "conformance", "hello-world", "SKILL.md") +
        ")",
      "a data skill (skill://) has no name; skill skipped",
      "skill provider failed: backend down",
    ]);
    const provided = await loadSkills({
      provider: async () => [{ name: "late", description: "From a provider.", content: "x" }],
    });
    expect(provided.prompt).toContain("- **late**: From a provider.");
  });
});

describe("skillsPrompt", () => {
  it("the preamble and the described skills, sorted by name", async () => {
    const { skills } = await loadSkills({ dirs: root, onWarning: () => {} });
    expect(skillsPrompt(skills)).toBe(
      [
        "Skills provide specialized instructions and workflows for specific tasks.",
        "Use the skill tool to load a skill when a task matches its description.",
        "",
        "## Available Skills",
        "- **alpha**: Write alpha reports. Use when asked for alpha.",
        "- **beta**: Beta: quoted, with a colon",
        "- **many**: Has many files.",
        "- **outer**: The outer skill; another skill lives inside it.",
        "- **twin**: The twin in dup-b.",
      ].join("\n"),
    );
  });

  it("byte order, not locale order; an empty description still counts as described", () => {
    const skill = (name: string, description?: string): Skill => ({
      name,
      content: "",
      location: `skill://${name}/`,
      origin: "data",
      ...(description === undefined ? {} : { description }),
    });
    expect(
      skillsPrompt([skill("beta", "b"), skill("Zed", "z"), skill("alpha", ""), skill("none")]),
    ).toBe(
      "Skills provide specialized instructions and workflows for specific tasks.\n" +
        "Use the skill tool to load a skill when a task matches its description.\n\n" +
        "## Available Skills\n- **Zed**: z\n- **alpha**: \n- **beta**: b",
    );
  });

  it("no described skill: the no-skills line, without the preamble", () => {
    expect(skillsPrompt([])).toBe("No skills are currently available.");
    expect(skillsPrompt([{ name: "x", content: "", location: "skill://x/", origin: "data" }])).toBe(
      NO_SKILLS_PROMPT,
    );
  });
});
