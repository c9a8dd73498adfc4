import { ProviderError } from "./errors.js";

/** How many same-origin redirects one request follows before it fails. */
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Who is fetching: for error messages, the secrets to redact and the hop cap. */
export interface RedirectSettings {
  provider: string;
  secrets: readonly string[];
  maxRedirects?: number | undefined;
}

/**
 * Fetches `url` with `redirect: "manual"` and follows redirects itself, only within the origin
 * (scheme, host and port) of `url`: the request's headers were configured for that origin and
 * carry credentials (`authorization`, `x-api-key`, `x-goog-api-key`, a gateway's own header...),
 * which `fetch` itself would forward to any origin but `authorization`. A redirect to another
 * origin is refused with a {@link ProviderError} `"provider_redirect"` before anything is sent
 * there; so is a chain longer than `maxRedirects`, and a redirect the runtime hides (a browser's
 * opaque redirect). A same-origin redirect is followed with the same method, headers and body.
 */
export async function fetchSameOrigin(
  doFetch: (input: string, init: RequestInit) => Promise<Response>,
  url: string,
  init: RequestInit,
  settings: RedirectSettings,
): Promise<Response> {
  const { provider, secrets } = settings;
  const maxRedirects = settings.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const origin = new URL(url).origin;
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await doFetch(current, { ...init, redirect: "manual" });
    if (response.type === "opaqueredirect") {
      throw new ProviderError(
        "provider_redirect",
        `${provider}: the server answered with a redirect this runtime does not let us inspect; it was not followed. Point baseUrl at the final address`,
        { provider, status: response.status, secrets },
      );
    }
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new ProviderError(
        "provider_redirect",
        `${provider}: HTTP ${response.status} redirects to an invalid address; not followed`,
        { provider, status: response.status, secrets },
      );
    }
    if (next.origin !== origin) {
      // Only the origin is named: the rest of the address may carry anything.
      throw new ProviderError(
        "provider_redirect",
        `${provider}: HTTP ${response.status} redirects from ${origin} to another origin (${next.origin}); refused so that no API key or header configured for ${origin} reaches it. If the new address is right, set baseUrl to it`,
        { provider, status: response.status, secrets },
      );
    }
    if (next.username !== "" || next.password !== "") {
      // fetch refuses such a URL anyway (and would quote it, credentials included).
      throw new ProviderError(
        "provider_redirect",
        `${provider}: HTTP ${response.status} redirects to an address with a user name or password; not followed`,
        { provider, status: response.status, secrets },
      );
    }
    if (hops >= maxRedirects) {
      throw new ProviderError(
        "provider_redirect",
        `${provider}: more than ${maxRedirects} redirects; stopped at HTTP ${response.status}`,
        { provider, status: response.status, secrets },
      );
    }
    current = next.toString();
  }
}
