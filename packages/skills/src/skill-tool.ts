import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { error, ok, type Tool, type ToolContext, type ToolResult } from "@toolnexus/core";
import {
  compareBytes,
  DEFAULT_SAMPLE_LIMIT,
  NO_SKILLS_PROMPT,
  reasonText,
  SKILL_TOOL_DESCRIPTION,
  SKILLS_PROMPT_PREAMBLE,
} from "./text.js";
import type { Skill, SkillToolOptions } from "./types.js";
import { sampleSkillFiles } from "./walk.js";

/** Checks a `sampleLimit` and turns it into the effective cap: a count, or -1 for no list. */
export function effectiveSampleLimit(sampleLimit: number | undefined, who: string): number {
  const limit = sampleLimit ?? 0;
  if (!Number.isInteger(limit) || limit < -1) {
    throw new TypeError(
      `${who}: sampleLimit must be -1 (no file list), 0 (the default of ${DEFAULT_SAMPLE_LIMIT}) or a positive integer, got ${String(sampleLimit)}`,
    );
  }
  return limit === 0 ? DEFAULT_SAMPLE_LIMIT : limit;
}

/** The first skill of each name, in the order given. */
function byName(skills: Iterable<Skill>): Map<string, Skill> {
  const map = new Map<string, Skill>();
  for (const skill of skills) if (!map.has(skill.name)) map.set(skill.name, skill);
  return map;
}

/** The `<skill_content>` block, line for line as the contract writes it. */
function render(skill: Skill, base: string, files: readonly string[] | undefined): string {
  const lines = [
    `<skill_content name="${skill.name}">`,
    `# Skill: ${skill.name}`,
    "",
    skill.content.trim(),
    "",
    `Base directory for this skill: ${base}`,
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
  ];
  if (files !== undefined) {
    lines.push(
      "Note: file list is sampled.",
      "",
      "<skill_files>",
      files.map((file) => `<file>${file}</file>`).join("\n"),
      "</skill_files>",
    );
  }
  lines.push("</skill_content>");
  return lines.join("\n");
}

async function load(skill: Skill, limit: number, signal: AbortSignal | undefined) {
  if (skill.origin === "data") {
    const base = skill.base ?? `skill://${skill.name}/`;
    const resources = skill.resources ?? [];
    // A data skill without resources is instructions only: no file list at all.
    const files = limit === -1 || resources.length === 0 ? undefined : resources.slice(0, limit);
    return { output: render(skill, base, files), dir: base };
  }
  const dir = dirname(skill.location);
  const files = limit === -1 ? undefined : await sampleSkillFiles(dir, limit, signal);
  return { output: render(skill, pathToFileURL(dir).href, files), dir };
}

/**
 * The `skill` tool (source `"skill"`) over a list of skills: the model calls it with a skill's
 * name and gets the skill's instructions, its base directory and a sample of its files, in the
 * contract's `<skill_content>` block. An unknown name is the error result
 * `Skill "x" not found. Available skills: a, b` (or `none`).
 *
 * Folder skills sample their folder when called (up to `sampleLimit`, default 10); the call
 * stops with an error result when `ctx.signal` aborts.
 */
export function skillTool(skills: Iterable<Skill>, options: SkillToolOptions = {}): Tool {
  const limit = effectiveSampleLimit(options.sampleLimit, "skillTool");
  const known = byName(skills);
  const available = [...known.keys()].sort(compareBytes).join(", ") || "none";
  return {
    name: "skill",
    description: SKILL_TOOL_DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: { name: { type: "string", description: "The name of the skill to load" } },
      required: ["name"],
      additionalProperties: false,
    },
    source: "skill",
    async execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult> {
      const requested = args?.name;
      const name = typeof requested === "string" ? requested : String(requested ?? "");
      const skill = known.get(name);
      if (skill === undefined) {
        return error(`Skill "${name}" not found. Available skills: ${available}`);
      }
      const signal = ctx?.signal;
      try {
        signal?.throwIfAborted();
        const { output, dir } = await load(skill, limit, signal);
        signal?.throwIfAborted();
        return ok(output, { name: skill.name, dir });
      } catch (thrown) {
        if (signal?.aborted) {
          return error(`Skill "${name}" was not loaded: ${reasonText(signal.reason)}`);
        }
        return error(`Skill "${name}" could not be loaded: ${reasonText(thrown)}`);
      }
    },
  };
}

/**
 * The skills catalog for the system prompt: the contract's two-line preamble, a blank line,
 * `## Available Skills` and one `- **name**: description` line per skill that has a
 * description, sorted by name. Skills without a description are loadable but not listed. With
 * no described skill it is `No skills are currently available.`
 */
export function skillsPrompt(skills: Iterable<Skill>): string {
  const described = [...byName(skills).values()]
    .filter((skill) => skill.description !== undefined)
    .sort((a, b) => compareBytes(a.name, b.name));
  if (described.length === 0) return NO_SKILLS_PROMPT;
  return [
    SKILLS_PROMPT_PREAMBLE,
    "",
    "## Available Skills",
    ...described.map((skill) => `- **${skill.name}**: ${skill.description}`),
  ].join("\n");
}
