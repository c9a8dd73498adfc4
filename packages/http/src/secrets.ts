// The secrets of a call (see configured-secrets.ts), and their removal from anything the model
// reads.
import { replaceSecrets, secretStartAtEnd } from "@toolnexus/core";

/** Values shorter than this are not redacted: they would mangle ordinary text. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = "[redacted]";

/**
 * The forms a value takes when a server echoes it: as is, and URL-encoded. JSON escapes (`\/`,
 * `\u0074`, JSON quoted in JSON) are found by core's `secretSpans` in any of these forms.
 */
function formsOf(value: string): string[] {
  const forms = [value];
  try {
    const encoded = encodeURIComponent(value);
    if (encoded !== value) forms.push(encoded);
  } catch {
    // A lone surrogate cannot be URL-encoded, so it cannot be echoed that way either.
  }
  return forms;
}

/** The secrets of one call. */
export class Secrets {
  /** Every form of every value. */
  readonly #forms: string[];

  constructor(values: readonly string[]) {
    const long = values.filter((value) => value.length >= MIN_REDACTED_LENGTH);
    this.#forms = [...new Set(long.flatMap(formsOf))];
  }

  /** `text` with every secret replaced by `[redacted]`, escaped however, the rest untouched. */
  redact(text: string): string {
    return this.#forms.length === 0 ? text : replaceSecrets(text, this.#forms, REDACTED);
  }

  /**
   * Like `redact`, for text that was cut: a secret's beginning left at the very end (the cut
   * fell inside it), in any of its forms or escaped, is removed too, and so is an escape the
   * cut left unfinished when it may be a secret's next character.
   */
  redactCut(text: string): string {
    if (this.#forms.length === 0) return text;
    const out = replaceSecrets(text, this.#forms, REDACTED);
    const at = secretStartAtEnd(out, this.#forms);
    return at === -1 ? out : out.slice(0, at);
  }
}
