import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { error, ok, type Tool, type ToolContext, type ToolResult } from "@toolnexus/core";
import { type Rendered, renderCapped } from "./render.js";
import { effectiveMaxSkillBytes } from "./size-cap.js";
import {
  compareBytes,
  DEFAULT_SAMPLE_LIMIT,
  NO_SKILLS_PROMPT,
  notFoundText,
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

async function load(
  skill: Skill,
  limit: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Rendered & { dir: string }> {
  if (skill.origin === "data") {
    const base = skill.base ?? `skill://${skill.name}/`;
    const resources = skill.resources ?? [];
    // A data skill without resources is instructions only: no file list at all.
    const files = limit === -1 || resources.length === 0 ? undefined : resources.slice(0, limit);
    return { ...renderCapped(skill, base, files, maxBytes), dir: base };
  }
  const dir = dirname(skill.location);
  const files = limit === -1 ? undefined : await sampleSkillFiles(dir, limit, signal);
  return { ...renderCapped(skill, pathToFileURL(dir).href, files, maxBytes), dir };
}

/**
 * The `skill` tool (source `"skill"`) over a list of skills: the model calls it with a skill's
 * name and gets the skill's instructions, its base directory and a sample of its files, in the
 * contract's `<skill_content>` block. An unknown name is the error result
 * `Skill "x" not found. Available skills: a, b` (or `none`); it quotes a name longer than 80
 * characters by its start and lists at most 50 skills (see {@link notFoundText}).
 *
 * Folder skills sample their folder when called (up to `sampleLimit`, default 10); the call
 * stops with an error result when `ctx.signal` aborts. The output is at most `maxSkillBytes`
 * (1 MiB): longer content is cut, with a line saying so, and metadata `truncated: true`.
 */
export function skillTool(skills: Iterable<Skill>, options: SkillToolOptions = {}): Tool {
  const limit = effectiveSampleLimit(options.sampleLimit, "skillTool");
  const maxBytes = effectiveMaxSkillBytes(options.maxSkillBytes, "skillTool");
  const known = byName(skills);
  const available = [...known.keys()].sort(compareBytes);
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
        return error(notFoundText(name, available));
      }
      const signal = ctx?.signal;
      try {
        signal?.throwIfAborted();
        const { output, dir, contentBytes } = await load(skill, limit, maxBytes, signal);
        signal?.throwIfAborted();
        const metadata: Record<string, unknown> = { name: skill.name, dir };
        if (contentBytes !== undefined) Object.assign(metadata, { truncated: true, contentBytes });
        return ok(output, metadata);
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
