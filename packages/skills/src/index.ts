export { listSkills } from "./discover.js";
export type { ParsedSkillFile } from "./front-matter.js";
export { parseSkillFile } from "./front-matter.js";
export type { SkillSource } from "./load.js";
export { loadSkills, SkillsError } from "./load.js";
export { DEFAULT_MAX_SKILL_BYTES } from "./size-cap.js";
export { skillsPrompt, skillTool } from "./skill-tool.js";
export {
  DEFAULT_SAMPLE_LIMIT,
  NO_SKILLS_PROMPT,
  SKILL_TOOL_DESCRIPTION,
  SKILLS_PROMPT_PREAMBLE,
} from "./text.js";
export type {
  LoadSkillsOptions,
  Skill,
  SkillDef,
  SkillInventory,
  SkillSkip,
  SkillSkipReason,
  SkillSourceOptions,
  SkillToolOptions,
} from "./types.js";
