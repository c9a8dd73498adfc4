import { usage } from "./cli-error.js";

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** The longest age accepted: ten years, so that `Date.now() - age` stays a valid time. */
const MAX_MS = 10 * 365 * UNITS.d!;

/**
 * An age such as `90s`, `15m`, `2h`, `30d`, `1w` or `1d12h`, in milliseconds. A usage error
 * names `option` and shows the accepted form.
 */
export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim();
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  let found: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: a sticky regex walked part by part
  while ((found = part.exec(trimmed)) !== null) {
    total += Number(found[1]) * UNITS[found[2]!]!;
    matched = part.lastIndex;
  }
  if (trimmed === "" || matched !== trimmed.length || !Number.isFinite(total) || total > MAX_MS) {
    throw usage(
      `${option} takes an age like 90s, 15m, 2h, 30d or 1d12h (units ms, s, m, h, d, w; at most 10 years), not "${text.slice(0, 40)}"`,
    );
  }
  return Math.round(total);
}

/** A short age for people: `45s`, `12m`, `3h`, `2d`. */
export function shortAge(ms: number): string {
  const abs = Math.max(0, ms);
  if (abs < 60_000) return `${Math.floor(abs / 1000)}s`;
  if (abs < 3_600_000) return `${Math.floor(abs / 60_000)}m`;
  if (abs < 86_400_000) return `${Math.floor(abs / 3_600_000)}h`;
  return `${Math.floor(abs / 86_400_000)}d`;
}
