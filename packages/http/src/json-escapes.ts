// JSON string escapes decoded with their positions, so that a secret a server echoed escaped
// (`\/`, `\u0074`, a JSON document inside a JSON string…) can be found, then removed in place
// from the text as it was received.

/** A text with one more level of JSON string escapes decoded. */
export interface Unescaped {
  text: string;
  /** Code unit `i` of `text` was read from `source.slice(start[i], end[i])`. */
  start: Int32Array;
  end: Int32Array;
}

const SIMPLE = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * `source` with every JSON string escape decoded, wherever it stands: a body is not always a
 * whole JSON document (an error page quoting one, a body cut at the size cap). A backslash that
 * starts no valid escape is kept as it is.
 */
export function unescapeJson(source: string): Unescaped {
  const start = new Int32Array(source.length);
  const end = new Int32Array(source.length);
  const parts: string[] = [];
  let count = 0;
  for (let index = 0; index < source.length; ) {
    // Plain text up to the next backslash is copied in one piece.
    const slash = source.indexOf("\\", index);
    const plainEnd = slash === -1 ? source.length : slash;
    if (plainEnd > index) {
      parts.push(source.slice(index, plainEnd));
      for (; index < plainEnd; index++, count++) {
        start[count] = index;
        end[count] = index + 1;
      }
      continue;
    }
    const next = source.charAt(index + 1);
    const simple = SIMPLE.get(next);
    const hex = source.slice(index + 2, index + 6);
    let unit = "\\";
    let width = 1;
    if (simple !== undefined) {
      unit = simple;
      width = 2;
    } else if (next === "u" && HEX4.test(hex)) {
      unit = String.fromCharCode(Number.parseInt(hex, 16));
      width = 6;
    }
    parts.push(unit);
    start[count] = index;
    end[count] = index + width;
    count++;
    index += width;
  }
  return { text: parts.join(""), start: start.subarray(0, count), end: end.subarray(0, count) };
}

/** `inner`, decoded from `outer.text`, with its positions taken back to `outer`'s source. */
export function compose(outer: Unescaped, inner: Unescaped): Unescaped {
  return {
    text: inner.text,
    start: inner.start.map((index) => outer.start[index] ?? 0),
    end: inner.end.map((index) => outer.end[index - 1] ?? 0),
  };
}
