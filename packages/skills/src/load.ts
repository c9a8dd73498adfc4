import type { Tool } from "@toolnexus/core";
import { discover, sourceOptions } from "./discover.js";
import { effectiveMaxSkillBytes } from "./size-cap.js";
import { effectiveSampleLimit, skillsPrompt, skillTool } from "./skill-tool.js";
import type { LoadSkillsOptions, Skill, SkillSkip } from "./types.js";

/** What {@link loadSkills} builds: the skills, the `skill` tool and the prompt catalog. */
export interface SkillSource {
  /** The exposed skills (after `filter`), first of each name, in discovery order. */
  skills: Skill[];
  /** Everything left out, with reasons (already reported through `onWarning`). */
  skipped: SkillSkip[];
  /** The `skill` tool over {@link SkillSource.skills}. */
  tool: Tool;
  /** `skillsPrompt(skills)`: the catalog to add to the system prompt. */
  prompt: string;
}

/** Thrown by `loadSkills({ strict: true })` when anything was skipped. */
export class SkillsError extends Error {
  override readonly name = "SkillsError";
  /** Every problem found, in order. */
  readonly skipped: readonly SkillSkip[];

  constructor(skipped: readonly SkillSkip[]) {
    const lines = skipped.map((problem) => `- ${problem.message}`);
    super(
      `${skipped.length} skill problem${skipped.length === 1 ? "" : "s"}:\n${lines.join("\n")}`,
    );
    this.skipped = skipped;
  }
}

const defaultWarning = (message: string) => console.warn(`[toolnexus] ${message}`);

function applyFilter(
  skills: readonly Skill[],
  filter: Readonly<Record<string, boolean>> | undefined,
  warn: (message: string) => void,
): Skill[] {
  if (filter === undefined) return [...skills];
  const names = Object.keys(filter);
  if (names.length === 0) return [...skills];
  const known = new Set(skills.map((skill) => skill.name));
  for (const name of names) {
    if (!known.has(name)) warn(`skill filter name "${name}" matched no skill`);
  }
  const allowList = names.some((name) => filter[name] === true);
  return skills.filter((skill) =>
    allowList ? filter[skill.name] === true : filter[skill.name] !== false,
  );
}

/**
 * Discovers skills and builds the `skill` tool and the prompt catalog in one call.
 *
 * Folders are searched for `**\/SKILL.md` (following symbolic links, skipping `node_modules`
 * and `.git`); each file needs YAML front matter with a `name`, and its body is the skill's
 * content. When two skills share a name the first found wins. Problems never stop the load:
 * a missing folder, a SKILL.md without a name or with broken YAML, an unreadable file and a
 * duplicate name are each skipped with a warning (`onWarning`), or, with `strict: true`, all
 * reported at once in a {@link SkillsError}. A SKILL.md over `maxSkillBytes` (1 MiB) is skipped
 * unread (`too-large`), and the tool's output is cut to the same cap.
 *
 * A bare string or array is shorthand for `{ dirs }`.
 */
export async function loadSkills(
  input: string | readonly string[] | LoadSkillsOptions,
): Promise<SkillSource> {
  const options = sourceOptions(input) as LoadSkillsOptions;
  const limit = options.sampleLimit;
  // Fail on a bad option before touching the disk.
  effectiveSampleLimit(limit, "loadSkills");
  const maxSkillBytes = effectiveMaxSkillBytes(options.maxSkillBytes, "loadSkills");
  const warn = options.onWarning ?? defaultWarning;
  const inventory = await discover(options);
  if (options.strict === true && inventory.skipped.length > 0) {
    throw new SkillsError(inventory.skipped);
  }
  for (const problem of inventory.skipped) warn(problem.message);
  const skills = applyFilter(inventory.skills, options.filter, warn);
  const tool = skillTool(skills, {
    ...(limit === undefined ? {} : { sampleLimit: limit }),
    maxSkillBytes,
  });
  return { skills, skipped: inventory.skipped, tool, prompt: skillsPrompt(skills) };
}
