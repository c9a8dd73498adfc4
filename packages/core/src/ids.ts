/**
 * A random id with a readable prefix, e.g. `pnd_3f2a…`. Built on `crypto.randomUUID()` (122
 * random bits from a CSPRNG), so ids are unique across processes and unguessable enough to serve
 * as correlation keys for answers that arrive over the network.
 */
export function randomId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
}
