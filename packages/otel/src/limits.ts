// How long a string this package records may be. The OpenTelemetry SDK keeps attribute values
// whole unless told otherwise, and most of what a run records comes from outside the program: a
// model picks call ids, response ids and finish reasons, a tool returns whatever it returns. So
// every string is cut here, before it reaches a span, an event, a status or a metric.
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import { ATTR } from "./names.js";

/** The caps in force: content attributes get their own, everything else the attribute cap. */
export interface Limits {
  /** Any string recorded that is not content: ids, names, reasons, error types and messages. */
  attribute: number;
  /** Each content attribute (`recordContent: true`), and the whole of `gen_ai.input.messages`. */
  content: number;
}

/** Default cap of a string that is not content: far above any real id, name or reason. */
export const DEFAULT_MAX_ATTRIBUTE_CHARS = 4 * 1024;
/** Default cap of one content attribute: about 8k tokens of prose, readable in a trace viewer. */
export const DEFAULT_MAX_CONTENT_CHARS = 32 * 1024;
/** The smallest cap accepted: room for the cut marker and some of the text. */
export const MIN_CHARS = 64;

/** Attributes whose value is content: capped with {@link Limits.content}. */
const CONTENT: ReadonlySet<string> = new Set([
  ATTR.systemInstructions,
  ATTR.inputMessages,
  ATTR.outputMessages,
  ATTR.toolArguments,
  ATTR.toolResult,
  ATTR.requestPrompt,
]);

function marker(removed: number): string {
  return `…[cut: ${removed} characters]`;
}

/**
 * `text` when it is at most `max` characters (UTF-16 code units, as `String.length` counts
 * them); else its beginning and a marker saying how many characters were cut, `max` characters
 * in all. A cut never splits a surrogate pair.
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // At most text.length characters are removed: a marker this long is the longest it gets.
  // Keeping more shortens the count in the marker; keep what makes the result `max` exactly.
  let keep = Math.max(0, max - marker(text.length).length);
  for (;;) {
    const next = Math.max(0, max - marker(text.length - keep).length);
    if (next <= keep) break;
    keep = next;
  }
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + marker(text.length - keep);
}

/** The cap of the attribute `key`. */
export function capOf(key: string, limits: Limits): number {
  return CONTENT.has(key) ? limits.content : limits.attribute;
}

/** `value` with its string (or the strings of an array) cut to the cap of the attribute `key`. */
export function capAttribute(key: string, value: AttributeValue, limits: Limits): AttributeValue {
  return capValue(value, capOf(key, limits));
}

function capValue(value: AttributeValue, max: number): AttributeValue {
  if (typeof value === "string") return cut(value, max);
  if (Array.isArray(value) && value.some((item) => typeof item === "string" && item.length > max)) {
    return (value as (string | null | undefined)[]).map((item) =>
      typeof item === "string" ? cut(item, max) : item,
    );
  }
  return value;
}

/** `attributes` with every string (and every string in an array) cut to its key's cap. */
export function capped(attributes: Attributes, limits: Limits): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    out[key] = value === undefined ? value : capValue(value, capOf(key, limits));
  }
  return out;
}

/** Checks a cap option: a whole number of at least {@link MIN_CHARS}, or `Infinity` (no cap). */
export function checkCap(name: string, value: unknown): void {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < MIN_CHARS) {
    throw new TypeError(
      `otelInstrumentation: ${name} must be a whole number of at least ${MIN_CHARS}, or Infinity`,
    );
  }
}
