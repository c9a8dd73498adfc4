// Comparing and copying JSON data without writing its text: the checkpoint codec does both for
// a call's arguments at every store read and write, and a JSON.stringify or JSON.parse call has a
// fixed cost larger than the walk of a small object (comparing `{ a, b }` through two texts: 420
// ns on Node 20, 115 ns walked). Anything the walk cannot be sure of goes through JSON itself.

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;

/** Past this depth the texts are compared (JSON then also reports a cycle). */
const MAX_DEPTH = 64;

/** Whether the shared prototypes give JSON more than an object's own keys (a toJSON, a key). */
function realmChanged(): boolean {
  if ("toJSON" in OBJECT_PROTO || "toJSON" in ARRAY_PROTO) return true;
  for (const _ in OBJECT_PROTO) return true;
  return false;
}

/**
 * `JSON.stringify(a) === JSON.stringify(b)`, the same answer (and the same error, for a value
 * JSON cannot write), without writing either text when both are plain data.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const same = realmChanged() ? undefined : plainSame(a, b, 0);
  return same ?? JSON.stringify(a) === JSON.stringify(b);
}

/**
 * true or false when `a` and `b` are plain JSON data (strings, finite numbers, booleans, null,
 * arrays and plain objects of them, no undefined); undefined when JSON's own rules could make a
 * difference (a toJSON, a class, an undefined value, NaN and the infinities written as null…).
 */
function plainSame(a: unknown, b: unknown, depth: number): boolean | undefined {
  switch (typeof a) {
    case "string":
    case "boolean":
      if (typeof b === typeof a) return a === b;
      // Texts and booleans never write what the other does; an object may (toJSON).
      return typeof b === "string" || typeof b === "boolean" ? false : undefined;
    case "number":
      // NaN and the infinities are written null; 0 and -0 are both written 0.
      return typeof b === "number" && Number.isFinite(a) && Number.isFinite(b)
        ? a === b
        : undefined;
    case "object":
      break;
    default:
      // undefined, functions, symbols and BigInts are JSON's to judge (left out, or an error).
      return undefined;
  }
  if (a === null) return b === null ? true : undefined;
  if (typeof b !== "object" || b === null || depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return undefined;
    if (Object.getPrototypeOf(a) !== ARRAY_PROTO || Object.getPrototypeOf(b) !== ARRAY_PROTO) {
      return undefined;
    }
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const same = plainSame(a[i], b[i], depth + 1);
      if (same !== true) return same;
    }
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return undefined;
  // JSON writes own enumerable keys in the order Object.keys gives them.
  const leftKeys = Object.keys(a);
  const rightKeys = Object.keys(b);
  if (leftKeys.length !== rightKeys.length) return undefined;
  for (let i = 0; i < leftKeys.length; i++) {
    const key = leftKeys[i]!;
    if (key !== rightKeys[i]) return undefined;
    const same = plainSame(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      depth + 1,
    );
    if (same !== true) return same;
  }
  return true;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === OBJECT_PROTO || proto === null;
}

/**
 * A copy of a value JSON.parse just made: what `JSON.parse(JSON.stringify(value))` gives for
 * it. Only for such a value (plain data, no cycles, nothing JSON would leave out); an own key
 * named `__proto__` (JSON.parse makes one) sends the value through JSON.
 */
export function copyParsed<T>(value: T): T {
  const copy = copyTree(value, 0);
  return copy === NOT_COPIED ? (JSON.parse(JSON.stringify(value)) as T) : (copy as T);
}

const NOT_COPIED = Symbol("not copied");

function copyTree(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return NOT_COPIED;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyTree(value[i], depth + 1);
      if (item === NOT_COPIED) return NOT_COPIED;
      out[i] = item;
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // Assigning it would set the copy's prototype instead of making a key.
    if (key === "__proto__") return NOT_COPIED;
    const item = copyTree((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_COPIED) return NOT_COPIED;
    out[key] = item;
  }
  return out;
}

/** What JSON escapes in a string: quotes, backslashes, controls, any surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes control characters
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(value)`, the same text, written without the call for a string, a number or a
 * boolean: on Node 20 the call costs more than writing a short string (about 220 ns against 75
 * for a 36-character id). Objects and arrays go to JSON.stringify, which writes them as fast as
 * JavaScript could on Node 20 and faster on Node 22.
 */
export function jsonText(value: unknown): string {
  switch (typeof value) {
    case "string":
      return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
    case "number":
      // NaN and the infinities are written null; -0 is written 0, as String gives it.
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    default:
      return JSON.stringify(value);
  }
}
