const LF = 10;
const CR = 13;
const COLON = 58;

/**
 * Measures how big the event being received is, as the SSE rules frame it: the bytes of its
 * field lines since the last blank line (an event's end). A comment line (`:` first, e.g.
 * OpenRouter's `: OPENROUTER PROCESSING` keep-alives) is not part of any event, so it only
 * counts while it is still unfinished (a parser holds an unfinished line whole).
 *
 * It walks a chunk line by line, finding line ends with `indexOf` (a native scan) rather than
 * looking at every byte in script: this runs on every byte of every streamed answer.
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
    const length = bytes.length;
    // The next LF and CR at or after `i`; -1 once there is none left in the chunk.
    let nextLF = bytes.indexOf(LF);
    let nextCR = bytes.indexOf(CR);
    let i = 0;
    while (i < length) {
      if (this.#afterCR) {
        this.#afterCR = false;
        if (bytes[i] === LF) {
          i++; // the LF of a CRLF: the line already ended at the CR
          continue;
        }
      }
      if (nextLF !== -1 && nextLF < i) nextLF = bytes.indexOf(LF, i);
      if (nextCR !== -1 && nextCR < i) nextCR = bytes.indexOf(CR, i);
      const end =
        nextLF === -1
          ? nextCR === -1
            ? length
            : nextCR
          : nextCR === -1 || nextLF < nextCR
            ? nextLF
            : nextCR;
      if (end > i) {
        // A run of line bytes: sizes only grow along it, so its end is its largest.
        if (this.#atLineStart) {
          this.#inComment = bytes[i] === COLON;
          this.#atLineStart = false;
        }
        if (this.#inComment) this.#commentLine += end - i;
        else this.#pending += end - i;
        const size = this.#pending + this.#commentLine;
        if (size > largest) largest = size;
        i = end;
        if (i === length) break;
      }
      // A line end (CR or LF).
      this.#afterCR = bytes[i] === CR;
      if (this.#atLineStart)
        this.#pending = 0; // a blank line: the event ended
      else if (!this.#inComment && ++this.#pending > largest) largest = this.#pending;
      this.#atLineStart = true;
      this.#inComment = false;
      this.#commentLine = 0;
      i++;
    }
    return largest;
  }
}
