const LF = 10;
const CR = 13;
const COLON = 58;

/**
 * Measures, byte by byte, how big the event being received is, as the SSE rules frame it: the
 * bytes of its field lines since the last blank line (an event's end). A comment line (`:` first,
 * e.g. OpenRouter's `: OPENROUTER PROCESSING` keep-alives) is not part of any event, so it only
 * counts while it is still unfinished (a parser holds an unfinished line whole).
 */
export class EventSizeMeter {
  #pending = 0;
  #commentLine = 0;
  #atLineStart = true;
  #inComment = false;
  #afterCR = false;

  /** Adds a chunk; returns the largest size the current event (or line) reached in it. */
  add(bytes: Uint8Array): number {
    let largest = this.#pending + this.#commentLine;
    for (const b of bytes) {
      if (b === LF && this.#afterCR) {
        this.#afterCR = false; // the LF of a CRLF: the line already ended at the CR
        continue;
      }
      this.#afterCR = b === CR;
      if (b === LF || b === CR) {
        if (this.#atLineStart)
          this.#pending = 0; // a blank line: the event ended
        else if (!this.#inComment && ++this.#pending > largest) largest = this.#pending;
        this.#atLineStart = true;
        this.#inComment = false;
        this.#commentLine = 0;
        continue;
      }
      if (this.#atLineStart) {
        this.#inComment = b === COLON;
        this.#atLineStart = false;
      }
      if (this.#inComment) this.#commentLine++;
      else this.#pending++;
      const size = this.#pending + this.#commentLine;
      if (size > largest) largest = size;
    }
    return largest;
  }
}
