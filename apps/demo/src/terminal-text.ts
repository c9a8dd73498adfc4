// Text from a tool, an MCP server, a model or a stored row is shown to a person in a terminal.
// A terminal obeys control sequences: a prompt carrying ESC ] 0 ; … BEL retitles the window,
// ESC [ 2 K erases the line the person is reading, OSC 52 writes their clipboard, a carriage
// return or a bidi override makes one text look like another. Such text is made visible
// (`\x1b`, `\u202e`) before it is printed; only the demo's own colour codes reach the terminal.

/** C0 and C1 controls, DEL, line/paragraph separators and the bidi embedding/isolate marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what is neutralised
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The only escape sequences the demo writes itself: its colours (see `makeStyle`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the demo's own escape sequences
const OWN_STYLE = /\u001b\[(?:1|2|22|31|32|33|35|36|39)m/y;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x09) return " ";
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Untrusted text as one printable line: every control character shown as an escape, a line
 * break as ` ⏎ ` (a line of its own could pose as the demo's), a tab as a space.
 */
export function printable(text: unknown): string {
  const value = typeof text === "string" ? text : String(text);
  return value.replace(/\r?\n/g, " ⏎ ").replace(CONTROL, visible);
}

/**
 * The last guard before a line is written: the demo's own colour codes and line breaks pass,
 * every other control character is shown as an escape. Sites that print untrusted text call
 * `printable` themselves; this catches what one of them might miss.
 */
export function guardLine(line: string): string {
  let out = "";
  let at = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    const control =
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    if (!control || code === 0x0a) continue;
    if (code === 0x1b) {
      OWN_STYLE.lastIndex = i;
      const own = OWN_STYLE.exec(line);
      if (own !== null) {
        i += own[0].length - 1;
        continue;
      }
    }
    out += line.slice(at, i) + visible(line[i]!);
    at = i + 1;
  }
  return at === 0 ? line : out + line.slice(at);
}

/**
 * JSON for `--json` output: the same value, with the characters JSON leaves raw but a terminal
 * obeys (DEL, C1 controls, bidi marks, separators) written as `\u` escapes.
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
