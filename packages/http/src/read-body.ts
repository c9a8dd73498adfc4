// Reads a response body up to a byte cap, then stops: the rest is never downloaded.

/** A body's text and whether it was cut at the cap. */
export interface CappedBody {
  text: string;
  truncated: boolean;
}

/**
 * Reads at most `cap` bytes of `response`'s body (after content decoding, so a compressed bomb
 * is bounded too). On reaching the cap the stream is cancelled, which closes the connection;
 * the text is cut on a character boundary. Memory stays within `cap` plus one chunk.
 */
export async function readCapped(response: Response, cap: number): Promise<CappedBody> {
  if (response.body === null) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      // One byte past the cap proves there is more; a body of exactly `cap` bytes is whole.
      if (total > cap) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
  const bytes = Buffer.concat(chunks, total);
  if (!truncated) return { text: new TextDecoder().decode(bytes), truncated };
  // Back off to the start of the character the cut falls in.
  let cut = cap;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return { text: new TextDecoder().decode(bytes.subarray(0, cut)), truncated };
}

/** Drops a body that will not be read (a redirect's), so its connection can be reused or closed. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
