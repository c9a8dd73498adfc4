import { error, isToolResult, jsonText, ok, type ToolResult } from "@toolnexus/core";

const UNSERIALISABLE = "tool returned a value that cannot be serialised";

/**
 * The return rules of a native `run`: a string is the output, a ToolResult passes through
 * untouched (suspensions included), `undefined`/`null` is `""`, anything else is its
 * `JSON.stringify` text. A value JSON cannot write (a BigInt, a cycle, a function, a symbol, an
 * object whose `toJSON` gives nothing) is an error result that says why, never its source text.
 */
export function toToolResult(value: unknown): ToolResult {
  if (typeof value === "string") return ok(value);
  if (value === undefined || value === null) return ok("");
  // JSON's text of a number or a boolean, without a JSON.stringify call (core's jsonText).
  if (typeof value === "number" || typeof value === "boolean") return ok(jsonText(value));
  if (isToolResult(value)) return value;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    return error(`${UNSERIALISABLE}: ${messageOf(cause)}`);
  }
  // JSON.stringify gives undefined, not text, for a function, a symbol, and an object whose
  // toJSON returns one of those or undefined: no JSON text to send the model.
  if (json === undefined) return error(`${UNSERIALISABLE}: ${noJsonText(value)}`);
  return ok(json);
}

function noJsonText(value: unknown): string {
  if (typeof value === "function") return "a function has no JSON text";
  if (typeof value === "symbol") return "a symbol has no JSON text";
  return "its toJSON() gave no JSON text";
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
