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

// A copy of JSON data with exactly what `JSON.parse(JSON.stringify(value))` gives, made without
// the text in between: the memory store copies a checkpoint in on every write and out on every
// read, and the codec copies a call's arguments; for plain data a direct copy costs about a
// quarter of the JSON round trip. Anything a direct copy could get wrong (a toJSON, a class
// instance, a key named `__proto__`, a value JSON cannot write, a cycle, more than 64 levels)
// sends the whole value through JSON instead.

/** Thrown inside the direct copy when a value needs JSON's own rules. */
const NOT_PLAIN = Symbol("not plain");

/** `JSON.parse(JSON.stringify(value))`, the same value and the same errors, made faster. */
export function jsonCopy<T>(value: T): T {
  if (realmChanged()) return JSON.parse(JSON.stringify(value)) as T;
  try {
    return direct(value, 0) as T;
  } catch (thrown) {
    if (thrown !== NOT_PLAIN) throw thrown;
    return JSON.parse(JSON.stringify(value)) as T;
  }
}

function direct(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON writes NaN and the infinities as null, and -0 as 0.
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return value === 0 ? 0 : value;
    case "object":
      break;
    default:
      // undefined, functions, symbols, BigInt: JSON leaves them out, writes null, or throws.
      // An own toJSON is a function, so an object that has one goes through JSON too.
      throw NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== ARRAY_PROTO) throw NOT_PLAIN;
    const length = value.length;
    const out: unknown[] = new Array(length);
    for (let i = 0; i < length; i++) {
      // Read as JSON reads it; a hole or an undefined element (null in JSON) reads undefined.
      const item: unknown = value[i];
      if (item === undefined) throw NOT_PLAIN;
      out[i] = direct(item, depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== OBJECT_PROTO && proto !== null) throw NOT_PLAIN;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // for-in walks V8's cached key list without making an array per object. With the prototype
  // checked above and the realm checked once (realmChanged), it sees only own enumerable keys,
  // which are JSON's.
  for (const key in source) {
    if (key === "__proto__") throw NOT_PLAIN;
    const item = source[key];
    // JSON leaves out an undefined property; anything else that is not data goes through JSON.
    if (item !== undefined) out[key] = direct(item, depth + 1);
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
