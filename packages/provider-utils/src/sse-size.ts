const LF = 10;
const CR = 13;
const COLON = 58;

/**
 * Measures how big the event being received is, as the SSE rules frame it: the bytes of its
 * field lines since the last blank line (an event's end). A comment line (`:` first, e.g.
 * OpenRouter's `: OPENROUTER PROCESSING` keep-alives) is not part of any event, so it only
 * counts while it is still unfinished (a parser holds an unfinished line whole).
 *
 * It walks a chunk line by line, finding line ends with `indexOf` rather than looking at every
 * byte in script: this runs on every byte of every streamed answer. Where Node's `Buffer` exists
 * the chunk is scanned through a Buffer view of it (memchr, several times faster than a typed
 * array's `indexOf`); elsewhere, or with `{ buffer: false }`, through the typed array itself.
 */
export class EventSizeMeter {
  readonly #buffer: BufferLike | undefined;
  #pending = 0;
  #commentLine = 0;
  #atLineStart = true;
  #inComment = false;
  #afterCR = false;

  constructor(options: { buffer?: boolean } = {}) {
    const buffer = (globalThis as { Buffer?: BufferLike }).Buffer;
    this.#buffer = options.buffer === false ? undefined : buffer;
  }

  /** Adds a chunk; returns the largest size the current event (or line) reached in it. */
  add(chunk: Uint8Array): number {
    let largest = this.#pending + this.#commentLine;
    const bytes: ByteScan =
      this.#buffer === undefined
        ? chunk
        : this.#buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
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

/** What the meter reads of a chunk: a `Uint8Array` or a Node `Buffer` viewing the same bytes. */
interface ByteScan {
  readonly length: number;
  readonly [index: number]: number;
  indexOf(byte: number, from?: number): number;
}

/** Node's `Buffer`, as far as the meter uses it (no copy: a view of the same memory). */
interface BufferLike {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): ByteScan;
}
