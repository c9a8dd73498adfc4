import { stat } from "node:fs/promises";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { Root } from "./confine.js";
import { type Args, defineBuiltin, messageOf, optionalString, requiredString } from "./define.js";
import { looksBinary, MAX_WHOLE_FILE_BYTES, readWhole } from "./files.js";
import { globMatcher } from "./glob-match.js";
import { limited } from "./limit.js";
import { type BuiltinToolOptions, maxOutputBytes } from "./options.js";
import { capText, truncationMarker } from "./output.js";
import { filesOf, searchLimit, searchStart, shownPath } from "./search.js";

/** A matching line longer than this is cut, with "…" (minified files). */
export const MAX_MATCH_LINE_CHARS = 2_000;

/**
 * `grep`: lines matching a JavaScript regular expression in the files under `path` (a folder
 * inside the root, or one file; default the root), optionally only files matching the `include`
 * glob. Output: `file:line:text` per match, at most `limit` (100) matches. Binary files and files
 * over 10 MiB are skipped.
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
        limited("grep", ctx, undefined, async (limit): Promise<ToolResult> => {
          const pattern = requiredString(args, "pattern");
          const include = optionalString(args, "include");
          const max = searchLimit(args);
          let re: RegExp;
          try {
            re = new RegExp(pattern);
          } catch (thrown) {
            return error(`grep: invalid regex: ${messageOf(thrown)}`);
          }
          const start = await searchStart("grep", root, args);
          if (!("real" in start)) return start;
          const included = include === undefined ? undefined : globMatcher(include);
          const matches: string[] = [];
          let skipped = 0;
          search: for await (const file of filesOf(start, limit)) {
            if (included !== undefined && !start.isFile && !included(file.rel)) continue;
            const size = (await stat(file.full).catch(() => undefined))?.size;
            if (size === undefined) continue;
            if (size > MAX_WHOLE_FILE_BYTES) {
              skipped++;
              continue;
            }
            const raw = await readWhole(root, file.full, limit.signal).catch(() => undefined);
            if (raw === undefined || looksBinary(raw)) continue;
            const lines = raw.toString("utf8").split("\n");
            const shown = shownPath(start, file);
            for (let i = 0; i < lines.length; i++) {
              if (i % 1024 === 1023) limit.check();
              const line = lines[i] as string;
              if (!re.test(line)) continue;
              const text =
                line.length > MAX_MATCH_LINE_CHARS
                  ? `${line.slice(0, MAX_MATCH_LINE_CHARS)}…`
                  : line;
              matches.push(`${shown}:${i + 1}:${text}`);
              if (matches.length >= max) break search;
            }
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
