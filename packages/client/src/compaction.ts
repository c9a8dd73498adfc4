// Context compaction (SPEC §7F): when a transcript's token estimate passes a budget, the older
// part is replaced by one summary message and a recent tail is kept. A pure messages → messages
// step; compact-run.ts applies it to a run before each model call.
import type { Message } from "@toolnexus/core";

/** What a summarizer is given besides the messages it replaces. */
export interface SummarizeInfo {
  /** The estimate (`countTokens`) of the messages to summarize. */
  tokens: number;
  /** The run's id, when a run compacts (not for a direct `compactMessages` call). */
  runId?: string;
  /** Aborts when the run is cancelled: pass it on to a model call. */
  signal?: AbortSignal;
}

/** Options of context compaction (`createClient({ compaction })`, or `compactMessages`). */
export interface CompactionOptions {
  /**
   * Compact only when the transcript's estimate is above this many tokens; at or below it the
   * transcript is left exactly as it is.
   */
  maxTokens: number;
  /** Keep at least this many tokens of the most recent messages (default `maxTokens / 2`). */
  keepTail?: number;
  /**
   * Writes the summary of the messages that are replaced (may call a model: the library never
   * does so on its own). Without it, the older messages are trimmed: the summary only says how
   * many messages were removed and which tools they called.
   */
  summarize?: (older: readonly Message[], info: SummarizeInfo) => string | Promise<string>;
  /**
   * The token estimate of messages. Default: the sum over messages of `ceil(chars / 4)`, where
   * a message's chars are its text, each tool call's name and raw arguments, and a tool result's
   * parts (their text and resource URIs; 4,000 per image, i.e. 1,000 tokens): an estimator, not a
   * tokenizer.
   */
  countTokens?: (messages: readonly Message[]) => number;
  /**
   * Adds a system reminder after the summary (`true`: a default text) asking the model to write
   * down facts it must keep (with a memory tool, when it has one) since earlier turns were
   * summarized. Off by default.
   */
  flushToMemory?: boolean | string;
}

/** Before and after sizes of one compaction. */
export interface CompactionSizes {
  messages: number;
  tokens: number;
}

/** What {@link compactMessages} did. */
export interface Compacted {
  messages: Message[];
  before: CompactionSizes;
  after: CompactionSizes;
  /** How many messages the summary replaced. */
  summarized: number;
}

/** The longest summary kept, in characters per token of `maxTokens` (the estimate's ratio). */
const SUMMARY_CHARS_PER_TOKEN = 4;
const FLUSH_REMINDER =
  "Earlier turns of this conversation were summarized above. Before going on, write down any fact you must keep (with your memory tool, if you have one).";

/** What one image of a tool result counts for, in characters (1,000 tokens). */
const IMAGE_CHARS = 4_000;

function messageChars(message: Message): number {
  let chars = message.content.length;
  if (message.role === "assistant" && message.toolCalls !== undefined) {
    for (const call of message.toolCalls) chars += call.name.length + call.rawArgs.length;
  }
  if (message.role === "tool" && message.parts !== undefined) {
    for (const part of message.parts) {
      if (part.type === "text") chars += part.text.length;
      else if (part.type === "image") chars += IMAGE_CHARS;
      else chars += part.uri.length + (part.text?.length ?? 0);
    }
  }
  return chars;
}

/** The default estimate: `ceil(chars / 4)` per message, summed. */
export function estimateTokens(messages: readonly Message[]): number {
  let tokens = 0;
  for (const message of messages) tokens += Math.ceil(messageChars(message) / 4);
  return tokens;
}

function positiveWhole(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`compaction: ${name} must be a whole number of tokens, 1 or more`);
  }
  return value;
}

/** Options checked, defaults applied. */
export interface ResolvedCompaction {
  maxTokens: number;
  keepTail: number;
  summarize: CompactionOptions["summarize"];
  countTokens: (messages: readonly Message[]) => number;
  flush: string | undefined;
}

/** Checks compaction options (a TypeError names the bad one); `undefined` stays off. */
export function resolveCompaction(
  options: CompactionOptions | undefined,
): ResolvedCompaction | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) {
    throw new TypeError("compaction: pass { maxTokens, keepTail?, summarize?, countTokens? }");
  }
  const maxTokens = positiveWhole("maxTokens", options.maxTokens);
  const keepTail =
    options.keepTail === undefined
      ? Math.max(1, Math.floor(maxTokens / 2))
      : positiveWhole("keepTail", options.keepTail);
  for (const name of ["summarize", "countTokens"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`compaction: ${name} must be a function`);
    }
  }
  const { flushToMemory } = options;
  if (flushToMemory !== undefined && typeof flushToMemory !== "boolean") {
    if (typeof flushToMemory !== "string" || flushToMemory === "") {
      throw new TypeError("compaction: flushToMemory must be true, false or a reminder text");
    }
  }
  return {
    maxTokens,
    keepTail,
    summarize: options.summarize,
    countTokens: options.countTokens ?? estimateTokens,
    flush: flushToMemory === true ? FLUSH_REMINDER : flushToMemory || undefined,
  };
}

/** A tail to keep: from `start` on, after the pinned question at `pinned` when set. */
interface Split {
  start: number;
  pinned?: number;
}

/**
 * The places the transcript may be cut, largest tail first. A tail begins at a user message
 * (so no tool result is ever separated from the assistant turn that called it: in the
 * provider-neutral transcript a result is a `tool` message, never a user one). Past the last
 * user message (the question being answered, which is never summarized), a tail may begin at an
 * assistant turn with that question kept in front of it, so one long tool-calling run compacts.
 */
function splits(messages: readonly Message[], head: number): Split[] {
  let question = -1;
  for (let i = messages.length - 1; i >= head; i--) {
    if (messages[i]!.role === "user") {
      question = i;
      break;
    }
  }
  if (question === -1) return [];
  const found: Split[] = [];
  for (let i = head + 1; i <= question; i++) {
    if (messages[i]!.role === "user") found.push({ start: i });
  }
  for (let i = question + 2; i < messages.length; i++) {
    if (messages[i]!.role === "assistant") found.push({ start: i, pinned: question });
  }
  return found;
}

function tailOf(messages: readonly Message[], split: Split): Message[] {
  const tail = messages.slice(split.start);
  if (split.pinned !== undefined) tail.unshift(messages[split.pinned]!);
  return tail;
}

/** The summary message: the host's summary (capped), or the trimming rule's note. */
async function summaryOf(
  older: Message[],
  tokens: number,
  options: ResolvedCompaction,
  info: Omit<SummarizeInfo, "tokens">,
): Promise<string> {
  if (options.summarize === undefined) return trimmedNote(older, tokens);
  const text = await options.summarize(older, { ...info, tokens });
  if (typeof text !== "string") throw new TypeError("compaction: summarize must return a string");
  const cap = options.maxTokens * SUMMARY_CHARS_PER_TOKEN;
  const kept =
    text.length > cap ? `${text.slice(0, cap)}… [summary cut to ${cap} characters]` : text;
  return `Summary of the earlier conversation (${older.length} messages):\n\n${kept}`;
}

/** Without a summarizer: what was removed, in numbers (never the removed text). */
function trimmedNote(older: readonly Message[], tokens: number): string {
  const calls = new Map<string, number>();
  for (const message of older) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? [])
      calls.set(call.name, (calls.get(call.name) ?? 0) + 1);
  }
  const named = [...calls].slice(0, 20).map(([name, n]) => `${name} ×${n}`);
  const tools = named.length === 0 ? "" : ` They called: ${named.join(", ")}.`;
  return `Earlier conversation trimmed: ${older.length} messages (about ${tokens} tokens) were removed to stay within the context budget.${tools}`;
}

/**
 * Compacts a transcript when its estimate is above `maxTokens`: `[leading system message
 * (verbatim), summary (a system message), flush reminder?, …tail]`, where the tail is the
 * largest that fits `keepTail` and begins at a safe place (else the smallest safe one: safety
 * over size). Returns `undefined` when nothing changes: the estimate is within budget, or there
 * is nothing to summarize (no user message after the system prompt, a single exchange, or only
 * an earlier summary before the smallest safe tail).
 */
export function compactMessages(
  messages: readonly Message[],
  options: CompactionOptions,
  info: Omit<SummarizeInfo, "tokens"> = {},
): Promise<Compacted | undefined> {
  return compactWith(messages, resolveCompaction(options)!, info);
}

/** {@link compactMessages} with options already checked. */
export async function compactWith(
  messages: readonly Message[],
  options: ResolvedCompaction,
  info: Omit<SummarizeInfo, "tokens">,
): Promise<Compacted | undefined> {
  const { countTokens, keepTail, maxTokens } = options;
  const tokens = countTokens(messages);
  if (!(tokens > maxTokens)) return undefined;
  const head = messages[0]?.role === "system" ? 1 : 0;
  const candidates = splits(messages, head);
  if (candidates.length === 0) return undefined;
  const split =
    candidates[firstFitting(candidates, (c) => countTokens(tailOf(messages, c)) <= keepTail)]!;
  const older = messages.slice(head, split.start);
  if (split.pinned !== undefined) older.splice(split.pinned - head, 1);
  // Only an earlier summary would be summarized again: nothing to gain, and a summarizer call.
  if (older.every((message) => message.role === "system")) return undefined;
  const summary = await summaryOf(older, countTokens(older), options, info);
  const compacted: Message[] = messages.slice(0, head);
  compacted.push({ role: "system", content: summary });
  if (options.flush !== undefined) compacted.push({ role: "system", content: options.flush });
  compacted.push(...tailOf(messages, split));
  return {
    messages: compacted,
    before: { messages: messages.length, tokens },
    after: { messages: compacted.length, tokens: countTokens(compacted) },
    summarized: older.length,
  };
}

/**
 * The first candidate whose tail fits, by bisection (tails shrink along the list, so fitting is
 * monotonic); the last one when none fits. Counts O(log n) tails, not n, per compaction.
 */
function firstFitting(candidates: readonly Split[], fits: (split: Split) => boolean): number {
  let low = 0;
  let high = candidates.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (fits(candidates[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}
