// The origins besides a request's own whose browsers may POST (the CSRF check of checkOrigin),
// checked once when a handler is made: a typo fails at startup, never as a silent refusal.

/**
 * `list` as exact origins; a TypeError naming `maker` (`createWebHandler`, …) for an entry that
 * is not `scheme://host[:port]`.
 */
export function allowedOriginsOf(
  list: readonly string[] | undefined,
  maker: string,
): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const origin of list ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (
      parsed === undefined ||
      parsed.origin === "null" ||
      parsed.origin !== origin.replace(/\/$/, "")
    ) {
      throw new TypeError(
        `${maker}: allowedOrigins has "${origin}"; give scheme://host[:port] only`,
      );
    }
    origins.add(parsed.origin);
  }
  return origins;
}
