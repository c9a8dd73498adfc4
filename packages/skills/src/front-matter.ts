import { parseDocument } from "yaml";

/** A SKILL.md split into its front matter fields and its body. */
export interface ParsedSkillFile {
  /** Scalar front matter fields as trimmed strings; other values (lists, maps, null) are left out. */
  data: Record<string, string>;
  /** Everything after the closing `---` (the whole text when there is no front matter). */
  content: string;
  /** The YAML parser's first complaint, when the fences are there but the YAML does not parse. */
  malformed?: string;
}

const FENCED = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

/**
 * Splits a SKILL.md into front matter and body. The front matter is the text between a `---`
 * line at the very start and the next `---` line, parsed with the `yaml` package, so block
 * scalars (`>`, `|`), quoting and multi-line values all work. Scalars (strings, numbers,
 * booleans) become trimmed strings. Text without front matter is all body and no data; YAML
 * that does not parse gives no data and `malformed`, never a throw.
 */
export function parseSkillFile(text: string): ParsedSkillFile {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FENCED.exec(source);
  if (match === null) return { data: {}, content: source };
  const [, yaml = "", content = ""] = match;
  let parsed: unknown;
  try {
    const doc = parseDocument(yaml, { prettyErrors: false });
    const [first] = doc.errors;
    if (first !== undefined) return { data: {}, content, malformed: firstLine(first.message) };
    parsed = doc.toJS();
  } catch (thrown) {
    // toJS refuses documents that expand aliases too often (a "billion laughs" header).
    return { data: {}, content, malformed: firstLine(String((thrown as Error)?.message)) };
  }
  const data: Record<string, string> = {};
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        // Trimmed, so block scalars' trailing newlines (chomping differs between YAML
        // libraries) never reach the output: the ports stay byte-identical.
        data[key] = String(value).trim();
      }
    }
  }
  return { data, content };
}

function firstLine(message: string): string {
  return message.split("\n")[0]?.trim() ?? message;
}
