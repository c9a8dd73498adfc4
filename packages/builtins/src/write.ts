import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { isRefusal, Root } from "./confine.js";
import { type Args, defineBuiltin, presentString, requiredString } from "./define.js";
import { refusalOf, statOf, writeConfined } from "./files.js";
import { limited } from "./limit.js";
import type { BuiltinToolOptions } from "./options.js";

/** `write`: creates or overwrites a file inside the root, creating its parent folders. */
export function writeTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  return defineBuiltin(
    {
      name: "write",
      description: "Write content to a file (create/overwrite), creating parent directories.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to write to" },
          content: { type: "string", description: "Content to write" },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("write", ctx, undefined, async (limit): Promise<ToolResult> => {
          const input = requiredString(args, "path");
          const content = presentString(args, "content");
          const resolved = await root.resolve("write", input);
          if (isRefusal(resolved)) return resolved.refused;
          const stats = await statOf(resolved.real);
          if (stats !== undefined && !stats.isFile()) {
            return error(`write: refused ${JSON.stringify(input)}: it is not a regular file`);
          }
          limit.check();
          try {
            await writeConfined(root, resolved.real, content, limit.signal);
          } catch (thrown) {
            return refusalOf(root, "write", input, thrown);
          }
          const bytes = Buffer.byteLength(content, "utf8");
          return ok(`Wrote ${bytes} bytes to ${input}`, { bytes });
        }),
    },
    options,
  );
}
