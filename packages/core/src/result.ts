import type { ContentPart } from "./parts.js";

/**
 * What every tool returns. `output` is the text the model reads; `isError` tells the model (and
 * the host) that the call failed; `metadata` carries structured extras such as a suspension.
 */
export interface ToolResult {
  output: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
  /**
   * Content beyond `output` (images, embedded resources), for models that take it in tool
   * results; checked and capped by `checkParts` when it becomes the tool message.
   */
  parts?: ContentPart[];
}

/** A successful result. Use it when the tool did its job; `output` is what the model reads. */
export function ok(output: string, metadata?: Record<string, unknown>): ToolResult {
  return metadata === undefined ? { output, isError: false } : { output, isError: false, metadata };
}

/**
 * A failed result the model can read and react to. Prefer returning this over throwing when the
 * failure is expected (bad input, not found, refused): the message is yours, not a stack trace.
 */
export function error(output: string, metadata?: Record<string, unknown>): ToolResult {
  return metadata === undefined ? { output, isError: true } : { output, isError: true, metadata };
}

/**
 * True when `value` has the shape of a {@link ToolResult} (a string `output` and a boolean
 * `isError`). Use it to tell a returned result apart from arbitrary data.
 */
export function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { output?: unknown; isError?: unknown; metadata?: unknown };
  return (
    typeof candidate.output === "string" &&
    typeof candidate.isError === "boolean" &&
    (candidate.metadata === undefined ||
      (typeof candidate.metadata === "object" && candidate.metadata !== null))
  );
}
