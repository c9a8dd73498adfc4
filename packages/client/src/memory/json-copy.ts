// A copy of JSON data with exactly what `JSON.parse(JSON.stringify(value))` gives, made without
// the text in between. The memory store copies a checkpoint in on every write and out on every
// read; for plain data (what the loop writes) a direct copy costs about a quarter of the JSON
// round trip. Anything a direct copy could get wrong (a toJSON, a class instance, a key named
// `__proto__`, a value JSON cannot write, a cycle) sends the whole value through JSON instead.

/** Past this depth the value goes through JSON, which also reports a cycle. */
const MAX_DIRECT_DEPTH = 64;

/** Thrown inside the direct copy when a value needs JSON's own rules. */
const NOT_PLAIN = Symbol("not plain");

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;

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

/**
 * Whether the shared prototypes were given what would make JSON see more than an object's own
 * keys and items: an inherited `toJSON`, or an enumerable key on Object.prototype (for-in would
 * walk it, JSON would not). Checked once per copy, so the walk below needs no per-key checks.
 */
function realmChanged(): boolean {
  if ("toJSON" in OBJECT_PROTO || "toJSON" in ARRAY_PROTO) return true;
  for (const _ in OBJECT_PROTO) return true;
  return false;
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
  if (depth >= MAX_DIRECT_DEPTH) throw NOT_PLAIN;
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
