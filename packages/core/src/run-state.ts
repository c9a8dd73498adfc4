// The states of a durable run and the error it stopped on: what stores, listings and hosts
// all name (its own file, so the store interface and the run listing share it without a cycle).

/**
 * Where a durable run stands. Every state can be continued or read by a public call:
 *
 * - `waiting`: halted for answers; recording an answer makes it `ready`.
 * - `ready`: can continue now (an answer arrived, or a worker gave it back after an error).
 * - `running`: a worker holds its lease (`owner`, `leaseExpiresAt`); past the expiry any
 *   worker may take it over.
 * - `expired`: waiting, but a request's deadline passed; a worker continues it, the tool
 *   seeing `{ ok: false, reason: "expired" }`.
 * - `done`: finished; its result is kept until pruned.
 * - `failed`: a worker gave up on it after repeated errors; the last error is kept, and
 *   continuing it by id (`client.continueRun`) tries again.
 * - `cancelled`: someone cancelled it (`RunStore.cancel`); who and why are kept. Final.
 */
export type RunState =
  | "waiting"
  | "ready"
  | "running"
  | "expired"
  | "done"
  | "failed"
  | "cancelled";

/** An error a run stopped on, as the store records it (no stack, no secrets). */
export interface RunErrorInfo {
  code: string;
  message: string;
  /** ISO time it happened. */
  at: string;
}
