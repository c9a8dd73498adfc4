// Redirects followed by hand, so that a request (its headers, which carry secrets, its query
// and body) only ever goes to the origin the tool was declared for.
import { discard } from "./read-body.js";

/** How many redirects a call follows when the declaration does not say. */
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
]);

/** One request as the tool builds it. */
export interface Outgoing {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** Why a redirect was not followed, for `metadata.code`. */
export type RedirectRefusal = "cross_origin_redirect" | "too_many_redirects" | "invalid_redirect";

export type Fetched =
  | { response: Response }
  | { refused: RedirectRefusal; status: number; message: string };

/**
 * Sends the request and follows same-origin redirects, at most `maxRedirects` of them. A
 * redirect to another origin (scheme, host or port) is refused, never followed: nothing more
 * is sent. A 3xx without a `Location` is returned as the response. 303 (and 301/302 after a
 * POST) continue as a GET without the body, as browsers do; 307 and 308 resend it.
 */
export async function fetchSameOrigin(request: Outgoing, maxRedirects: number): Promise<Fetched> {
  const origin = new URL(request.url).origin;
  let { url, method, body } = request;
  let headers = request.headers;
  for (let hops = 0; ; hops++) {
    const init: RequestInit = { method, headers, signal: request.signal, redirect: "manual" };
    if (body !== undefined) init.body = body;
    const response = await fetch(url, init);
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { response };
    await discard(response);
    const { status } = response;

    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return refuse("invalid_redirect", status, "the redirect's Location is not a valid URL");
    }
    if (next.origin !== origin) {
      // Also covers a scheme change (https to http) and non-http schemes (origin "null").
      return refuse(
        "cross_origin_redirect",
        status,
        `redirect to another origin (${next.origin}) refused: this tool only sends requests, and its headers, to ${origin}`,
      );
    }
    if (hops >= maxRedirects) {
      return refuse(
        "too_many_redirects",
        status,
        `redirect not followed: more than ${maxRedirects} redirect(s) (maxRedirects)`,
      );
    }
    if (
      (status === 303 && method !== "GET" && method !== "HEAD") ||
      ((status === 301 || status === 302) && method === "POST")
    ) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !BODY_HEADERS.has(name.toLowerCase())),
      );
    }
    url = next.href;
  }
}

function refuse(refused: RedirectRefusal, status: number, reason: string): Fetched {
  return { refused, status, message: `HTTP ${status}: ${reason}` };
}
