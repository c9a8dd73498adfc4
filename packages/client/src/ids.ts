// Ids the loop makes for runs, messages, calls and checkpoints: the same shape as core's
// randomId (`run_` + 32 hex digits, 128 bits from the platform CSPRNG), drawn from a pooled
// buffer. Several are made per run, and formatting a UUID per id cost a measurable share of a
// tool round trip. Requests (`pnd_`) keep core's randomId.

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const ID_BYTES = 16;
const POOL_BYTES = ID_BYTES * 256;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;

/** A unique id with a readable prefix, e.g. `run_3f2a…` (32 hex digits). */
export function loopId(prefix: string): string {
  if (next === POOL_BYTES) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  let id = `${prefix}_`;
  for (let i = next, end = next + ID_BYTES; i < end; i++) id += HEX[pool[i]!];
  next += ID_BYTES;
  return id;
}
