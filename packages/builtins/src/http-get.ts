// webfetch's HTTP GET: node:http(s) with the address guard of netguard.ts on every hop. Redirects
// are followed here, one at a time, so each new URL is checked (protocol, IP literal, and the
// addresses its name resolves to) before anything is sent to it.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { BlockedAddressError, blockedAddressKind, guardedLookup, normalHost } from "./netguard.js";

/** The most redirects one fetch follows (as browsers and Node's fetch: 20). */
export const MAX_REDIRECTS = 20;

/** A URL webfetch will not fetch: not http(s), or a refused address. */
export class RefusedUrlError extends Error {
  override name = "RefusedUrlError";
}

export interface NetworkPolicy {
  /** Connect anywhere, private networks included. */
  allowPrivate: boolean;
  /** Hosts (names or IP literals, normalized) that may be private. */
  allowHosts: ReadonlySet<string>;
}

export interface Fetched {
  status: number;
  contentType: string;
  /** The body, decompressed; destroy it when done. */
  body: Readable;
  url: URL;
}

/** GET `start`, following redirects, refusing what `policy` does not allow on every hop. */
export async function guardedGet(
  start: URL,
  headers: Record<string, string>,
  policy: NetworkPolicy,
  signal: AbortSignal,
): Promise<Fetched> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await getOnce(url, headers, policy, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined && status !== 304) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      try {
        url = new URL(location, url);
      } catch {
        throw new Error(`invalid redirect location ${JSON.stringify(location)}`);
      }
      continue;
    }
    return {
      status,
      contentType: response.headers["content-type"] ?? "",
      body: decoded(response),
      url,
    };
  }
}

function getOnce(
  url: URL,
  headers: Record<string, string>,
  policy: NetworkPolicy,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RefusedUrlError(
      `${url.href}: only http and https URLs are allowed (a redirect led to ${url.protocol})`,
    );
  }
  const host = normalHost(url.hostname);
  const guarded = !policy.allowPrivate && !policy.allowHosts.has(host);
  if (guarded && isIP(host) !== 0) {
    const kind = blockedAddressKind(host);
    if (kind !== undefined) throw refusal(url, new BlockedAddressError(host, host, kind));
  }
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { ...headers, "accept-encoding": "gzip, deflate, br" },
        // A fresh connection per request: a pooled socket would skip the lookup.
        agent: false,
        lookup: guarded ? guardedLookup : undefined,
        signal,
      },
      resolve,
    );
    req.on("error", (thrown) =>
      reject(thrown instanceof BlockedAddressError ? refusal(url, thrown) : thrown),
    );
    req.end();
  });
}

function refusal(url: URL, blocked: BlockedAddressError): RefusedUrlError {
  return new RefusedUrlError(
    `${url.host}: ${blocked.message}; webfetch does not reach private networks unless the host is in allowHosts`,
  );
}

/** The response body with its content-encoding undone. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.on("error", (thrown) => decoder.destroy(thrown));
  decoder.on("close", () => response.destroy());
  return response.pipe(decoder);
}
