// Small pieces of JSON text written by hand where the loop and the memory store make them at
// every call: on Node 20 each JSON.stringify call has a fixed cost of about 2,000 machine
// instructions, more than writing a short string or an empty object takes.

/** What JSON escapes in a string: quotes, backslashes, controls, any surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(text)`: most texts need no escape, and a regex test costs a fraction of the
 * call. (A surrogate pair needs none either; it is left to JSON.stringify with the lone ones.)
 */
export const quoted = (text: string): string =>
  ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;

/**
 * `JSON.stringify(data)` for an event's or a row's data object, `"{}"` without the call when it
 * has no own enumerable key (a plain object's for-in then sees none: the memory store checks
 * that Object.prototype has no enumerable key before it copies anything, json-copy.ts).
 */
export function dataJson(data: Record<string, unknown> | undefined): string {
  if (data === undefined) return "{}";
  for (const _ in data) return JSON.stringify(data);
  // No key, but an own toJSON (not enumerable) or a class with one still decides the text.
  return Object.getPrototypeOf(data) === Object.prototype && !("toJSON" in data)
    ? "{}"
    : JSON.stringify(data);
}
