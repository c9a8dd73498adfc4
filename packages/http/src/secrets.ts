// The secrets of a call (see configured-secrets.ts), and their removal from anything the model
// reads.
import { compose, type Unescaped, unescapeJson } from "./json-escapes.js";

/** Values shorter than this are not redacted: they would mangle ordinary text. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = "[redacted]";

/**
 * How many levels of JSON escaping are looked through: a document, one quoted inside one of its
 * strings, and one more. Each level costs a pass over the body.
 */
const MAX_ESCAPE_DEPTH = 3;

/** A backslash beginning an escape that a cut left unfinished (`\`, `\u`, `\u00`…). */
const UNFINISHED_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\(?:u[0-9a-fA-F]{0,3})?$/;

/**
 * The forms a value takes when a server echoes it: as is, URL-encoded, inside a JSON string
 * (also with `/` escaped as `\/`, as PHP and Java encoders do). Other escapes (`\u0074`…) are
 * found by decoding the text instead: there are too many combinations to list.
 */
function formsOf(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set([value, json, json.replaceAll("/", "\\/")]);
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URL-encoded, so it cannot be echoed that way either.
  }
  return [...forms];
}

type Span = [start: number, end: number];

/** `text` with each span (merged where they overlap) replaced by `[redacted]`. */
function replaceSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let done = 0;
  let open: Span | undefined;
  for (const span of spans) {
    if (open !== undefined && span[0] < open[1]) {
      open[1] = Math.max(open[1], span[1]);
      continue;
    }
    if (open !== undefined) {
      out += text.slice(done, open[0]) + REDACTED;
      done = open[1];
    }
    open = [span[0], span[1]];
  }
  if (open !== undefined) out += text.slice(done, open[0]) + REDACTED + text.slice(open[1]);
  return out;
}

/** The secrets of one call. */
export class Secrets {
  /** Every form of every value, longest first. */
  readonly #forms: string[];

  constructor(values: readonly string[]) {
    const long = values.filter((value) => value.length >= MIN_REDACTED_LENGTH);
    this.#forms = [...new Set(long.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret replaced by `[redacted]`, escaped however, the rest untouched. */
  redact(text: string): string {
    return this.#forms.length === 0 ? text : this.#redactIn(text, layersOf(text));
  }

  /** `redact`, given the text's decoded layers. */
  #redactIn(text: string, layers: readonly Unescaped[]): string {
    const spans = this.#find(text);
    for (const layer of layers) {
      for (const [start, end] of this.#find(layer.text)) {
        spans.push([layer.start[start] ?? 0, layer.end[end - 1] ?? text.length]);
      }
    }
    return replaceSpans(text, spans);
  }

  /**
   * Like `redact`, for text that was cut: a secret's beginning left at the very end (the cut
   * fell inside it), in any of its forms or escaped, is removed too, and so is an escape the
   * cut left unfinished (it may be a secret's first character).
   */
  redactCut(text: string): string {
    if (this.#forms.length === 0) return text;
    let layers = layersOf(text);
    const out = this.#redactIn(text, layers);
    // Positions moved only if something was redacted.
    if (out !== text) layers = layersOf(out);
    let cut = this.#tailStart(out);
    for (const layer of layers) {
      const at = this.#tailStart(layer.text);
      if (at < layer.text.length) cut = Math.min(cut, layer.start[at] ?? cut);
    }
    return out.slice(0, cut);
  }

  /** Every place in `text` where a form of a secret stands, overlapping ones included. */
  #find(text: string): Span[] {
    const spans: Span[] = [];
    for (const form of this.#forms) {
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
        spans.push([at, at + form.length]);
      }
    }
    return spans;
  }

  /** Where the end of `text` may be the beginning of a secret, else `text.length`. */
  #tailStart(text: string): number {
    const unfinished = UNFINISHED_ESCAPE.exec(text);
    const whole = unfinished === null ? text : text.slice(0, unfinished.index);
    let longest = 0;
    for (const form of this.#forms) {
      for (let length = Math.min(form.length - 1, whole.length); length > longest; length--) {
        if (whole.endsWith(form.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return whole.length - longest;
  }
}

/** `text` read through each level of JSON escaping it has, positions kept in `text`. */
function layersOf(text: string): Unescaped[] {
  const layers: Unescaped[] = [];
  let source = text;
  for (let depth = 0; depth < MAX_ESCAPE_DEPTH && source.includes("\\"); depth++) {
    const next = unescapeJson(source);
    if (next.text === source) break;
    const previous = layers.at(-1);
    layers.push(previous === undefined ? next : compose(previous, next));
    source = next.text;
  }
  return layers;
}
