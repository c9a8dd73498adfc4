// Measures a Server-Sent Events stream as it arrives, byte by byte: the size of the event being
// received (an event ends at a blank line, whatever the line endings: LF, CRLF or CR) and of the
// stream so far. The SDK's parser buffers a whole event before it dispatches it, so an event
// without end would grow in memory without bound; the meter says when to stop instead.

const LF = 0x0a;
const CR = 0x0d;

/** Which limit the stream went past. */
export type SseOverflow = "event" | "stream";

export class SseMeter {
  /** Set once a chunk went past a limit: the stream is not to be read on. */
  overflow: SseOverflow | undefined;
  /** Bytes of the event being received (line endings included). */
  private event = 0;
  private total = 0;
  /** Whether the line being received has no bytes yet (so a line ending now is a blank line). */
  private lineEmpty = true;
  /** Whether the last byte was CR: an LF right after it belongs to the same line ending. */
  private afterCr = false;

  constructor(
    private readonly maxEventBytes: number,
    private readonly maxStreamBytes: number,
  ) {}

  /**
   * Counts `chunk`. Returns how many of its bytes are within the limits: all of them, or fewer
   * when it went past one (then `overflow` says which).
   */
  feed(chunk: Uint8Array): number {
    const room = this.maxStreamBytes - this.total;
    const end = Math.max(0, Math.min(chunk.length, room));
    for (let i = 0; i < end; i++) {
      const byte = chunk[i];
      if (byte === LF && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (this.lineEmpty) {
          // A blank line: the event is complete and dispatched; the next one starts empty.
          this.event = 0;
          continue;
        }
        this.lineEmpty = true;
      } else {
        this.lineEmpty = false;
      }
      if (++this.event > this.maxEventBytes) {
        this.overflow = "event";
        this.total += i;
        return i;
      }
    }
    this.total += end;
    if (end < chunk.length) this.overflow = "stream";
    return end;
  }
}
