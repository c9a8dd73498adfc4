import { ProviderError } from "./errors.js";

/**
 * Who is reading a provider's answer: the adapter's name (for error messages) and the secrets to
 * keep out of them. The `HttpSettings` of a call fit as they are.
 */
export interface ParseContext {
  provider: string;
  secrets: readonly string[];
}

/**
 * The error for a 2xx answer whose shape the adapter cannot read (no choices, no content array):
 * a {@link ProviderError} of code `"provider_response"`, saying what was missing.
 */
export function malformedResponse(context: ParseContext, problem: string): ProviderError {
  return new ProviderError("provider_response", `${context.provider}: ${problem}`, {
    provider: context.provider,
  });
}

/** The value as a plain object, or `undefined` when it is not one. For reading untyped JSON. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
