/**
 * Test helpers for store authors: the {@link runStoreContract} vitest suite every `RunStore`
 * must pass, and builders of valid checkpoints, journal entries and results.
 */
export {
  isoIn,
  type OpenedStore,
  runStoreContract,
  type SampleCheckpointOptions,
  type SamplePending,
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
  sleep,
} from "./testing/run-store-contract.js";
