import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { isRefusal, Root } from "./confine.js";
import { type Args, defineBuiltin, optionalNumber, requiredString } from "./define.js";
import { looksBinary, openForRead, refusalOf, statOf } from "./files.js";
import { limited } from "./limit.js";
import { type BuiltinToolOptions, maxOutputBytes } from "./options.js";
import { truncationMarker, utf8Head } from "./output.js";

/**
 * `read`: a UTF-8 text file inside the root, whole or as the line window `offset` (1-based) /
 * `limit`. The file is streamed, so a window deep into a huge file costs no memory; output over
 * the cap ends at a whole line with a marker telling the model where to go on.
 */
export function readTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  const cap = maxOutputBytes(options);
  return defineBuiltin(
    {
      name: "read",
      description: "Read a UTF-8 text file. With offset/limit, return only that line window.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path to the file to read" },
          offset: { type: "number", description: "1-based line to start from" },
          limit: { type: "number", description: "Maximum number of lines to read" },
        },
        required: ["path"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("read", ctx, undefined, async (limit): Promise<ToolResult> => {
          const input = requiredString(args, "path");
          const offset = optionalNumber(args, "offset");
          const count = optionalNumber(args, "limit");
          const resolved = await root.resolve("read", input);
          if (isRefusal(resolved)) return resolved.refused;
          const stats = await statOf(resolved.real);
          if (stats === undefined) return error(`read: file not found: ${input}`);
          if (stats.isDirectory()) {
            return error(`read: ${input} is a folder, not a file (use glob to list it)`);
          }
          if (!stats.isFile()) {
            return error(`read: refused ${JSON.stringify(input)}: it is not a regular file`);
          }
          const first = offset === undefined ? 0 : Math.max(1, Math.trunc(offset)) - 1;
          const lines =
            count === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.trunc(count));
          let handle: FileHandle;
          try {
            handle = await openForRead(root, resolved.real);
          } catch (thrown) {
            return refusalOf(root, "read", input, thrown);
          }
          let window: Window;
          try {
            if (await startsBinary(handle)) {
              return error(`read: refused ${JSON.stringify(input)}: it looks like a binary file`);
            }
            window = await readWindow(handle, first, lines, cap, limit.signal);
          } finally {
            await handle.close();
          }
          if (!window.truncated) return ok(window.text);
          const next = window.cutLine ? window.lastLine : window.lastLine + 1;
          const detail = window.cutLine
            ? `line ${window.lastLine} is over the ${cap}-byte limit and was cut`
            : `the ${cap}-byte limit was reached after line ${window.lastLine}; read on with offset=${next}`;
          return ok(window.text + truncationMarker(detail), {
            truncated: true,
            lastLine: window.lastLine,
          });
        }),
    },
    options,
  );
}

async function startsBinary(handle: FileHandle): Promise<boolean> {
  const buf = Buffer.alloc(8_000);
  const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
  return looksBinary(buf.subarray(0, bytesRead));
}

interface Window {
  text: string;
  truncated: boolean;
  /** 1-based number of the last line in `text`. */
  lastLine: number;
  /** True when the last line could not fit whole and was cut. */
  cutLine: boolean;
}

/**
 * Lines `first`..`first + count - 1` (0-based) of the file joined with "\n", exactly as
 * `content.split("\n").slice(first, first + count).join("\n")` would give them, at most `cap`
 * bytes (whole lines, unless the first line alone is over the cap).
 */
function readWindow(
  handle: FileHandle,
  first: number,
  count: number,
  cap: number,
  signal: AbortSignal,
): Promise<Window> {
  return new Promise<Window>((resolve, reject) => {
    const stream = handle.createReadStream({
      start: 0,
      highWaterMark: 64 * 1024,
      autoClose: false,
    });
    const onAbort = () => stream.destroy(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const decoder = new StringDecoder("utf8");
    const parts: string[] = [];
    let bytes = 0;
    let line = 0; // 0-based index of the line being read
    let partial = "";
    let done = false;

    const finish = (window: Window) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      stream.destroy();
      resolve(window);
    };
    // Returns false once the window is full (or the cap reached).
    const take = (text: string): boolean => {
      const index = line++;
      if (index < first) return true;
      if (index >= first + count) {
        finish({ text: parts.join("\n"), truncated: false, lastLine: index, cutLine: false });
        return false;
      }
      const size = Buffer.byteLength(text, "utf8") + (parts.length > 0 ? 1 : 0);
      if (bytes + size > cap) {
        if (parts.length === 0) {
          parts.push(utf8Head(Buffer.from(text, "utf8"), cap));
          finish({ text: parts[0] ?? "", truncated: true, lastLine: index + 1, cutLine: true });
        } else {
          finish({ text: parts.join("\n"), truncated: true, lastLine: index, cutLine: false });
        }
        return false;
      }
      parts.push(text);
      bytes += size;
      return true;
    };
    const feed = (text: string) => {
      let start = 0;
      for (;;) {
        const newline = text.indexOf("\n", start);
        if (newline === -1) break;
        const piece = partial + text.slice(start, newline);
        partial = "";
        if (!take(piece)) return;
        start = newline + 1;
      }
      // Lines before the window are counted, not kept.
      partial = line < first ? "" : partial + text.slice(start);
      // A line that cannot fit is settled now, without holding all of it.
      if (line < first + count && partial.length > cap) take(partial);
    };
    stream.on("data", (chunk) => {
      if (!done) feed(decoder.write(chunk as Buffer));
    });
    stream.on("end", () => {
      if (done) return;
      partial += decoder.end();
      if (take(partial)) {
        finish({ text: parts.join("\n"), truncated: false, lastLine: line, cutLine: false });
      }
    });
    stream.on("error", (thrown) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      reject(thrown);
    });
  });
}
