/**
 * Merges header sets the way HTTP compares names: case-insensitively. Every name comes out
 * lower-case and a later set wins over an earlier one, so `{ Authorization: "Bearer mine" }`
 * from the user replaces an adapter's `authorization` instead of being sent beside it (which
 * `fetch` would join into one comma-separated value). `undefined` sets are skipped.
 *
 * @example
 * mergeHeaders({ authorization: "Bearer env" }, { Authorization: "Bearer mine" })
 * // { authorization: "Bearer mine" }
 */
export function mergeHeaders(
  ...sets: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    if (set === undefined) continue;
    for (const [name, value] of Object.entries(set)) merged[name.toLowerCase()] = value;
  }
  return merged;
}

interface RuntimeGlobals {
  process?: { versions?: { node?: string; bun?: string } };
  Deno?: { version?: { deno?: string } };
}

/**
 * The `user-agent` an adapter sends: `<product>/<version> <runtime>/<version>`, e.g.
 * `toolnexus-openai/0.2.0 node/22.11.0`. `undefined` outside a server runtime (Node, Bun, Deno):
 * a browser sets its own, and an extra request header there only costs a CORS preflight.
 */
export function userAgent(product: string, version: string): string | undefined {
  const runtime = globalThis as RuntimeGlobals;
  const deno = runtime.Deno?.version?.deno;
  const bun = runtime.process?.versions?.bun;
  const node = runtime.process?.versions?.node;
  const platform =
    deno !== undefined
      ? `deno/${deno}`
      : bun !== undefined
        ? `bun/${bun}`
        : node !== undefined
          ? `node/${node}`
          : undefined;
  return platform === undefined ? undefined : `${product}/${version} ${platform}`;
}
