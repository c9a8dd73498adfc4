// The fixed texts of the skills contract (toolnexus SPEC §3). Every toolnexus port ships these
// byte for byte: do not reword them.

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
