// Random ids: a readable prefix and 32 hex digits, 128 bits from the platform CSPRNG
// (crypto.getRandomValues), drawn from a pooled buffer. A run makes several (its id, its
// messages', its requests'), and formatting a UUID per id (randomUUID, then stripping its dashes)
// cost a measurable share of a tool round trip.

const ID_BYTES = 16;
const POOL_BYTES = ID_BYTES * 256;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;

/** The two hex digits of each byte, as character codes: byte b at 2b and 2b + 1. */
const HEX_CODES: number[] = [];
for (let byte = 0; byte < 256; byte++) {
  const hex = byte.toString(16).padStart(2, "0");
  HEX_CODES.push(hex.charCodeAt(0), hex.charCodeAt(1));
}

/** The digits of the id being made, reused: read into one string at once. */
const digits: number[] = new Array<number>(ID_BYTES * 2).fill(0);

/**
 * A random id with a readable prefix, e.g. `pnd_3f2a…` (32 hex digits: 128 bits from the
 * platform CSPRNG), so ids are unique across processes and unguessable enough to serve as
 * correlation keys for answers that arrive over the network.
 */
export function randomId(prefix: string): string {
  if (next === POOL_BYTES) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  for (let i = 0; i < ID_BYTES; i++) {
    const byte = pool[next + i]!;
    digits[2 * i] = HEX_CODES[2 * byte]!;
    digits[2 * i + 1] = HEX_CODES[2 * byte + 1]!;
  }
  next += ID_BYTES;
  // One string from all the digits: adding them two at a time made a string per byte, about
  // half a kilobyte of garbage per id.
  return `${prefix}_${String.fromCharCode.apply(null, digits)}`;
}
