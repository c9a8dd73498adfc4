// The `<skill_content>` block the `skill` tool returns, and its size cap: a block over
// `maxSkillBytes` keeps its frame (name, base directory, file list) and has its content cut,
// with a line saying how much was left out, so the model knows it did not get everything.
import { cutUtf8 } from "./size-cap.js";
import type { Skill } from "./types.js";

/** The `<skill_content>` block, line for line as the contract writes it. */
export function render(content: string, name: string, base: string, files?: readonly string[]) {
  const lines = [
    `<skill_content name="${name}">`,
    `# Skill: ${name}`,
    "",
    content,
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

/** A rendered block; `contentBytes` is set when the content was cut to fit. */
export interface Rendered {
  output: string;
  contentBytes?: number;
}

/** The block for `skill`, at most `maxBytes` of UTF-8. */
export function renderCapped(
  skill: Skill,
  base: string,
  files: readonly string[] | undefined,
  maxBytes: number,
): Rendered {
  const content = skill.content.trim();
  const whole = render(content, skill.name, base, files);
  if (Buffer.byteLength(whole, "utf8") <= maxBytes) return { output: whole };
  const contentBytes = Buffer.byteLength(content, "utf8");
  const note = (shown: number) =>
    `\n\n[skill content truncated: ${shown} of ${contentBytes} bytes shown; the limit of the skill tool's output is ${maxBytes} bytes]`;
  // The frame and the longest note (every count at its widest) are kept whole.
  const frame = Buffer.byteLength(render(note(contentBytes), skill.name, base, files), "utf8");
  const room = maxBytes - frame;
  if (room <= 0) {
    // Even the frame is over the cap (a huge name or file list): cut the block itself.
    return { output: cutUtf8(whole, maxBytes), contentBytes };
  }
  const shown = cutUtf8(content, room);
  const output = render(shown + note(Buffer.byteLength(shown, "utf8")), skill.name, base, files);
  return { output, contentBytes };
}
