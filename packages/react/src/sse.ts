// Server-Sent Events read over fetch rather than EventSource: fetch carries the provider's
// headers (a bearer token) and credentials, and gives the offset to resume from by hand.

/** One SSE message: its `id:`, `event:` and joined `data:` lines. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** The most characters one message may take before the stream is treated as broken. */
export const MAX_SSE_MESSAGE_CHARS = 1024 * 1024;

/**
 * Parses a stream of SSE text into messages, calling `onMessage` for each (comments are
 * skipped); `onMessage` returning `true` stops reading. The body is cancelled on every way out
 * but its own end (a `true`, a throw from `onMessage`, a message over the cap, `signal`
 * aborting), so the connection under it closes rather than stay open unread.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => boolean | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  // A CR ending one chunk may be the first half of a CRLF: it waits for the next chunk.
  let carriage = "";
  let ended = false;
  // A fetch aborts its own body, but a `fetch` given in the config may not: cancel it here too.
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  try {
    if (signal?.aborted) return;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      let text = carriage + decoder.decode(value, { stream: true });
      carriage = text.endsWith("\r") ? "\r" : "";
      if (carriage !== "") text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, "\n");
      let cut = buffer.indexOf("\n\n");
      while (cut !== -1) {
        const message = parseBlock(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (message !== undefined && onMessage(message) === true) return;
        cut = buffer.indexOf("\n\n");
      }
      if (buffer.length > MAX_SSE_MESSAGE_CHARS) {
        throw new Error("an event stream message is over the size a client accepts");
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function parseBlock(block: string): SseMessage | undefined {
  let id: string | undefined;
  let event = "message";
  const data: string[] = [];
  let any = false;
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") id = value;
    else if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else continue;
    any = true;
  }
  if (!any || data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), event, data: data.join("\n") };
}
