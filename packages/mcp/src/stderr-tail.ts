// The end of a local server's stderr, kept for its failure reason (which goes to logs and UIs).
// A server may log the secrets it was given (a CLI that prints its token), so the text is
// scrubbed before anything cuts it: a cut through a secret would leave a fragment the Scrubber
// no longer recognises. Cuts start at a line, and text at a cut's edge that is the end (or, at
// the far edge, the start) of a secret is redacted too.
import { secretStartAtEnd } from "@toolnexus/core";
import { MIN_SECRET_LENGTH, type Scrubber } from "./scrub.js";

/** How much stderr is kept, in characters, besides room for the longest secret. */
const WINDOW_CHARS = 2000;
/** How much of it a failure reason quotes: its last lines, at most this many characters. */
export const REASON_TAIL_CHARS = 300;
const REASON_LINES = 3;

export class StderrTail {
  private text = "";
  private readonly window: number;

  constructor(
    private readonly scrub: Scrubber,
    /** The secrets the scrubber removes, to recognise their fragments at a cut. */
    private readonly secrets: readonly string[],
  ) {
    // With room for the longest secret, a secret is whole in the window (and so scrubbed)
    // before the window's start can reach it.
    this.window = WINDOW_CHARS + Math.max(0, ...secrets.map((secret) => secret.length));
  }

  push(chunk: string): void {
    // The kept text is scrubbed already; a secret split across chunks is whole here.
    const text = this.scrub.text(this.text + chunk);
    this.text = text.length <= this.window ? text : cutStart(text, this.window, "\n", this.secrets);
  }

  /**
   * Ends the text of one process before another's (a server started again): a secret it was
   * still writing when it exited is redacted, as it will never be whole.
   */
  seal(): void {
    if (this.text !== "") this.text = `${redactEnd(this.text, this.secrets)}\n`;
  }

  /** Its last lines joined with " | ", at most {@link REASON_TAIL_CHARS}; "" when there is none. */
  summary(): string {
    const lines = this.text.trim().split("\n").slice(-REASON_LINES);
    // The last line may end in a secret still being written when the server failed.
    const text = redactEnd(lines.join(" | "), this.secrets);
    if (text.length <= REASON_TAIL_CHARS) return text;
    return `…${cutStart(text, REASON_TAIL_CHARS - 1, " | ", this.secrets)}`;
  }
}

/**
 * The last `max` characters of `text`, from the first `boundary` in them when there is one,
 * and with a start that is the end of a secret redacted.
 */
export function cutStart(
  text: string,
  max: number,
  boundary: string,
  secrets: readonly string[],
): string {
  let cut = text.slice(-max);
  const at = cut.indexOf(boundary);
  if (at !== -1 && at + boundary.length < cut.length) cut = cut.slice(at + boundary.length);
  return redactStart(cut, secrets);
}

/** `text` with a start that is the end of a secret (at least 4 characters) replaced by `***`. */
export function redactStart(text: string, secrets: readonly string[]): string {
  if (text === "") return text;
  let longest = 0;
  for (const secret of secrets) {
    // Where the secret has the text's first character: a fragment would start there.
    for (let i = secret.indexOf(text[0]!); i !== -1; i = secret.indexOf(text[0]!, i + 1)) {
      const end = secret.slice(i);
      if (end.length < MIN_SECRET_LENGTH || end.length <= longest) break;
      if (text.startsWith(end)) {
        longest = end.length;
        break;
      }
    }
  }
  return longest === 0 ? text : `***${text.slice(longest)}`;
}

/**
 * `text` with an end that is the start of a secret (at least 4 characters of text, as written or
 * escaped: core's `secretStartAtEnd`) replaced by `***`.
 */
export function redactEnd(text: string, secrets: readonly string[]): string {
  const at = secretStartAtEnd(text, secrets);
  return at === -1 || text.length - at < MIN_SECRET_LENGTH ? text : `${text.slice(0, at)}***`;
}
