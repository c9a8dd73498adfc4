// The shared toolnexus fixture (examples/skills of the reference repository): every port must
// produce these exact bytes for it.
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSkills, SKILL_TOOL_DESCRIPTION, skillsPrompt } from "./index.js";

const root = fileURLToPath(new URL("../test-fixtures/conformance", import.meta.url));
const hello = join(root, "hello-world");

describe("the shared conformance fixture", () => {
  it("the skill tool's output is byte-exact", async () => {
    const source = await loadSkills(root);
    const result = await source.tool.execute({ name: "hello-world" });
    expect(result.isError).toBe(false);
    expect(result.output).toBe(
      `<skill_content name="hello-world">
# Skill: hello-world

# Hello World Skill

This is the skill body. When the model calls the \`skill\` tool with
\`{ "name": "hello-world" }\`, everything below the frontmatter is injected into the
conversation, along with a sampled list of files in this directory.

## Steps

1. Read \`scripts/greet.sh\` in this skill's base directory.
2. Run it with the user's name.
3. Report the greeting back.

Relative paths (like \`scripts/greet.sh\`) are resolved against the base directory
printed in the tool output.

Base directory for this skill: ${pathToFileURL(hello).href}
Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.
Note: file list is sampled.

<skill_files>
<file>${hello}/scripts/greet.sh</file>
</skill_files>
</skill_content>`,
    );
    expect(result.metadata).toEqual({ name: "hello-world", dir: hello });
  });

  it("skillsPrompt is byte-exact", async () => {
    const source = await loadSkills(root);
    const expected =
      "Skills provide specialized instructions and workflows for specific tasks.\n" +
      "Use the skill tool to load a skill when a task matches its description.\n" +
      "\n" +
      "## Available Skills\n" +
      "- **hello-world**: A tiny example skill. Use when you want to see how skill loading (progressive disclosure) works end to end.";
    expect(skillsPrompt(source.skills)).toBe(expected);
    expect(source.prompt).toBe(expected);
  });

  it("an unknown name is the exact not-found error", async () => {
    const source = await loadSkills(root);
    expect(await source.tool.execute({ name: "nope" })).toEqual({
      output: 'Skill "nope" not found. Available skills: hello-world',
      isError: true,
    });
  });

  it("the tool's name, description, schema and source", async () => {
    const { tool } = await loadSkills(root);
    expect(tool.name).toBe("skill");
    expect(tool.source).toBe("skill");
    expect(tool.description).toBe(
      "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.\n" +
        "\n" +
        "Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.\n" +
        "\n" +
        "The skill name must match one of the skills listed in your system prompt.",
    );
    expect(tool.description).toBe(SKILL_TOOL_DESCRIPTION);
    expect(JSON.stringify(tool.inputSchema)).toBe(
      '{"type":"object","properties":{"name":{"type":"string","description":"The name of the skill to load"}},"required":["name"],"additionalProperties":false}',
    );
  });

  it("the discovered skill", async () => {
    const { skills } = await loadSkills(root);
    expect(skills).toHaveLength(1);
    const [skill] = skills;
    expect(skill?.name).toBe("hello-world");
    expect(skill?.location).toBe(join(hello, "SKILL.md"));
    expect(skill?.origin).toBe("folder");
    expect(skill?.content.startsWith("\n# Hello World Skill\n")).toBe(true);
  });
});
