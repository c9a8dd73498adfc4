// A text read with its JSON string escapes undone, once or more, with the position each character
// came from: a secret echoed escaped (`\u0073k-`, `\/`, JSON inside a JSON string) is found in
// such a reading and removed from the text as it was received (see secret-spans.ts).

/** How many times escapes are undone: a JSON document, one quoted in its strings, one more. */
export const MAX_ESCAPE_DEPTH = 3;

/** A text with its escapes undone, and where each of its characters stands in the original. */
export interface UnescapedView {
  text: string;
  /**
   * `starts[i]` is where `text[i]` begins in the original; `starts[text.length]` is where the
   * text ends there: the original's end, or the start of an escape the original was cut inside.
   */
  starts: Int32Array;
}

const SHORT_ESCAPES = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
]);

/** How many hex digits (at most 4) `text` has from `from` on. */
function hexDigits(text: string, from: number): number {
  let n = 0;
  while (n < 4 && /[0-9a-fA-F]/.test(text.charAt(from + n))) n++;
  return n;
}

/**
 * `raw` with its JSON string escapes undone once, wherever they stand (a body is not always one
 * JSON document: an error page may quote one, a cap may cut it). A backslash that starts no
 * escape is kept; an escape cut off at the very end (`\`, `\u00`) is left out of the text.
 */
export function unescapeOnce(raw: string): UnescapedView {
  const starts = new Int32Array(raw.length + 1);
  const text = undoEscapes(raw, starts);
  return { text, starts: starts.subarray(0, text.length + 1) };
}

/**
 * {@link unescapeOnce}'s text; with `starts`, where each character starts in `raw` goes there
 * (worked out only when asked: it is most of the cost).
 */
function undoEscapes(raw: string, starts?: Int32Array): string {
  let text = ""; // `+=` (a rope, flattened once) is twice as fast here as joining an array
  let count = 0; // characters of the text so far, counted for `starts`
  let from = 0;
  for (;;) {
    // Plain text up to the next backslash goes in one piece.
    const at = raw.indexOf("\\", from);
    const stop = at === -1 ? raw.length : at;
    text += raw.slice(from, stop);
    if (starts !== undefined) for (let i = from; i < stop; i++) starts[count++] = i;
    if (at === -1) {
      if (starts !== undefined) starts[count] = raw.length;
      break;
    }
    const next = raw.charAt(at + 1);
    const digits = next === "u" ? hexDigits(raw, at + 2) : 0;
    if (next === "" || (next === "u" && digits < 4 && at + 2 + digits === raw.length)) {
      if (starts !== undefined) starts[count] = at; // cut inside an escape: the text ends there
      break;
    }
    if (starts !== undefined) starts[count++] = at;
    if (digits === 4) {
      text += String.fromCharCode(Number.parseInt(raw.slice(at + 2, at + 6), 16));
      from = at + 6;
      continue;
    }
    const short = SHORT_ESCAPES.get(next);
    text += short ?? "\\";
    from = short === undefined ? at + 1 : at + 2;
  }
  return text;
}

/** `raw` read with `once` again and again while it has a backslash, up to the depth. */
function readings<T extends { text: string }>(raw: string, once: (text: string) => T): T[] {
  const out: T[] = [];
  let text = raw;
  for (let depth = 0; depth < MAX_ESCAPE_DEPTH && text.includes("\\"); depth++) {
    const next = once(text);
    // Only backslashes that start no escape: every further reading is the same text.
    if (next.text === text) break;
    out.push(next);
    text = next.text;
  }
  return out;
}

/**
 * The texts of {@link unescapedViews} without their positions: cheaper, to see whether a
 * secret is there at all before finding where.
 */
export function unescapedTexts(raw: string): string[] {
  return readings(raw, (text) => ({ text: undoEscapes(text) })).map((reading) => reading.text);
}

/**
 * `raw` read with its escapes undone once, twice..., up to {@link MAX_ESCAPE_DEPTH} times, each
 * reading's positions in `raw`. None for text without a backslash, so plain text costs one scan.
 */
export function unescapedViews(raw: string): UnescapedView[] {
  let toRaw: Int32Array | undefined;
  return readings(raw, unescapeOnce).map((once) => {
    const outer = toRaw;
    const starts = outer === undefined ? once.starts : once.starts.map((at) => outer[at]!);
    toRaw = starts;
    return { text: once.text, starts };
  });
}
