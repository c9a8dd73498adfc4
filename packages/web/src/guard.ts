// What every request is checked for before anything is looked up: a POST's origin, its media
// type and size, and the shape of ids and query values. All of it is refused the same way for
// every caller, so none of it reveals whether a run exists.
import { WebError } from "./errors.js";

/** The longest id (run or request) accepted in a path: longer ones are refused, not looked up. */
export const MAX_ID_CHARS = 256;
/** The longest query value (session, agent, kind). */
export const MAX_QUERY_CHARS = 256;

/**
 * A POST from a browser must come from the request's own origin or one of `allowed`: a form or
 * a script on another site cannot answer or cancel with the user's cookies. A request without
 * `Origin` (curl, a server) passes unless the browser says it is cross-site.
 */
export function checkOrigin(request: Request, url: URL, allowed: ReadonlySet<string>): void {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin !== "null" && (origin === url.origin || allowed.has(origin))) return;
    throw new WebError(
      403,
      "forbidden_origin",
      "this origin may not post here; the server lists the origins it accepts (allowedOrigins)",
    );
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new WebError(403, "forbidden_origin", "cross-site posts are refused");
  }
}

/** Reads a POST body as JSON: `application/json` only (415), at most `maxBytes` (413). */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  const media = type.split(";")[0]!.trim().toLowerCase();
  if (media !== "application/json") {
    throw new WebError(415, "unsupported_media_type", "send the body as application/json");
  }
  const tooLarge = () =>
    new WebError(413, "payload_too_large", `the body is over the ${maxBytes} bytes accepted`);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  const bytes = await readCapped(request, maxBytes, tooLarge);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new WebError(400, "bad_request", "the body is not UTF-8");
  }
  if (text.trim() === "") throw new WebError(400, "bad_request", "the body is empty; send JSON");
  try {
    return JSON.parse(text);
  } catch {
    throw new WebError(400, "bad_request", "the body is not valid JSON");
  }
}

/** The body's bytes, stopping (and cancelling the stream) as soon as it passes the cap. */
async function readCapped(
  request: Request,
  maxBytes: number,
  tooLarge: () => WebError,
): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The client went away, or a server in front cut the body off (its own size cap).
      throw new WebError(400, "bad_request", "the body could not be read to its end");
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** A path segment as an id: decoded, 1 to {@link MAX_ID_CHARS} characters, no control ones. */
export function idOf(segment: string, what: string): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw new WebError(400, "bad_request", `the ${what} id is not valid percent-encoding`);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (id === "" || id.length > MAX_ID_CHARS || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new WebError(
      400,
      "bad_request",
      `the ${what} id must be 1 to ${MAX_ID_CHARS} characters, without control characters`,
    );
  }
  return id;
}

/** An optional query value within {@link MAX_QUERY_CHARS}; each problem goes to `issues`. */
export function queryValue(url: URL, name: string, issues: string[]): string | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length === 0) return undefined;
  const value = values[0]!;
  if (values.length > 1) issues.push(`${name}: given more than once`);
  else if (value === "" || value.length > MAX_QUERY_CHARS) {
    issues.push(`${name}: must be 1 to ${MAX_QUERY_CHARS} characters`);
  }
  return value;
}

/** Only the listed query parameters; anything else is a mistake worth saying. */
export function onlyParams(url: URL, known: readonly string[], issues: string[]): void {
  for (const name of new Set(url.searchParams.keys())) {
    if (!known.includes(name)) {
      issues.push(`${name.slice(0, 40)}: unknown parameter (known: ${known.join(", ")})`);
    }
  }
}

/** A whole number ≥ 0 given as text (an event offset), else undefined. */
export function offsetOf(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}
