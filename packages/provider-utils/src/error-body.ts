// What an error response's body says, for a ProviderError: the provider's message, type and
// code when the body has a known shape, else a short snippet of it, with every secret redacted
// however the body spelled it.
import { asRecord } from "./parse.js";
import { redact } from "./redact.js";

/**
 * Pulls the human-readable message, the type and the code out of a provider's error body.
 * Understands `{ error: { message, type, code } }` (OpenAI, Anthropic, vLLM, OpenRouter; `type`
 * falls back to `code` when there is none), `{ error: "..." }` (Ollama, llama.cpp), `{ message }`
 * and `{ detail }`; anything else is returned as a short snippet of the body (a JSON body written
 * out again from its parsed value, so escapes are undone). Pass the `secrets`: they are redacted,
 * however the body escaped them, before any of it is cut to a snippet.
 */
export function errorDetails(
  body: string,
  secrets: readonly string[] = [],
): { message?: string; type?: string; code?: string } {
  const text = redact(body, secrets);
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { message: snippet(text) };
  }
  // What is shown of the body is its parsed value written out again, not the text as sent: an
  // escaped spelling of a secret (`\u0073k-...`, `\/`) reads as written there, and is redacted.
  const shown = snippet(redact(reserialized(json) ?? text, secrets));
  const record = asRecord(json);
  if (record === undefined) return { message: shown };
  const inner = asRecord(record.error);
  // Parsed strings are redacted again: a JSON escape (`\u0073k-...`) hid them from the first pass.
  const clean = (value: unknown) => {
    const text = stringOf(value);
    return text === undefined ? undefined : redact(text, secrets);
  };
  if (inner !== undefined) {
    const out: { message?: string; type?: string; code?: string } = {};
    const message = clean(inner.message);
    const code = clean(inner.code);
    const type = clean(inner.type) ?? code;
    if (message !== undefined) out.message = message;
    if (type !== undefined) out.type = type;
    if (code !== undefined) out.code = code;
    return out.message === undefined ? { ...out, message: shown } : out;
  }
  const message = clean(record.error) ?? clean(record.message) ?? clean(record.detail);
  return { message: message ?? shown };
}

/** `JSON.stringify(value)`, or `undefined` for a value nested too deep to write out. */
function reserialized(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

/** `text` on one line, cut to 200 characters (an ellipsis marks the cut). Redact first. */
export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
