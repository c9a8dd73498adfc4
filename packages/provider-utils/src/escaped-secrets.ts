// A server that echoes a secret in a JSON body may have escaped any of its characters (`\u0073k-`,
// the `\/` of PHP's and Java's encoders), and again for JSON carried inside a JSON string. Such
// text never contains the secret as written, so it is looked for in the text with its escapes
// undone, and what is found is mapped back to the characters of the text that spelled it.

/** How many times escapes are undone: JSON, JSON in a string, and once more. */
const MAX_DEPTH = 3;

const SHORT_ESCAPES = new Map<string, string>([
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
const HEX_START = /^[0-9a-fA-F]{0,3}$/;

/** Text with its JSON escapes undone, and where each of its characters came from. */
interface Unescaped {
  text: string;
  /**
   * `starts[i]` is where `text[i]` begins in the original text; `starts[text.length]` is where
   * the text ends there (before an escape the original was cut inside, if any).
   */
  starts: number[];
}

/**
 * Undoes the JSON escapes of `raw` once. A backslash that starts no escape (the text is not
 * JSON) stays as it is; an escape cut off at the very end is left out of the text.
 */
function unescapeOnce(raw: string): Unescaped {
  let text = "";
  const starts: number[] = [];
  let i = 0;
  for (;;) {
    const at = raw.indexOf("\\", i);
    const stop = at === -1 ? raw.length : at;
    text += raw.slice(i, stop);
    for (let j = i; j < stop; j++) starts.push(j);
    if (at === -1) break;
    const next = raw[at + 1];
    if (next === "u") {
      const hex = raw.slice(at + 2, at + 6);
      if (HEX4.test(hex)) {
        text += String.fromCharCode(Number.parseInt(hex, 16));
        starts.push(at);
        i = at + 6;
        continue;
      }
      if (at + 2 + hex.length === raw.length && HEX_START.test(hex)) {
        starts.push(at); // `\u` and fewer than 4 digits at the end: cut inside an escape
        return { text, starts };
      }
    }
    if (next === undefined) {
      starts.push(at); // a lone `\` at the end: cut inside an escape
      return { text, starts };
    }
    const short = SHORT_ESCAPES.get(next);
    text += short ?? "\\";
    starts.push(at);
    i = short === undefined ? at + 1 : at + 2;
  }
  starts.push(raw.length);
  return { text, starts };
}

/** `raw` read with its escapes undone once, twice..., each mapped back to `raw`. */
function unescapedViews(raw: string): Unescaped[] {
  const views: Unescaped[] = [];
  let text = raw;
  let toRaw: number[] | undefined;
  for (let depth = 0; depth < MAX_DEPTH && text.includes("\\"); depth++) {
    const once = unescapeOnce(text);
    const outer = toRaw;
    const starts = outer === undefined ? once.starts : once.starts.map((at) => outer[at] as number);
    views.push({ text: once.text, starts });
    text = once.text;
    toRaw = starts;
  }
  return views;
}

/**
 * The spans of `raw` (start, end) that spell one of `secrets` with some of its characters
 * escaped. Only text holding a backslash can; `secrets` as written are the caller's to find.
 */
export function escapedSecretSpans(raw: string, secrets: readonly string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const { text, starts } of unescapedViews(raw)) {
    for (const secret of secrets) {
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
        spans.push([starts[at] as number, starts[at + secret.length] as number]);
      }
    }
  }
  return spans;
}

/**
 * Where the longest start of any of `secrets` begins at the very end of `raw`, written as is or
 * escaped, or -1 when `raw` ends with none (a whole secret does not count). An escape that `raw`
 * was cut inside (`\`, `\u00`) counts as the next character of a secret when it could be one.
 */
export function secretStartAtEnd(raw: string, secrets: readonly string[]): number {
  let earliest = -1;
  const identity: Unescaped = { text: raw, starts: [] };
  for (const view of [identity, ...unescapedViews(raw)]) {
    const { text } = view;
    const end = view === identity ? raw.length : (view.starts[text.length] as number);
    // What an escape cut off at the end left of itself, its backslashes aside: "", "u", "u00"...
    const cutEscape =
      end < raw.length ? raw.slice(end).replace(/^\\+/, "").toLowerCase() : undefined;
    for (const secret of secrets) {
      const n = longestStartAtEnd(text, secret, cutEscape);
      if (n < 0) continue;
      const at = view === identity ? raw.length - n : (view.starts[text.length - n] as number);
      if (earliest === -1 || at < earliest) earliest = at;
    }
  }
  return earliest;
}

/**
 * The most characters (fewer than the whole secret) that `text` ends with and `secret` starts
 * with, or -1. With `cutEscape`, the text went on with an escape cut off there: it must fit the
 * secret's next character, and then no character before it is needed.
 */
function longestStartAtEnd(text: string, secret: string, cutEscape: string | undefined): number {
  const first = secret.charCodeAt(0);
  const fits = (n: number) =>
    cutEscape === undefined ||
    cutEscape === "" ||
    `u${secret.charCodeAt(n).toString(16).padStart(4, "0")}`.startsWith(cutEscape);
  const least = cutEscape === undefined ? 1 : 0;
  for (let n = Math.min(secret.length - 1, text.length); n >= least; n--) {
    if (n === 0) return fits(0) ? 0 : -1;
    if (
      text.charCodeAt(text.length - n) === first &&
      secret.startsWith(text.slice(-n)) &&
      fits(n)
    ) {
      return n;
    }
  }
  return -1;
}
