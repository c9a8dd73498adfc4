import path from "node:path";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { Root } from "./confine.js";
import { type Args, defineBuiltin, requiredString } from "./define.js";
import { globMatcher } from "./glob-match.js";
import { limited } from "./limit.js";
import { type BuiltinToolOptions, maxOutputBytes } from "./options.js";
import { capText, truncationMarker } from "./output.js";
import { filesOf, searchLimit, searchStart } from "./search.js";

/**
 * `glob`: files under `path` (a folder inside the root; default the root) whose path relative
 * to it matches `pattern`. Output: the relative paths, "/"-separated, sorted, one per line, at
 * most `limit` (100).
 */
export function globTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  const cap = maxOutputBytes(options);
  return defineBuiltin(
    {
      name: "glob",
      description:
        "List files matching a glob under a directory. Output is newline-joined relative paths.",
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Glob pattern to match" },
          path: { type: "string", description: "Directory to search (default: process cwd)" },
          limit: { type: "number", description: "Maximum number of results (default 100)" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("glob", ctx, undefined, async (limit): Promise<ToolResult> => {
          const pattern = requiredString(args, "pattern");
          const max = searchLimit(args);
          if (path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..")) {
            return error(
              `glob: refused ${JSON.stringify(pattern)}: a pattern is relative to the search folder and cannot contain ".." or start with "/" (set path to search elsewhere inside the root)`,
            );
          }
          const start = await searchStart("glob", root, args);
          if (!("real" in start)) return start;
          if (start.isFile) {
            return error(`glob: path ${JSON.stringify(args.path)} is a file, not a folder`);
          }
          const matches = globMatcher(pattern);
          const found: string[] = [];
          for await (const file of filesOf(start, limit)) {
            if (!matches(file.rel)) continue;
            found.push(file.rel);
            if (found.length >= max) break;
          }
          found.sort();
          const capped = capText(found.join("\n"), cap);
          if (!capped.truncated) return ok(capped.text, { count: found.length });
          return ok(
            capped.text +
              truncationMarker(`over the ${cap}-byte limit; narrow the pattern or path`),
            { count: found.length, truncated: true },
          );
        }),
    },
    options,
  );
}
