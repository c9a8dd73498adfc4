/** One skill: its name, what it is for, and the instructions the `skill` tool hands the model. */
export interface Skill {
  /** The name the model asks for; unique within a skill set. */
  name: string;
  /**
   * When to use the skill, for the model. A skill without one is still loadable but is left
   * out of {@link skillsPrompt}'s catalog.
   */
  description?: string;
  /** The absolute path of the SKILL.md (folder skills) or the logical base (data skills). */
  location: string;
  /** The instructions: the SKILL.md body after its front matter, or a data skill's content. */
  content: string;
  /** `"folder"` for a discovered SKILL.md, `"data"` for a skill supplied as a {@link SkillDef}. */
  origin: "folder" | "data";
  /** Data skills only: the resource names listed in the tool's `<skill_files>` block. */
  resources?: string[];
  /** Data skills only: the base shown to the model, `skill://<name>/` unless given. */
  base?: string;
}

/** A skill supplied as data instead of a folder: nothing of it is read from disk. */
export interface SkillDef {
  name: string;
  description?: string;
  content: string;
  /** Logical resource names listed in `<skill_files>`; none means instructions only. */
  resources?: string[];
  /** The base shown to the model; defaults to `skill://<name>/`. */
  base?: string;
}

/**
 * Why a candidate did not become a skill. The first four are the contract's; `dir-not-found`
 * (a skills folder that does not exist) and `too-large` (a SKILL.md over `maxSkillBytes`, left
 * unread) are this port's additions.
 */
export type SkillSkipReason =
  | "missing-name"
  | "malformed-frontmatter"
  | "duplicate-name"
  | "unreadable"
  | "dir-not-found"
  | "too-large";

/** A SKILL.md (or folder, or data skill) that was left out, and why. */
export interface SkillSkip {
  /** The SKILL.md path, the missing folder, or the data skill's base. */
  location: string;
  reason: SkillSkipReason;
  /** One line for a human, naming the file and the problem. */
  message: string;
}

/** What {@link listSkills} finds: every valid skill (first of each name) and every skip. */
export interface SkillInventory {
  skills: Skill[];
  skipped: SkillSkip[];
}

/** Where skills come from, shared by {@link listSkills} and {@link loadSkills}. */
export interface SkillSourceOptions {
  /** Folders searched for `**\/SKILL.md`, in order (earlier folders win a name clash). */
  dirs?: string | readonly string[];
  /** Skills supplied as data; they come after every folder skill. */
  skills?: readonly SkillDef[];
  /**
   * More data skills, resolved once per load, after `skills`. A provider that throws or rejects
   * is isolated: a warning (or, with `strict`, the error), and the other sources still load.
   */
  provider?: () => readonly SkillDef[] | Promise<readonly SkillDef[]>;
  /** Stops discovery; the returned promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The largest SKILL.md read, in bytes (default 1 MiB, `DEFAULT_MAX_SKILL_BYTES`). A larger
   * one is skipped as `too-large` without being read. With {@link loadSkills} it is also the
   * `skill` tool's output cap (see {@link SkillToolOptions.maxSkillBytes}).
   */
  maxSkillBytes?: number;
}

/** Options of {@link loadSkills}. */
export interface LoadSkillsOptions extends SkillSourceOptions {
  /**
   * Which skills to expose, by name. Absent or empty: all. At least one `true`: only the names
   * mapped to `true`. Only `false` values: all but those. Unknown names are ignored with a
   * warning.
   */
  filter?: Readonly<Record<string, boolean>>;
  /** The `skill` tool's `<skill_files>` cap: 0 or absent = 10, n > 0 = n, -1 = no list. */
  sampleLimit?: number;
  /** Throw a {@link SkillsError} instead of warning when anything was skipped. */
  strict?: boolean;
  /**
   * Where warnings go (skips, duplicate names, unknown filter names). Defaults to
   * `console.warn` with a `[toolnexus] ` prefix; pass `() => {}` to silence them.
   */
  onWarning?: (message: string) => void;
}

/** Options of {@link skillTool}. */
export interface SkillToolOptions {
  /** The `<skill_files>` cap: 0 or absent = 10, n > 0 = n, -1 = no list. */
  sampleLimit?: number;
  /**
   * The largest `skill` result, in UTF-8 bytes (default 1 MiB, `DEFAULT_MAX_SKILL_BYTES`). A
   * skill whose block would be longer has its content cut to fit, with a line saying so.
   */
  maxSkillBytes?: number;
}
