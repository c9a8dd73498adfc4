import {
  assertCheckpoint,
  type Checkpoint,
  CheckpointError,
  type Lease,
  type RunErrorInfo,
} from "@toolnexus/core";
import { toIso } from "./rows.js";

// The store is handed values from outside the type system (other processes, JSON bodies):
// every argument is checked before anything is changed, so a bad call leaves no trace.

/** An id short enough for an error message. */
export function cut(id: string): string {
  return id.length <= 80 ? id : `${id.slice(0, 60)}…(${id.length} chars)`;
}

export function checkLease(lease: Lease, method: string): void {
  if (
    typeof lease !== "object" ||
    lease === null ||
    typeof lease.runId !== "string" ||
    typeof lease.owner !== "string" ||
    !Number.isInteger(lease.token)
  ) {
    throw new TypeError(
      `memoryRunStore.${method}(): lease must be { runId, owner, token, expiresAt }`,
    );
  }
}

export function checkLeaseMs(leaseMs: number, method: string): void {
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 0) {
    throw new TypeError(`memoryRunStore.${method}(): leaseMs must be zero or more milliseconds`);
  }
}

export function checkOwner(owner: string, method: string): void {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`memoryRunStore.${method}(): owner must be a non-empty string`);
  }
}

/** Only what a store records of an error: no stack, nothing else that could hold secrets. */
export function errorJson(error: RunErrorInfo, method: string): string {
  if (
    typeof error !== "object" ||
    error === null ||
    typeof error.code !== "string" ||
    typeof error.message !== "string"
  ) {
    throw new TypeError(`memoryRunStore.${method}(): the error must be { code, message, at }`);
  }
  const at = typeof error.at === "string" ? error.at : toIso(Date.now());
  return JSON.stringify({ code: error.code, message: error.message, at });
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
