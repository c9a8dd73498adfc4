// What a tool threw, kept beside the error result made of it: the model and the checkpoint see
// only the message, a trace records the exception itself (its type; its text on opt-in).
import { error, type ToolResult } from "./result.js";

// A registered symbol, so two copies of core (ESM and CJS) agree; a non-enumerable property,
// so neither JSON nor a spread carries the thrown value anywhere.
const THROWN = Symbol.for("toolnexus.thrown");

/**
 * The error result of a tool that threw `thrown`: `output` is the message (by default the
 * error's), and the thrown value is kept for tracing ({@link thrownOf}), never sent anywhere.
 * Use it where a tool wrapper turns a throw into a result.
 */
export function thrownError(thrown: unknown, output?: string): ToolResult {
  const message =
    output ?? (thrown instanceof Error ? thrown.message || thrown.name : String(thrown));
  const result = error(message);
  Object.defineProperty(result, THROWN, { value: thrown, enumerable: false });
  return result;
}

/** What the tool threw, when `result` was made by {@link thrownError}; else undefined. */
export function thrownOf(result: ToolResult | undefined | null): unknown {
  if (typeof result !== "object" || result === null) return undefined;
  return (result as { [THROWN]?: unknown })[THROWN];
}
