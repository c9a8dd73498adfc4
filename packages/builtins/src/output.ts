// Output caps. Sizes are UTF-8 bytes; a cut never splits a character.

/** The longest prefix of `buf` of at most `bytes` bytes that ends on a character boundary. */
export function utf8Head(buf: Buffer, bytes: number): string {
  const prefix = buf.subarray(0, Math.max(0, Math.min(buf.length, bytes)));
  let lead = prefix.length - 1;
  while (lead >= 0 && prefix.length - lead < 4 && ((prefix[lead] ?? 0) & 0xc0) === 0x80) lead--;
  if (lead < 0) return prefix.toString("utf8");
  const first = prefix[lead] ?? 0;
  const size = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return prefix.subarray(0, prefix.length - lead < size ? lead : prefix.length).toString("utf8");
}

/** The longest suffix of `buf` of at most `bytes` bytes that starts on a character boundary. */
export function utf8Tail(buf: Buffer, bytes: number): string {
  if (buf.length <= bytes) return buf.toString("utf8");
  let start = buf.length - Math.max(0, bytes);
  while (start < buf.length && ((buf[start] ?? 0) & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

/** The text kept in full, or cut to `cap` bytes; `truncated` says which. */
export function capText(text: string, cap: number): { text: string; truncated: boolean } {
  if (text.length <= cap / 4 || Buffer.byteLength(text, "utf8") <= cap) {
    return { text, truncated: false };
  }
  return { text: utf8Head(Buffer.from(text, "utf8"), cap), truncated: true };
}

/** The marker that ends a cut output: `\n\n[output truncated: <detail>]`. */
export function truncationMarker(detail: string): string {
  return `\n\n[output truncated: ${detail}]`;
}

/**
 * Collects a stream of bytes of any length in bounded memory: everything when the total fits in
 * `cap`, otherwise the first and the last `cap / 2` bytes (the start of a log says what ran, its
 * end how it finished) and a count of what was dropped between them.
 */
export class HeadTail {
  readonly #cap: number;
  readonly #headCap: number;
  readonly #tailCap: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(cap: number) {
    this.#cap = cap;
    this.#headCap = Math.ceil(cap / 2);
    this.#tailCap = cap - this.#headCap;
  }

  get total(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#cap;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headCap) {
      const take = Math.min(this.#headCap - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    // Copy: a subarray would keep the whole (possibly large) chunk alive.
    this.#tail.push(Buffer.from(rest));
    this.#tailBytes += rest.length;
    while (
      this.#tail.length > 1 &&
      this.#tailBytes - (this.#tail[0]?.length ?? 0) >= this.#tailCap
    ) {
      this.#tailBytes -= this.#tail.shift()?.length ?? 0;
    }
  }

  /** The collected text; when cut, `marker(omitted, total)` goes between head and tail. */
  text(marker: (omitted: number, total: number) => string): string {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString("utf8");
    const headText = utf8Head(head, this.#headCap);
    const tailText = utf8Tail(tail, this.#tailCap);
    const omitted =
      this.#total - Buffer.byteLength(headText, "utf8") - Buffer.byteLength(tailText, "utf8");
    return `${headText}${marker(omitted, this.#total)}${tailText}`;
  }
}
