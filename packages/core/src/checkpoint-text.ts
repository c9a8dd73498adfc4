// The text a store keeps for a checkpoint. The Checkpoint object stays the complete version 2
// shape everywhere in memory; only its stored text is compact (format 3): what can be derived
// from the rest of the checkpoint, and the defaults, are left out when writing and put back
// when reading, exactly. Version 2 text (every row written by earlier releases) still reads.
//
// Format 3 is the checkpoint's JSON with, in place of `version`, `"v": 3`, and:
// - a tool call's `rawArgs` left out when it is `JSON.stringify(args)` (`null` when it had none);
// - an assistant message's `content` left out when it is "";
// - a pending call's `tool` and `args` left out when they are its assistant call's `name` and
//   `args` (the same JSON text), `approval` left out when false;
// - a pending call's placeholder tool message (at `slot`) left out of `messages` when it is the
//   one a suspension writes (the call's id and name, the request's prompt, an error); a
//   placeholder that is not is kept, and the call says so with `kept: true`;
// - a left-out placeholder's `slot` left out when it is where the loop puts it: right after its
//   assistant message, in call order (and no left-out placeholder comes before that message);
// - `createdAt` as epoch milliseconds when it is exactly that time's `toISOString()`;
// - `usage` left out when all three counts are 0 and nothing else is counted;
// - `leaseToken` left out when 0 (`null` when the checkpoint had none).
import {
  assertCheckpoint,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type PendingCall,
} from "./checkpoint.js";
import { CheckpointError } from "./errors.js";
import { isoTime } from "./iso-time.js";
import { jsonCopy, sameJson } from "./json-data.js";
import type { AssistantMessage, Message, ToolCall, ToolMessage, Usage } from "./messages.js";

/** The stored checkpoint format {@link encodeCheckpoint} writes; version 2 text reads too. */
export const STORED_CHECKPOINT_FORMAT = 3;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `source`'s own keys but those in `skip`, in their order: what an object rest pattern gives,
 * without its slow generic path on Node 20 (a checkpoint is coded at every store read and write).
 */
function omit(source: object, skip: readonly string[]): Json {
  const out: Json = {};
  for (const key of Object.keys(source)) {
    if (!skip.includes(key)) out[key] = (source as Json)[key];
  }
  return out;
}

/** The keys the codec writes itself; every other key of a checkpoint is copied as it is. */
const CHECKPOINT_OWN_KEYS: readonly string[] = [
  "version",
  "messages",
  "pending",
  "usage",
  "leaseToken",
];
const STORED_OWN_KEYS: readonly string[] = ["v", "messages", "pending", "usage", "leaseToken"];

/** Where a call was asked: its assistant message's index and its own index among the calls. */
interface Asked {
  call: ToolCall;
  /** The index of its assistant message in the list searched. */
  at: number;
  /** Its index in that message's `toolCalls`. */
  nth: number;
}

/** The assistant call a pending call came from: the newest one with its id. */
function askedCall(messages: readonly unknown[], callId: unknown): Asked | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Partial<AssistantMessage> | null;
    if (message?.role !== "assistant" || !Array.isArray(message.toolCalls)) continue;
    for (let k = 0; k < message.toolCalls.length; k++) {
      const call = message.toolCalls[k];
      if (isObject(call) && call.id === callId) return { call, at: i, nth: k };
    }
  }
  return undefined;
}

/** The placeholder a suspension writes at a pending call's slot (see the client's suspension). */
function placeholderOf(call: PendingCall, asked: Asked | undefined): ToolMessage {
  return {
    role: "tool",
    callId: call.callId,
    name: asked?.call.name ?? call.tool,
    content: call.request.prompt,
    isError: true,
  };
}

function isPlaceholder(message: unknown, expected: ToolMessage): boolean {
  if (!isObject(message) || Object.keys(message).length !== 5) return false;
  return (
    message.role === "tool" &&
    message.callId === expected.callId &&
    message.name === expected.name &&
    message.content === expected.content &&
    message.isError === true
  );
}

const isZeroUsage = (usage: Usage | undefined): boolean =>
  usage !== undefined &&
  Object.keys(usage).length === 3 &&
  usage.promptTokens === 0 &&
  usage.completionTokens === 0 &&
  usage.totalTokens === 0;

function compactMessage(message: Message): unknown {
  if (message.role !== "assistant") return message;
  const { content, toolCalls } = message;
  const out = omit(message, ["content", "toolCalls"]);
  if (content !== "") out.content = content;
  if (toolCalls !== undefined) {
    out.toolCalls = Array.isArray(toolCalls)
      ? toolCalls.map((call) => {
          if (typeof call.rawArgs !== "string") return { ...call, rawArgs: null };
          if (call.rawArgs !== JSON.stringify(call.args)) return call;
          return omit(call, ["rawArgs"]);
        })
      : toolCalls;
  }
  return out;
}

/**
 * The text a store keeps for `checkpoint`: compact (stored format 3), read back exactly by
 * {@link decodeCheckpoint} and `readStoredCheckpoint`. The same checkpoint always gives the same
 * text.
 */
export function encodeCheckpoint(checkpoint: Checkpoint): string {
  const { messages, pending, usage, leaseToken } = checkpoint;
  const stored: Json = { v: STORED_CHECKPOINT_FORMAT };
  for (const key of Object.keys(checkpoint)) {
    if (!CHECKPOINT_OWN_KEYS.includes(key)) stored[key] = (checkpoint as unknown as Json)[key];
  }
  const created = exactMs(checkpoint.createdAt);
  if (created !== undefined) stored.createdAt = created;
  const left = new Set<number>();
  const calls = pending.map((call) => {
    const { tool, args, approval } = call;
    const out = omit(call, ["tool", "args", "approval"]);
    const asked = askedCall(messages, call.callId);
    const derived =
      asked !== undefined && asked.call.name === tool && sameJson(asked.call.args, args);
    if (!derived) Object.assign(out, { tool, args });
    if (approval !== false) out.approval = approval;
    const slot = call.slot;
    const dropped =
      Number.isInteger(slot) &&
      !left.has(slot) &&
      isObject(call.request) &&
      isPlaceholder(messages[slot], placeholderOf(call, asked));
    if (dropped) left.add(slot);
    else out.kept = true;
    return { out, asked, dropped };
  });
  stored.pending = calls.map(({ out, asked, dropped }) => {
    // The loop's own slot (see the format above) is left for the reader to work out.
    if (
      dropped &&
      asked !== undefined &&
      out.slot === asked.at + 1 + asked.nth &&
      ![...left].some((slot) => slot < asked.at)
    ) {
      delete out.slot;
    }
    return out;
  });
  stored.messages = messages.filter((_, i) => !left.has(i)).map(compactMessage);
  if (!isZeroUsage(usage)) stored.usage = usage;
  if (leaseToken === undefined) stored.leaseToken = null;
  else if (leaseToken !== 0) stored.leaseToken = leaseToken;
  return JSON.stringify(stored);
}

// The last createdAt coded, both ways: a checkpoint is coded again and again with the same
// one, and on Node 20 each Date.parse costs about a quarter of a microsecond.
let lastMs = 0;
let lastIso = "1970-01-01T00:00:00.000Z";

function isoOf(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (Number.isNaN(new Date(ms).getTime())) malformed("its createdAt is not a time");
  lastIso = isoTime(ms);
  lastMs = ms;
  return lastIso;
}

/** The epoch ms of `iso` when it is exactly that time's toISOString(), else undefined. */
function exactMs(iso: string): number | undefined {
  if (iso === lastIso) return lastMs;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || isoTime(ms) !== iso) return undefined;
  lastIso = iso;
  lastMs = ms;
  return ms;
}

const malformed = (problem: string): never => {
  throw new CheckpointError(undefined, `its stored form is malformed: ${problem}`);
};

// Reading expands the value JSON.parse just made, in place: nobody else holds it, and a copy of
// every message would cost more than the parse (object spreads take V8's slow path on Node 20).
// A key that was left out is added last, where a copy would have put it too.

function expandMessage(message: unknown): unknown {
  if (!isObject(message) || message.role !== "assistant") return message;
  if (!("content" in message)) message.content = "";
  const calls = message.toolCalls;
  if (Array.isArray(calls)) {
    for (let i = 0; i < calls.length; i++) {
      const call: unknown = calls[i];
      if (!isObject(call)) continue;
      if (call.rawArgs === null) calls[i] = omit(call, ["rawArgs"]);
      else if (!("rawArgs" in call)) call.rawArgs = JSON.stringify(call.args);
    }
  }
  return message;
}

/** The full checkpoint from a freshly parsed stored format 3 value (expanded in place). */
function expand(stored: Json): Json {
  const { messages, pending: storedPending, usage, leaseToken } = stored;
  if (!Array.isArray(messages)) return malformed("its messages are missing");
  if (!Array.isArray(storedPending)) return malformed("its pending calls are missing");
  for (const message of messages) expandMessage(message);
  const pending = (storedPending as unknown[]).map((value) => {
    if (!isObject(value)) return malformed("a pending call is not an object");
    const kept = value.kept === true;
    const asked = askedCall(messages, value.callId);
    const full = "kept" in value ? omit(value, ["kept"]) : value;
    // A left-out slot is counted in the stored messages: no left-out placeholder precedes it.
    if (!("slot" in full) && asked !== undefined && !kept) full.slot = asked.at + 1 + asked.nth;
    if (!("tool" in full)) full.tool = asked?.call.name;
    // A copy: the pending call's args and the transcript's must not be one object.
    if (!("args" in full) && asked !== undefined) {
      full.args = jsonCopy(asked.call.args);
    }
    if (!("approval" in full)) full.approval = false;
    return { full, kept, asked };
  });
  // Placeholders go back in slot order: each lands where it was once the earlier ones are in.
  const left = pending.filter((p) => !p.kept);
  if (left.length > 1) left.sort((a, b) => Number(a.full.slot) - Number(b.full.slot));
  for (const { full, asked } of left) {
    const slot = full.slot;
    if (!Number.isInteger(slot) || (slot as number) < 0 || (slot as number) > messages.length) {
      malformed(`pending call ${String(full.callId)} has no slot for its placeholder`);
    }
    if (!isObject(full.request) || typeof full.request.prompt !== "string") {
      malformed(`pending call ${String(full.callId)} has no request prompt`);
    }
    messages.splice(slot as number, 0, placeholderOf(full as unknown as PendingCall, asked));
  }
  const checkpoint: Json = { version: CHECKPOINT_VERSION };
  for (const key in stored) {
    if (!STORED_OWN_KEYS.includes(key)) checkpoint[key] = stored[key];
  }
  checkpoint.messages = messages;
  if (typeof checkpoint.createdAt === "number") checkpoint.createdAt = isoOf(checkpoint.createdAt);
  const full: unknown[] = [];
  for (const p of pending) full.push(p.full);
  checkpoint.pending = full;
  checkpoint.usage = usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  if (leaseToken === undefined) checkpoint.leaseToken = 0;
  else if (leaseToken !== null) checkpoint.leaseToken = leaseToken;
  return checkpoint;
}

/** Format 3 expanded in place (see {@link expandStoredCheckpoint}); `value` must be a fresh parse. */
export function expandParsedCheckpoint(value: unknown): unknown {
  if (!isObject(value) || !("v" in value)) return value;
  if (value.v !== STORED_CHECKPOINT_FORMAT) {
    throw new CheckpointError(
      undefined,
      `it was stored in format ${JSON.stringify(value.v)}, this release reads formats 2 and ${STORED_CHECKPOINT_FORMAT}`,
    );
  }
  return expand(value);
}

/**
 * A parsed stored checkpoint as the full Checkpoint value, not yet validated: format 3 is
 * expanded, anything else (version 2 text, or a value that is no checkpoint at all) is returned
 * as it is, for `assertCheckpoint` to judge. A `CheckpointError` for a format 3 value that cannot
 * be expanded, or a newer format.
 */
export function expandStoredCheckpoint(value: unknown): unknown {
  if (!isObject(value) || !("v" in value)) return value;
  // The caller keeps its value as it was: the expansion works on a copy.
  return expandParsedCheckpoint(JSON.parse(JSON.stringify(value)));
}

/**
 * A checkpoint from the text {@link encodeCheckpoint} wrote, or from version 2 text (what
 * earlier releases stored: `JSON.stringify` of the checkpoint), validated with
 * `assertCheckpoint`; a `CheckpointError` for text that is neither.
 */
export function decodeCheckpoint(text: string): Checkpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CheckpointError(undefined, `it is not JSON: ${(cause as Error).message}`, { cause });
  }
  const checkpoint = expandParsedCheckpoint(value);
  assertCheckpoint(checkpoint);
  return checkpoint;
}
