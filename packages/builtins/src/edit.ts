import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { isRefusal, Root } from "./confine.js";
import {
  type Args,
  defineBuiltin,
  optionalBoolean,
  presentString,
  requiredString,
} from "./define.js";
import {
  looksBinary,
  MAX_WHOLE_FILE_BYTES,
  readWhole,
  refusalOf,
  statOf,
  writeConfined,
} from "./files.js";
import { limited } from "./limit.js";
import type { BuiltinToolOptions } from "./options.js";

/** Non-overlapping occurrences of `needle` in `text`, left to right. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/**
 * `edit`: exact-string replacement in a file inside the root. `oldString` must occur exactly
 * once unless `replaceAll` is true. Replacement text is taken literally (`$&` stays `$&`).
 * Files over {@link MAX_WHOLE_FILE_BYTES} are refused, and so is an edit whose result would be
 * (its size is computed before the result is built; nothing is written then).
 */
export function editTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  return defineBuiltin(
    {
      name: "edit",
      description:
        "Exact-string replace in a file. Default replaces a single unique occurrence; replaceAll replaces all.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to the file to edit" },
          oldString: { type: "string", description: "Exact string to replace" },
          newString: { type: "string", description: "Replacement string" },
          replaceAll: { type: "boolean", description: "Replace all occurrences" },
        },
        required: ["path", "oldString", "newString"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("edit", ctx, undefined, async (limit): Promise<ToolResult> => {
          const input = requiredString(args, "path");
          const oldString = requiredString(args, "oldString");
          const newString = presentString(args, "newString");
          const replaceAll = optionalBoolean(args, "replaceAll") === true;
          const resolved = await root.resolve("edit", input);
          if (isRefusal(resolved)) return resolved.refused;
          const stats = await statOf(resolved.real);
          if (stats === undefined) return error(`edit: file not found: ${input}`);
          if (!stats.isFile()) {
            return error(`edit: refused ${JSON.stringify(input)}: it is not a regular file`);
          }
          if (stats.size > MAX_WHOLE_FILE_BYTES) {
            return error(
              `edit: refused ${JSON.stringify(input)}: it is larger than ${MAX_WHOLE_FILE_BYTES} bytes`,
            );
          }
          let raw: Buffer;
          try {
            raw = await readWhole(root, resolved.real, limit.signal);
          } catch (thrown) {
            return refusalOf(root, "edit", input, thrown);
          }
          if (looksBinary(raw)) {
            return error(`edit: refused ${JSON.stringify(input)}: it looks like a binary file`);
          }
          const content = raw.toString("utf8");
          const found = occurrences(content, oldString);
          if (found.length === 0) return error(`edit: oldString not found in ${input}`);
          if (!replaceAll && found.length > 1) {
            return error(
              `edit: oldString is not unique in ${input} (${found.length} occurrences); use replaceAll`,
            );
          }
          // Sized before it is built: a short oldString replaced everywhere by a longer
          // newString multiplies the file (a 4 MiB file became 421 MB from 201 bytes of
          // arguments). The result must fit the limit edit reads files under.
          const n = replaceAll ? found.length : 1;
          const resultBytes =
            Buffer.byteLength(content, "utf8") +
            n * (Buffer.byteLength(newString, "utf8") - Buffer.byteLength(oldString, "utf8"));
          if (resultBytes > MAX_WHOLE_FILE_BYTES) {
            return error(
              `edit: refused ${JSON.stringify(input)}: the edited file would be ${resultBytes} bytes (${n} replacement${n === 1 ? "" : "s"}), larger than the ${MAX_WHOLE_FILE_BYTES}-byte limit; nothing was changed`,
              { replacements: 0, resultBytes, limitBytes: MAX_WHOLE_FILE_BYTES },
            );
          }
          const next = replaceAll
            ? content.split(oldString).join(newString)
            : content.slice(0, found[0]) +
              newString +
              content.slice((found[0] ?? 0) + oldString.length);
          limit.check();
          try {
            await writeConfined(root, resolved.real, next, limit.signal);
          } catch (thrown) {
            return refusalOf(root, "edit", input, thrown);
          }
          return ok(`Edited ${input} (${n} replacement${n === 1 ? "" : "s"})`, {
            replacements: n,
          });
        }),
    },
    options,
  );
}
