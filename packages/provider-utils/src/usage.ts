import type { Usage } from "@toolnexus/core";

/** A token count from a provider's usage object: a finite number, or `undefined`. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The counts an adapter read, already mapped to toolnexus's meaning of each. */
export interface UsageCounts {
  /** Every input token, cached ones included. */
  prompt: number;
  /** Every output token, reasoning included. */
  completion: number;
  /** The provider's own total, when it sends one; else prompt + completion. */
  total?: number | undefined;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
  reasoning?: number | undefined;
}

/**
 * A {@link Usage} from mapped counts. The cache and reasoning counts are set only when above
 * zero, so a run's usage has them only when a provider reported some (one rule for every adapter).
 */
export function usageFromCounts(counts: UsageCounts): Usage {
  const usage: Usage = {
    promptTokens: counts.prompt,
    completionTokens: counts.completion,
    totalTokens: counts.total ?? counts.prompt + counts.completion,
  };
  if (counts.cacheRead !== undefined && counts.cacheRead > 0)
    usage.cacheReadTokens = counts.cacheRead;
  if (counts.cacheWrite !== undefined && counts.cacheWrite > 0)
    usage.cacheWriteTokens = counts.cacheWrite;
  if (counts.reasoning !== undefined && counts.reasoning > 0)
    usage.reasoningTokens = counts.reasoning;
  return usage;
}
