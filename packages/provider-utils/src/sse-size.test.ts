import { describe, expect, it } from "vitest";
import { EventSizeMeter } from "./sse-size.js";

/** The meter's rules one byte at a time: the plain reading the fast one must agree with. */
class ByteMeter {
  pending = 0;
  comment = 0;
  atLineStart = true;
  inComment = false;
  afterCR = false;
  add(bytes: Uint8Array): number {
    let largest = this.pending + this.comment;
    for (const b of bytes) {
      if (b === 10 && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      this.afterCR = b === 13;
      if (b === 10 || b === 13) {
        if (this.atLineStart) this.pending = 0;
        else if (!this.inComment && ++this.pending > largest) largest = this.pending;
        this.atLineStart = true;
        this.inComment = false;
        this.comment = 0;
        continue;
      }
      if (this.atLineStart) {
        this.inComment = b === 58;
        this.atLineStart = false;
      }
      if (this.inComment) this.comment++;
      else this.pending++;
      largest = Math.max(largest, this.pending + this.comment);
    }
    return largest;
  }
}

const text =
  'data: {"a":1}\n\n: keep-alive\r\n\r\ndata: one\r\ndata: two\rdata: three\n\n:c\rdata: x\r\r' +
  "event: e\nid: 7\ndata: été ✓\n\n\n: tail\ndata: cut";
const bytes = new TextEncoder().encode(text);

describe.each([
  { scan: "a Buffer view", options: {} },
  { scan: "the typed array", options: { buffer: false } },
])("EventSizeMeter scanning $scan", ({ options }) => {
  it("agrees with the byte-by-byte reading for the whole text in one chunk", () => {
    expect(new EventSizeMeter(options).add(bytes)).toBe(new ByteMeter().add(bytes));
  });

  it("agrees at every split into two chunks, and one byte per chunk", () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const fast = new EventSizeMeter(options);
      const slow = new ByteMeter();
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) {
        expect(fast.add(part), `cut at ${cut}`).toBe(slow.add(part));
      }
    }
    const fast = new EventSizeMeter(options);
    const slow = new ByteMeter();
    for (let i = 0; i < bytes.length; i++) {
      expect(fast.add(bytes.subarray(i, i + 1))).toBe(slow.add(bytes.subarray(i, i + 1)));
    }
  });

  it("agrees on random line ends and chunk sizes", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = [10, 13, 58, 100, 97, 116, 32];
    for (let round = 0; round < 200; round++) {
      const input = Uint8Array.from({ length: 1 + random(300) }, () => alphabet[random(7)] ?? 0);
      const fast = new EventSizeMeter(options);
      const slow = new ByteMeter();
      for (let at = 0; at < input.length; ) {
        const next = at + 1 + random(40);
        const part = input.subarray(at, next);
        expect(fast.add(part)).toBe(slow.add(part));
        at = next;
      }
    }
  });

  it("counts one event's lines and line ends, and forgets it at the blank line", () => {
    const meter = new EventSizeMeter(options);
    expect(meter.add(new TextEncoder().encode("data: 12345\r\ndata: 1\n"))).toBe(20);
    expect(meter.add(new TextEncoder().encode("\ndata: 1"))).toBe(20);
    expect(meter.add(new TextEncoder().encode("2"))).toBe(8);
  });
});
