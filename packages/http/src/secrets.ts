// The secrets of a call (see configured-secrets.ts), and their removal from anything the model
// reads.
import { replaceSecrets, secretSpellings, secretStartAtEnd } from "@toolnexus/core";

/** Values shorter than this are not redacted: they would mangle ordinary text. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = "[redacted]";

/** The secrets of one call. */
export class Secrets {
  /**
   * Every spelling of every value: as is and percent-encoded (core's `secretSpellings`); JSON
   * escapes of any of them are found by core's `secretSpans`.
   */
  readonly #forms: string[];

  constructor(values: readonly string[]) {
    const long = values.filter((value) => value.length >= MIN_REDACTED_LENGTH);
    this.#forms = [...new Set(long.flatMap(secretSpellings))];
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
