import { error, isToolResult, jsonText, ok, type ToolResult } from "@toolnexus/core";

/**
 * The return rules of a native `run`: a string is the output, a ToolResult passes through
 * untouched (suspensions included), `undefined`/`null` is `""`, anything else is JSON.
 */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") return ok(value);
  if (value === undefined || value === null) return ok("");
  // JSON's text of a number or a boolean, without a JSON.stringify call (core's jsonText).
  if (typeof value === "number" || typeof value === "boolean") return ok(jsonText(value));
  if (isToolResult(value)) return value;
  try {
    const json = JSON.stringify(value);
    // JSON.stringify returns undefined for functions and symbols.
    return json === undefined ? ok(String(value)) : ok(json);
  } catch (cause) {
    return error(`tool returned a value that cannot be serialised: ${messageOf(cause)}`);
  }
}

/** The readable message of anything thrown. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  if (typeof thrown === "string") return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}

/** Whether `await value` would wait on it: a promise or any other object with a `then` method. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  return typeof (value as { then?: unknown }).then === "function";
}
