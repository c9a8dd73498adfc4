import { error, isToolResult, ok, type ToolResult } from "@toolnexus/core";

/**
 * The return rules of a native `run`: a string is the output, a ToolResult passes through
 * untouched (suspensions included), `undefined`/`null` is `""`, anything else is JSON.
 */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") return ok(value);
  if (value === undefined || value === null) return ok("");
  // What JSON.stringify writes for a number, without its call (a fixed cost of about a
  // microsecond on Node 20, more than the rest of a small tool's round trip).
  if (typeof value === "number") return ok(Number.isFinite(value) ? String(value) : "null");
  if (typeof value === "boolean") return ok(value ? "true" : "false");
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
