// A text read with its HTML character references undone (`&#x2F;`, `&#47;`, `&amp;`), with the
// position each character came from: an error page or a template that quotes a secret escapes
// its `/`, `+`, `=` or `&` that way, so the secret is found in this reading and removed from the
// text as it was received (see secret-spans.ts).
import type { UnescapedView } from "./json-escapes.js";

/** The named references escapers write for the characters they escape (HTML's own five). */
const NAMED = new Map([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
]);

/** What a reference cut off by the end of the text can look like (`&`, `&#x2`, `&am`). */
const CUT_REFERENCE = /^&(?:#(?:[xX][0-9a-fA-F]{0,8}|[0-9]{0,10})?|[a-zA-Z]{0,4})$/;

/** True when `raw` may hold a reference: the cheap test before a reading. */
export function mayHoldReferences(raw: string): boolean {
  return raw.includes("&");
}

const isDigit = (code: number) => code >= 48 && code <= 57;
const hexValue = (code: number) =>
  isDigit(code) ? code - 48 : (code | 32) >= 97 && (code | 32) <= 102 ? (code | 32) - 87 : -1;

/**
 * The reference at `at` (an `&`): the character it stands for and its length, or undefined for
 * text this reader does not undo. Numeric references may have any number of leading zeros; a
 * `;` is required (what escapers write).
 */
function referenceAt(raw: string, at: number): { char: string; length: number } | undefined {
  if (raw.charCodeAt(at + 1) === 35 /* # */) {
    const hex = (raw.charCodeAt(at + 2) | 32) === 120; /* x */
    let i = at + (hex ? 3 : 2);
    let code = 0;
    const first = i;
    for (; i < raw.length; i++) {
      const c = raw.charCodeAt(i);
      const digit = hex ? hexValue(c) : isDigit(c) ? c - 48 : -1;
      if (digit === -1) break;
      code = code * (hex ? 16 : 10) + digit;
      if (code > 0x10ffff) return undefined;
    }
    if (i === first || raw.charCodeAt(i) !== 59 /* ; */) return undefined;
    return { char: String.fromCodePoint(code), length: i + 1 - at };
  }
  const semicolon = raw.indexOf(";", at + 2);
  if (semicolon === -1 || semicolon - at > 5) return undefined;
  const char = NAMED.get(raw.slice(at + 1, semicolon).toLowerCase());
  return char === undefined ? undefined : { char, length: semicolon + 1 - at };
}

/**
 * `raw` with its character references undone once. A reference cut off at the very end is left
 * out of the text (`starts[text.length]` is where it began), as `unescapeOnce` does for JSON.
 * Without `starts`, only the text is made (to see cheaply whether a secret is there at all).
 */
export function undoReferences(raw: string, starts?: Int32Array): string {
  let text = "";
  let count = 0;
  let from = 0;
  for (;;) {
    const at = raw.indexOf("&", from);
    const stop = at === -1 ? raw.length : at;
    text += raw.slice(from, stop);
    if (starts !== undefined) for (let i = from; i < stop; i++) starts[count++] = i;
    if (at === -1) {
      if (starts !== undefined) starts[count] = raw.length;
      return text;
    }
    const reference = referenceAt(raw, at);
    if (reference === undefined && raw.length - at <= 13 && CUT_REFERENCE.test(raw.slice(at))) {
      if (starts !== undefined) starts[count] = at; // cut inside a reference: the text ends there
      return text;
    }
    if (reference === undefined) {
      // Not a reference this reader undoes: the `&` stays as it is.
      if (starts !== undefined) starts[count++] = at;
      text += "&";
      from = at + 1;
      continue;
    }
    // A character outside the BMP is two UTF-16 units; both come from the one reference.
    const { char, length } = reference;
    if (starts !== undefined) for (let k = 0; k < char.length; k++) starts[count++] = at;
    text += char;
    from = at + length;
  }
}

/** `raw` read once with its references undone, with positions; undefined when it has none. */
export function referencesView(raw: string): UnescapedView | undefined {
  if (!mayHoldReferences(raw)) return undefined;
  const starts = new Int32Array(raw.length + 1);
  const text = undoReferences(raw, starts);
  if (text === raw) return undefined;
  return { text, starts: starts.subarray(0, text.length + 1) };
}
