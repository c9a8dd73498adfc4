import {
  assertCheckpoint,
  type Checkpoint,
  CheckpointError,
  checkStoreIds,
  type Lease,
  type RunErrorInfo,
  checkLease as sharedCheckLease,
  checkLeaseMs as sharedCheckLeaseMs,
  checkOwner as sharedCheckOwner,
  storedError,
} from "@toolnexus/core";

// The store is handed values from outside the type system (other processes, JSON bodies):
// every argument is checked before anything is changed, so a bad call leaves no trace.

/** An id short enough for an error message. */
export function cut(id: string): string {
  return id.length <= 80 ? id : `${id.slice(0, 60)}…(${id.length} chars)`;
}

// The checks themselves are shared with the other stores (core); these name this store.
const where = (method: string) => `memoryRunStore.${method}()`;

export function checkLease(lease: Lease, method: string): void {
  sharedCheckLease(lease, where(method));
}

export function checkLeaseMs(leaseMs: number, method: string): void {
  sharedCheckLeaseMs(leaseMs, where(method));
}

export function checkOwner(owner: string, method: string): void {
  sharedCheckOwner(owner, where(method));
}

/** Only what a store records of an error: no stack, nothing else that could hold secrets. */
export function errorJson(error: RunErrorInfo, method: string): string {
  return JSON.stringify(storedError(error, where(method)));
}

/** Validates a checkpoint a worker writes, and that it belongs to the leased run. */
export function checkCheckpoint(checkpoint: Checkpoint, lease?: Lease): void {
  assertCheckpoint(checkpoint);
  if (lease !== undefined && checkpoint.runId !== lease.runId) {
    throw new CheckpointError(
      undefined,
      `it belongs to run "${cut(checkpoint.runId)}", but the lease is on run "${cut(lease.runId)}"`,
    );
  }
}

/**
 * `method` behind the id checks every store makes (core's checkStoreIds, a no-op for a method
 * without ids), so an app behaves the same on every store: what guardStoreIds does, built into
 * the object literal instead of written into it afterwards, which cost 1.6 µs per store on
 * Node 20 (a client's default store is made per client).
 */
export function checked<A extends unknown[], R>(
  method: string,
  fn: (...args: A) => R,
): (...args: A) => R {
  return (...args) => {
    checkStoreIds(method, args);
    return fn(...args);
  };
}
