// The fixed texts of the skills contract (toolnexus SPEC §3). Every toolnexus port ships these
// byte for byte: do not reword them.
import { quotedStart } from "@toolnexus/core";

/** The `skill` tool's description: opencode's `skill.txt`, verbatim. */
export const SKILL_TOOL_DESCRIPTION = `Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.

Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.

The skill name must match one of the skills listed in your system prompt.`;

/** The two lines that open {@link skillsPrompt}'s output when at least one skill is described. */
export const SKILLS_PROMPT_PREAMBLE =
  "Skills provide specialized instructions and workflows for specific tasks.\n" +
  "Use the skill tool to load a skill when a task matches its description.";

/** What {@link skillsPrompt} returns when no skill has a description. */
export const NO_SKILLS_PROMPT = "No skills are currently available.";

/** The sibling-file sample cap when none is set (`sampleLimit` 0 or absent). */
export const DEFAULT_SAMPLE_LIMIT = 10;

/**
 * Orders strings by their UTF-8 bytes, as `strcmp` does. Every port sorts names and directory
 * entries this way, so skill catalogs and file samples come out in the same order everywhere.
 */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** A short, human message for whatever an AbortSignal was aborted with. */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error || (typeof reason === "object" && reason !== null)) {
    const message = (reason as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
  }
  return reason === undefined ? "cancelled" : String(reason);
}

/** A requested name up to this many characters is quoted whole in the not-found error. */
const WHOLE_NAME_CHARS = 80;
/** The most skill names the not-found error lists. */
const LISTED_SKILLS = 50;
/** The most characters of skill names the not-found error lists (long names stop it sooner). */
const LISTED_CHARS = 4000;

/**
 * The not-found error, bounded whatever the request and the catalog: the requested name whole
 * (`Skill "x"`) up to 80 characters, else its first 40 JSON-quoted and its length; the sorted
 * available names up to 50 (and 4000 characters), then `… and <n> more`.
 */
export function notFoundText(requested: string, sortedNames: readonly string[]): string {
  const quoted = requested.length > WHOLE_NAME_CHARS ? quotedStart(requested) : `"${requested}"`;
  const listed: string[] = [];
  let chars = 0;
  for (const name of sortedNames) {
    if (listed.length === LISTED_SKILLS || chars + name.length > LISTED_CHARS) break;
    listed.push(name);
    chars += name.length + 2;
  }
  const more = sortedNames.length - listed.length;
  const available =
    sortedNames.length === 0
      ? "none"
      : more === 0
        ? listed.join(", ")
        : [...listed, `… and ${more} more`].join(", ");
  return `Skill ${quoted} not found. Available skills: ${available}`;
}
