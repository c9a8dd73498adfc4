import { stat } from "node:fs/promises";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { Root } from "./confine.js";
import { type Args, defineBuiltin, messageOf, optionalString, requiredString } from "./define.js";
import { looksBinary, MAX_WHOLE_FILE_BYTES, readWhole } from "./files.js";
import { globMatcher } from "./glob-match.js";
import { LineMatcher } from "./grep-matcher.js";
import { limited } from "./limit.js";
import { type BuiltinToolOptions, maxOutputBytes } from "./options.js";
import { capText, truncationMarker } from "./output.js";
import { filesOf, searchLimit, searchStart, shownPath } from "./search.js";

/** A matching line longer than this is cut, with "…" (minified files). */
export const MAX_MATCH_LINE_CHARS = 2_000;

/**
 * grep's own budget when the context gives none: the regex runs in a worker thread that is
 * terminated at the deadline, so even a pattern that backtracks for ever ends the call.
 */
export const DEFAULT_GREP_TIMEOUT_MS = 60_000;

/**
 * `grep`: lines matching a JavaScript regular expression in the files under `path` (a folder
 * inside the root, or one file; default the root), optionally only files matching the `include`
 * glob. Output: `file:line:text` per match, at most `limit` (100) matches. Binary files and files
 * over 10 MiB are skipped. The regex runs in a worker thread stopped at the call's deadline
 * ({@link DEFAULT_GREP_TIMEOUT_MS} when the context sets none) or cancel: a pattern that runs
 * out of time is the error `grep: timed out after <ms>ms while matching the pattern…`.
 */
export function grepTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  const cap = maxOutputBytes(options);
  return defineBuiltin(
    {
      name: "grep",
      description:
        "Search file contents by regex under a directory. Output is file:line:text matches.",
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Regular expression to search for" },
          path: { type: "string", description: "Directory to search (default: process cwd)" },
          include: { type: "string", description: "Glob filter for file names" },
          limit: { type: "number", description: "Maximum number of matches (default 100)" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("grep", ctx, DEFAULT_GREP_TIMEOUT_MS, async (limit): Promise<ToolResult> => {
          const pattern = requiredString(args, "pattern");
          const include = optionalString(args, "include");
          const max = searchLimit(args);
          try {
            RegExp(pattern); // a syntax check here; the matching runs in the worker thread
          } catch (thrown) {
            return error(`grep: invalid regex: ${messageOf(thrown)}`);
          }
          const start = await searchStart("grep", root, args);
          if (!("real" in start)) return start;
          const included = include === undefined ? undefined : globMatcher(include);
          const matches: string[] = [];
          let skipped = 0;
          const matcher = new LineMatcher(pattern, MAX_MATCH_LINE_CHARS, limit);
          try {
            for await (const file of filesOf(start, limit)) {
              if (included !== undefined && !start.isFile && !included(file.rel)) continue;
              const size = (await stat(file.full).catch(() => undefined))?.size;
              if (size === undefined) continue;
              if (size > MAX_WHOLE_FILE_BYTES) {
                skipped++;
                continue;
              }
              const raw = await readWhole(root, file.full, limit.signal).catch(() => undefined);
              if (raw === undefined || looksBinary(raw)) continue;
              const shown = shownPath(start, file);
              const found = await matcher.match(raw.toString("utf8"), max - matches.length);
              for (const [line, text] of found) matches.push(`${shown}:${line}:${text}`);
              if (matches.length >= max) break;
            }
          } finally {
            matcher.close();
          }
          const metadata: Record<string, unknown> = { count: matches.length };
          if (skipped > 0) metadata.skippedLargeFiles = skipped;
          const capped = capText(matches.join("\n"), cap);
          if (!capped.truncated) return ok(capped.text, metadata);
          return ok(
            capped.text +
              truncationMarker(
                `over the ${cap}-byte limit; narrow the pattern, path or include to see the rest`,
              ),
            { ...metadata, truncated: true },
          );
        }),
    },
    options,
  );
}
