// A stable fingerprint of a call (tool name + arguments) so a resume can refuse to run anything
// other than the call that suspended. Not a security hash: it detects edits and corruption.

import { jsonText } from "@toolnexus/core";

// Built by concatenation, without the intermediate arrays of map/join: it runs at every halt
// and every resume.
function stable(value: unknown): string {
  // JSON's text of a primitive (undefined, a function or a symbol counts as null).
  if (value === null || typeof value !== "object") return jsonText(value) ?? "null";
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
    out += `${out.length === 1 ? "" : ","}${jsonText(key)}:${stable(item)}`;
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
 * Computed on four 16-bit limbs (the prime is 2^40 + 0x1b3) rather than with BigInt, which
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
  // The hash as four 16-bit limbs, low first: every product and sum stays a small integer.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    h0 ^= text.charCodeAt(i);
    // (h3·2^48 + h2·2^32 + h1·2^16 + h0) · (2^40 + 0x1b3) mod 2^64: the 2^40 term shifts h0
    // and h1 into limbs 2 and 3 by 8 bits.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    h3 = (h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16)) & 0xffff;
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
  }
  return hex4(h3) + hex4(h2) + hex4(h1) + hex4(h0);
}

const hex4 = (limb: number): string => (limb | 0x10000).toString(16).slice(1);
