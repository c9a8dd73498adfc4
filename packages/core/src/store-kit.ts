// Checks every RunStore makes on what it is handed (values from other processes, JSON bodies,
// outside the type system), before anything changes, so a bad call leaves no trace. Shared by
// the stores toolnexus ships; a third-party store can use them too.
import type { Lease, PruneOptions, RunErrorInfo } from "./stores.js";

/** Throws a TypeError for a lease that is not one (a programming error, not a lost lease). */
export function checkLease(lease: Lease, where: string): void {
  if (
    typeof lease !== "object" ||
    lease === null ||
    typeof lease.runId !== "string" ||
    typeof lease.owner !== "string" ||
    !Number.isInteger(lease.token)
  ) {
    throw new TypeError(`${where}: lease must be { runId, owner, token, expiresAt }`);
  }
}

/** Throws a TypeError unless `leaseMs` is a duration. */
export function checkLeaseMs(leaseMs: number, where: string): void {
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 0) {
    throw new TypeError(`${where}: leaseMs must be zero or more milliseconds`);
  }
}

/** Throws a TypeError unless `owner` names a worker. */
export function checkOwner(owner: string, where: string): void {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`${where}: owner must be a non-empty string`);
  }
}

/** Only what a store records of an error: no stack, no extra fields that could hold secrets. */
export function storedError(error: RunErrorInfo, where: string): RunErrorInfo {
  if (
    typeof error !== "object" ||
    error === null ||
    typeof error.code !== "string" ||
    typeof error.message !== "string"
  ) {
    throw new TypeError(`${where}: the error must be { code, message, at }`);
  }
  const at = typeof error.at === "string" ? error.at : new Date().toISOString();
  return { code: error.code, message: error.message, at };
}

/** The epoch-ms cutoff of `prune({ olderThan })`; a TypeError for one that is not a cutoff. */
export function pruneCutoff(options: PruneOptions, where: string): number {
  const olderThan = (options as Partial<PruneOptions> | undefined)?.olderThan;
  const valid =
    olderThan instanceof Date
      ? !Number.isNaN(olderThan.getTime())
      : typeof olderThan === "number" && Number.isFinite(olderThan) && olderThan >= 0;
  if (!valid) {
    throw new TypeError(`${where}: olderThan must be a valid Date or an age of 0 or more ms`);
  }
  return olderThan instanceof Date ? olderThan.getTime() : Date.now() - (olderThan as number);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/**
 * JSON with object keys sorted at every depth: two equal answers give the same text, whatever
 * order their keys came in (how a store tells a repeated answer from a different one).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}
