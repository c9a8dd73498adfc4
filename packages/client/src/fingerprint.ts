// A stable fingerprint of a call (tool name + arguments) so a resume can refuse to run anything
// other than the call that suspended. Not a security hash: it detects edits and corruption.

// Built by concatenation, without the intermediate arrays of map/join: it runs at every halt
// and every resume.
function stable(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++)
      out += i === 0 ? stable(value[i]) : `,${stable(value[i])}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = "{";
  for (const key of sortedKeys(record)) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${stable(item)}`;
  }
  return `${out}}`;
}

/**
 * `Object.keys(record)` in sort()'s order (UTF-16 code units). A few keys are sorted in place
 * by insertion: Array.prototype.sort allocates work space on every call, which made it most of
 * a fingerprint's garbage.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 8) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * 64-bit FNV-1a of the tool name and the canonical JSON of its arguments, as 16 hex digits.
 * Computed on two 32-bit halves (the prime is 2^40 + 0x1b3) rather than with BigInt, which
 * cost several microseconds per halt and per resume; the digits are the same.
 */
export function fingerprint(tool: string, args: Record<string, unknown>): string {
  return fnv64(`${tool}\u0000${stable(args)}`);
}

const schemas = new WeakMap<object, string>();

/**
 * The fingerprint of a tool's input schema (16 hex digits, the same hash over its canonical
 * JSON, so key order does not matter), as a halted call records it in `PendingCall.schema`.
 * A tool's `migrate.from` lists these for the schemas it converts from. Cached per schema
 * object: a tool's schema is not expected to change while it is registered.
 */
export function schemaFingerprint(schema: object): string {
  let known = schemas.get(schema);
  if (known === undefined) {
    known = fnv64(stable(schema));
    schemas.set(schema, known);
  }
  return known;
}

function fnv64(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    lo = (lo ^ text.charCodeAt(i)) >>> 0;
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64; every product stays below 2^53, so exact.
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 0x100000000);
    hi = (hi * 0x1b3 + carry + (lo & 0xffffff) * 0x100) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}
