// Where known secret values stand in a text that may echo them: as written, JSON-escaped by a
// server that put them in JSON of its own, or HTML-escaped by an error page. One finder for every
// package that redacts (MCP results, HTTP tool bodies, model providers' error bodies), each with
// its own marker.
import { mayHoldReferences, referencesView, undoReferences } from "./html-references.js";
import { type UnescapedView, unescapedTexts, unescapedViews } from "./json-escapes.js";

/** A part of a text: from `start` up to (not including) `end`. */
export type TextSpan = [start: number, end: number];

/** Adds to `spans` every place of `secret` in `view.text`, as positions in the original. */
function addMatches(spans: TextSpan[], view: UnescapedView, secret: string): void {
  const { text, starts } = view;
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    spans.push([starts[at]!, starts[at + secret.length]!]);
  }
}

/** A reading of a text, and how it may end: cut inside a JSON escape, or inside anything. */
interface Reading extends UnescapedView {
  /** What an escape cut off at the reading's end may be: JSON's (`\u00`) or any character. */
  cut: "json" | "any";
}

/** `outer`'s positions carried through `inner`, a reading of `outer.text`. */
function through(outer: UnescapedView, inner: UnescapedView): UnescapedView {
  return { text: inner.text, starts: inner.starts.map((at) => outer.starts[at]!) };
}

/**
 * Every reading of `text` besides the text as written: its JSON escapes undone (up to 3 levels),
 * its HTML references undone, and the JSON escapes of that undone in turn. None for text without
 * a backslash or an `&`.
 */
function readingsOf(text: string): Reading[] {
  const out: Reading[] = [];
  if (text.includes("\\")) {
    for (const view of unescapedViews(text)) out.push({ ...view, cut: "json" });
  }
  const html = referencesView(text);
  if (html !== undefined) {
    out.push({ ...html, cut: "any" });
    if (html.text.includes("\\")) {
      for (const view of unescapedViews(html.text)) {
        out.push({ ...through(html, view), cut: "any" });
      }
    }
  }
  return out;
}

/** The texts of {@link readingsOf} without their positions: cheaper, to see whether any holds a secret. */
function readingTexts(text: string): string[] {
  const out = text.includes("\\") ? unescapedTexts(text) : [];
  if (mayHoldReferences(text)) {
    const html = undoReferences(text);
    if (html !== text) out.push(html, ...(html.includes("\\") ? unescapedTexts(html) : []));
  }
  return out;
}

/**
 * Where each of `secrets` stands in `text`, as written, JSON-escaped (`\/`, `\u0073` with hex
 * in either case, escaped again for JSON inside a JSON string, up to 3 levels) or HTML-escaped
 * (`&#x2F;`, `&#47;`, `&amp;`…, JSON escapes inside that too): spans sorted by start, overlapping
 * ones merged, so replacing each leaves no fragment of any secret. Empty secrets are ignored; a
 * minimum length is the caller's to apply. Text without a backslash or an `&` is only searched
 * as written, one `indexOf` pass per secret.
 */
export function secretSpans(text: string, secrets: readonly string[]): TextSpan[] {
  const spans: TextSpan[] = [];
  for (const secret of secrets) {
    for (let at = secret === "" ? -1 : text.indexOf(secret); at !== -1; ) {
      spans.push([at, at + secret.length]);
      at = text.indexOf(secret, at + 1);
    }
  }
  // Only text with a backslash or an `&` can spell a secret escaped: the common case stops here.
  // Where characters came from is worked out only when a reading holds a secret (rarely).
  if (
    secrets.length > 0 &&
    (text.includes("\\") || mayHoldReferences(text)) &&
    holdsAny(readingTexts(text), secrets)
  ) {
    for (const view of readingsOf(text)) {
      for (const secret of secrets) if (secret !== "") addMatches(spans, view, secret);
    }
  }
  return merged(spans);
}

/**
 * The spellings of a secret value a server may echo besides JSON escapes (which `secretSpans`
 * finds by itself): as written, and percent-encoded as a URL or form carries it, with upper- and
 * lower-case hex (`%2F`, `%2f`; servers and proxies write either). Pass each spelling to
 * `secretSpans` or `replaceSecrets`.
 */
export function secretSpellings(value: string): string[] {
  const spellings = [value];
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate cannot be percent-encoded, so it is never echoed that way.
    return spellings;
  }
  if (encoded === value) return spellings;
  spellings.push(encoded);
  const lower = encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
  if (lower !== encoded) spellings.push(lower);
  return spellings;
}

/** True when one of `texts` holds one of `secrets`. */
function holdsAny(texts: readonly string[], secrets: readonly string[]): boolean {
  return texts.some((text) => secrets.some((secret) => secret !== "" && text.includes(secret)));
}

/** `spans` sorted, with overlapping ones made one (spans that only touch stay apart). */
function merged(spans: TextSpan[]): TextSpan[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a[0] - b[0]);
  const out: TextSpan[] = [spans[0]!];
  for (const span of spans.slice(1)) {
    const last = out[out.length - 1]!;
    if (span[0] < last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push(span);
  }
  return out;
}

/**
 * `text` with every place of `secrets` found by {@link secretSpans} replaced by `marker`;
 * `text` itself when there is none.
 */
export function replaceSecrets(text: string, secrets: readonly string[], marker: string): string {
  const spans = secretSpans(text, secrets);
  if (spans.length === 0) return text;
  let out = "";
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + marker;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * For a text that was cut off at its end (a body read up to a cap): where a secret's beginning
 * stands at the very end, as written, JSON-escaped or HTML-escaped, or -1. Of several, the one
 * that starts earliest (a short secret may match more of the end than a long one). An escape the
 * cut fell inside (`\`, `\u00`, `&#x2`) counts as a secret's next character when it could be
 * one. A whole secret does not count: {@link secretSpans} finds those.
 */
export function secretStartAtEnd(text: string, secrets: readonly string[]): number {
  let earliest = -1;
  const asWritten = { text, starts: undefined, cut: "json" as const };
  for (const view of [asWritten, ...readingsOf(text)]) {
    const at = (n: number) =>
      view.starts === undefined ? text.length - n : view.starts[view.text.length - n]!;
    const end = at(0);
    // What a JSON escape cut off at the end left of itself, its backslashes aside: "", "u",
    // "u00"...; an HTML reference cut off there may be any character.
    let fits: ((code: number) => boolean) | undefined;
    if (end < text.length) {
      const cutEscape = text.slice(end).replace(/^\\+/, "").toLowerCase();
      fits =
        view.cut === "any"
          ? () => true
          : (code) => `u${code.toString(16).padStart(4, "0")}`.startsWith(cutEscape);
    }
    for (const secret of secrets) {
      const n = longestStartAtEnd(view.text, secret, fits);
      if (n !== -1 && (earliest === -1 || at(n) < earliest)) earliest = at(n);
    }
  }
  return earliest;
}

/**
 * The most characters (fewer than the whole secret) that `text` ends with and `secret` starts
 * with, or -1. With `fits`, the text went on with an escape cut off there: the secret's next
 * character must fit it, and then no character before it is needed.
 */
function longestStartAtEnd(
  text: string,
  secret: string,
  fits: ((code: number) => boolean) | undefined,
): number {
  const next = (n: number) => fits === undefined || fits(secret.charCodeAt(n));
  const first = secret.charCodeAt(0);
  for (let n = Math.min(secret.length - 1, text.length); n > 0; n--) {
    if (
      text.charCodeAt(text.length - n) === first &&
      text.endsWith(secret.slice(0, n)) &&
      next(n)
    ) {
      return n;
    }
  }
  return fits !== undefined && secret !== "" && next(0) ? 0 : -1;
}
