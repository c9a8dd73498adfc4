// The cap on one skill: a SKILL.md is instructions for a model, so a file of hundreds of
// megabytes is a mistake or an attack, and whatever the `skill` tool returns goes whole into
// the model's context and the stored run. Discovery does not read a SKILL.md over the cap, and
// the tool cuts its output to it.

/** The default `maxSkillBytes`: 1 MiB. */
export const DEFAULT_MAX_SKILL_BYTES = 1024 * 1024;

/** Checks a `maxSkillBytes` option and gives the effective cap. */
export function effectiveMaxSkillBytes(maxSkillBytes: number | undefined, who: string): number {
  if (maxSkillBytes === undefined) return DEFAULT_MAX_SKILL_BYTES;
  if (!Number.isSafeInteger(maxSkillBytes) || maxSkillBytes < 1) {
    throw new TypeError(
      `${who}: maxSkillBytes must be a positive integer (bytes), got ${String(maxSkillBytes)}`,
    );
  }
  return maxSkillBytes;
}

/** The longest start of `text` that is at most `maxBytes` of UTF-8, never half a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Back up over continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
