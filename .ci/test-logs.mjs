// What .ci/tasks.mjs and .ci/suites.mjs share: turbo's run summaries, and a test log read for
// its failures.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Turbo's run summaries under `root` written since `since` (epoch ms), newest first, parsed. */
export function turboSummaries(root, since = 0) {
  const runs = join(root, ".turbo", "runs");
  if (!existsSync(runs)) return [];
  const found = [];
  for (const name of readdirSync(runs)) {
    if (!name.endsWith(".json")) continue;
    const file = join(runs, name);
    const mtimeMs = statSync(file).mtimeMs;
    if (mtimeMs >= since) found.push({ file, mtimeMs });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const summaries = [];
  for (const { file } of found) {
    try {
      summaries.push(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      // A summary being written, or cut short by a killed run: the others still count.
    }
  }
  return summaries;
}

/** A log's lines without ANSI colour codes (vitest colours its output). */
export function plainLines(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in vitest's log.
  return text.split("\n").map((line) => line.replace(/\u001b\[[0-9;]*m/g, "").trimEnd());
}

/** vitest's FAIL lines in `lines`, each once, trimmed. */
export function failLines(lines) {
  return [...new Set(lines.filter((line) => /^\s*FAIL\s/.test(line)).map((l) => l.trim()))];
}
