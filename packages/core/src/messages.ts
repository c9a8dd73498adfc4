import type { ContentPart } from "./parts.js";
import { MAX_WIRE_DEPTH } from "./wire-data.js";

/**
 * One tool call the model asked for. `rawArgs` is the exact JSON text the model sent (kept so a
 * transcript can be replayed to the provider byte for byte); `args` is its parsed form.
 */
export interface ToolCall {
  /** The provider's call id, or one the loop generated when the model gave none. */
  id: string;
  name: string;
  args: Record<string, unknown>;
  rawArgs: string;
  /** Set when `rawArgs` is not a JSON object; the loop turns it into an error result. */
  argsError?: string;
  /**
   * Set by the loop when `id` repeats the id of a call of an earlier turn of the same run
   * (providers may reuse ids across turns): the call's id within the run, which tools see as
   * `ctx.callId`. Kept in the transcript so a re-execution sees the same id; `id` stays what the
   * provider sent, so its tool result pairs with it.
   */
  runCallId?: string;
}

/** The id a call has within its run (`ctx.callId`): `runCallId` when set, else `id`. */
export function callIdOf(call: ToolCall): string {
  return call.runCallId ?? call.id;
}

/**
 * Token counts of one model call, or summed over a run. `promptTokens` counts every input token,
 * cached or not, whatever the provider's own convention; the optional counts are parts of it
 * (cache reads and writes) or of `completionTokens` (reasoning), present when the provider
 * reports them.
 */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Input tokens served from the provider's prompt cache (part of `promptTokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `promptTokens`). */
  cacheWriteTokens?: number;
  /** Hidden reasoning tokens the model spent (part of `completionTokens`). */
  reasoningTokens?: number;
}

/**
 * Provider data an assistant turn must carry back to the provider it came from (Anthropic's
 * thinking blocks with their signatures, Gemini's thought signatures…), keyed by the adapter
 * that wrote it (`"anthropic"`, `"google"`…). Adapters read only their own key and never send
 * another provider's data; the loop keeps it in the transcript and in checkpoints as JSON.
 */
export type ProviderData = Readonly<Record<string, unknown>>;

/** Instructions for the model. */
export interface SystemMessage {
  role: "system";
  content: string;
}

/** What the person said. */
export interface UserMessage {
  role: "user";
  content: string;
}

/** One model turn: its text and the tool calls it asked for. */
export interface AssistantMessage {
  role: "assistant";
  /** The provider's response id, or one the loop generated; tools see it as `ctx.messageId`. */
  id: string;
  content: string;
  toolCalls?: ToolCall[];
  /** Data the provider needs back on the next request (see {@link ProviderData}). */
  providerData?: ProviderData;
}

/** The result of one tool call, answering the assistant's call with the same `callId`. */
export interface ToolMessage {
  role: "tool";
  callId: string;
  /** The tool's name (some providers need it next to the result). */
  name: string;
  content: string;
  isError: boolean;
  /** The result's checked content parts (images, resources), when it had any. */
  parts?: ContentPart[];
}

/**
 * The provider-neutral transcript. It is what checkpoints and conversation stores persist, so a
 * conversation can move between providers and between processes. Plain JSON all the way down.
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A zero {@link Usage}, to start sums from. */
export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Adds `b` into a copy of `a`. */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return a;
  const sum: Usage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  // The optional parts appear in a sum once either side reports them.
  for (const key of ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}

/**
 * True when `value` nests objects or arrays more than `limit` deep; never recurses past it. For
 * JSON data (parsed, or a tool call's `args`): a value that shares objects is walked once per
 * path to them.
 */
export function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (deeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  }
  return false;
}

/**
 * Parses a model's raw argument text into a ToolCall. Empty text means `{}` (some servers send
 * nothing for a call without arguments). Text that is not a JSON object, or nests deeper than
 * {@link MAX_WIRE_DEPTH} levels, gives `args: {}` and an `argsError` the loop reports to the model
 * instead of running the tool.
 */
export function toolCall(id: string, name: string, rawArgs: string): ToolCall {
  if (rawArgs.trim() === "") return { id, name, args: {}, rawArgs };
  try {
    const parsed: unknown = JSON.parse(rawArgs);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      // JSON.parse takes any depth, but a checkpoint, a store or a fingerprint of such
      // arguments would overflow the stack: refused like arguments that are not JSON.
      // Nesting past the limit takes an opening and a closing bracket per level: shorter text
      // cannot (most arguments are, and skip the walk).
      if (rawArgs.length >= 2 * (MAX_WIRE_DEPTH + 1) && deeperThan(parsed, MAX_WIRE_DEPTH)) {
        return {
          id,
          name,
          args: {},
          rawArgs,
          argsError: `arguments nest deeper than ${MAX_WIRE_DEPTH} levels`,
        };
      }
      return { id, name, args: parsed as Record<string, unknown>, rawArgs };
    }
    return { id, name, args: {}, rawArgs, argsError: "arguments must be a JSON object" };
  } catch (cause) {
    return {
      id,
      name,
      args: {},
      rawArgs,
      argsError: `arguments are not valid JSON: ${(cause as Error).message}`,
    };
  }
}
