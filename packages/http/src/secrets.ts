// The expanded `${VAR}` values of a call, and their removal from anything the model reads.

/** Expanded values shorter than this are not redacted: they would mangle ordinary text. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = "[redacted]";

/** The forms a value takes when a server echoes it: as is, URL-encoded, inside a JSON string. */
function formsOf(value: string): string[] {
  const forms = new Set([value, JSON.stringify(value).slice(1, -1)]);
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URL-encoded, so it cannot be echoed that way either.
  }
  return [...forms];
}

/** The secrets of one call. */
export class Secrets {
  /** Every form of every value, longest first, so a longer secret is replaced whole. */
  readonly #forms: string[];

  constructor(values: readonly string[]) {
    const long = values.filter((value) => value.length >= MIN_REDACTED_LENGTH);
    this.#forms = [...new Set(long.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const form of this.#forms) out = out.split(form).join(REDACTED);
    return out;
  }

  /**
   * Like `redact`, for text that was cut: a secret's beginning left at the very end (the cut
   * fell inside it) is removed too.
   */
  redactCut(text: string): string {
    const out = this.redact(text);
    let longest = 0;
    for (const form of this.#forms) {
      for (let length = Math.min(form.length - 1, out.length); length > longest; length--) {
        if (out.endsWith(form.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return out.slice(0, out.length - longest);
  }
}
