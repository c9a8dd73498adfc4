// Keeping known secret values out of text that leaves a process: an MCP server echoes the header
// values it received (@toolnexus/mcp), and a served tool's error may quote the keys it used
// (@toolnexus/mcp-server). Shared here so both scrub the same way.
import { replaceSecrets, secretSpellings } from "./secret-spans.js";

/** Shorter values are not treated as secrets: scrubbing "1" or "/tmp" would mangle output. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every configured secret value with `***` in text, or in every string of a value, as
 * written or JSON-escaped (a server may echo a value inside JSON of its own; see secretSpans).
 */
export class Scrubber {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string>) {
    const unique = new Set<string>();
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const spelling of secretSpellings(secret)) unique.add(spelling);
    }
    this.secrets = [...unique];
  }

  get empty(): boolean {
    return this.secrets.length === 0;
  }

  text(text: string): string {
    return this.secrets.length === 0 ? text : replaceSecrets(text, this.secrets, "***");
  }

  /** A copy of `value` with every string (object keys included) scrubbed; other values kept. */
  deep<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.text(value);
    if (typeof value !== "object" || value === null) return value;
    // Past this depth (a pathological tree) the rest is scrubbed as JSON text, not recursively.
    if (depth > 64) return this.asJson(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item, depth + 1));
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[this.text(key)] = this.walk(item, depth + 1);
    }
    return out;
  }

  private asJson(value: unknown): unknown {
    // Spans cover whole escapes, so what is left is still JSON.
    return JSON.parse(this.text(JSON.stringify(value)));
  }
}
