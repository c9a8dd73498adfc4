import type { Readable } from "node:stream";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import {
  type Args,
  ArgumentError,
  defineBuiltin,
  messageOf,
  optionalPositive,
  optionalString,
  requiredString,
} from "./define.js";
import { htmlToMarkdown, htmlToText } from "./html.js";
import { guardedGet, type NetworkPolicy, RefusedUrlError } from "./http-get.js";
import { CallLimit } from "./limit.js";
import { normalHost } from "./netguard.js";
import {
  type BuiltinToolOptions,
  DEFAULT_MAX_FETCH_BYTES,
  maxOutputBytes,
  positiveOption,
} from "./options.js";
import { capText, truncationMarker } from "./output.js";

/** webfetch's own default budget when the model gives no `timeout` (the contract's 30 s). */
export const DEFAULT_WEBFETCH_TIMEOUT_S = 30;

const FORMATS = ["text", "markdown", "html"] as const;
type Format = (typeof FORMATS)[number];

/** Content types webfetch reads as text; anything else (images, archives…) is refused. */
function isTextual(contentType: string): boolean {
  if (contentType === "") return true;
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type === "application/xml" ||
    type === "application/xhtml+xml" ||
    type === "application/javascript" ||
    type === "application/x-javascript" ||
    type === "application/ecmascript" ||
    type.endsWith("+json") ||
    type.endsWith("+xml")
  );
}

function isHtml(contentType: string, body: string): boolean {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/html" || type === "application/xhtml+xml") return true;
  return type === "" && /^\s*<(!doctype html|html)\b/i.test(body);
}

/**
 * `webfetch`: HTTP GET of an http(s) URL (redirects followed), bounded by `timeout` (seconds,
 * default 30), `ctx.timeout` and `ctx.signal`. At most `maxFetchBytes` of the body are read. An
 * HTML page is returned as Markdown (default), plain text or the HTML itself; other text is
 * returned as it is. A non-2xx status is the error `HTTP <status>`. Loopback, private,
 * link-local and other non-public addresses are refused on every hop (see netguard.ts) unless
 * the host is in `allowHosts` or `allowPrivateNetworks` is set.
 */
export function webfetchTool(options: BuiltinToolOptions = {}): Tool {
  const cap = maxOutputBytes(options);
  const maxBytes =
    positiveOption(options.maxFetchBytes, "maxFetchBytes") ?? DEFAULT_MAX_FETCH_BYTES;
  const policy: NetworkPolicy = {
    allowPrivate: options.allowPrivateNetworks === true,
    allowHosts: new Set((options.allowHosts ?? []).map(normalHost)),
  };
  return defineBuiltin(
    {
      name: "webfetch",
      description: "HTTP GET a URL and return its body as text, markdown, or html.",
      inputSchema: {
        type: "object",
        properties: {
          url: { type: "string", description: "URL to fetch" },
          format: {
            type: "string",
            enum: ["text", "markdown", "html"],
            description: "Response format (default markdown)",
          },
          timeout: { type: "number", description: "Timeout in seconds (default 30)" },
        },
        required: ["url"],
        additionalProperties: false,
      },
      async run(args: Args, ctx: ToolContext): Promise<ToolResult> {
        const raw = requiredString(args, "url");
        const formatArg = optionalString(args, "format") ?? "markdown";
        if (!(FORMATS as readonly string[]).includes(formatArg)) {
          throw new ArgumentError(`format must be one of text, markdown, html`);
        }
        const format = formatArg as Format;
        const seconds = optionalPositive(args, "timeout") ?? DEFAULT_WEBFETCH_TIMEOUT_S;
        let url: URL;
        try {
          url = new URL(raw);
        } catch {
          return error(`webfetch: invalid URL: ${raw}`);
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          return error(
            `webfetch: refused ${JSON.stringify(raw)}: only http and https URLs are allowed`,
            { refused: true },
          );
        }
        const limit = new CallLimit(ctx, Math.round(seconds * 1000));
        let body: Readable | undefined;
        try {
          limit.check();
          const response = await guardedGet(
            url,
            {
              accept:
                format === "html"
                  ? "text/html,*/*;q=0.8"
                  : "text/markdown,text/html;q=0.9,text/plain;q=0.8,*/*;q=0.5",
              "user-agent": "toolnexus-webfetch",
            },
            policy,
            limit.signal,
          );
          body = response.body;
          if (response.status < 200 || response.status > 299) {
            return error(`HTTP ${response.status}`, { status: response.status });
          }
          const { contentType } = response;
          if (!isTextual(contentType)) {
            return error(
              `webfetch: refused ${response.url.href}: the response is ${contentType}, not text`,
              { status: response.status, refused: true },
            );
          }
          const text = await readCapped(response.body, maxBytes);
          const html = isHtml(contentType, text.text);
          const converted =
            !html || format === "html"
              ? text.text
              : format === "text"
                ? htmlToText(text.text)
                : htmlToMarkdown(text.text);
          const capped = capText(converted, cap);
          const metadata: Record<string, unknown> = { status: response.status, format };
          if (!capped.truncated && !text.truncated) return ok(capped.text, metadata);
          const detail = capped.truncated
            ? `over the ${cap}-byte limit`
            : `only the first ${maxBytes} bytes of the body were downloaded`;
          return ok(capped.text + truncationMarker(detail), { ...metadata, truncated: true });
        } catch (thrown) {
          if (limit.stopped) {
            const timedOut = limit.reason?.kind === "timeout";
            return error(`webfetch: ${limit.describe()}`, { timedOut, cancelled: !timedOut });
          }
          if (thrown instanceof RefusedUrlError) {
            return error(`webfetch: refused ${thrown.message}`, { refused: true });
          }
          const cause = (thrown as { cause?: unknown }).cause;
          const detail =
            cause instanceof Error ? `${messageOf(thrown)} (${cause.message})` : messageOf(thrown);
          return error(`webfetch: ${detail}`);
        } finally {
          body?.destroy();
          limit.dispose();
        }
      },
    },
    options,
  );
}

/** The body as UTF-8, reading at most `maxBytes` (the rest is not downloaded). */
async function readCapped(
  body: Readable,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let bytes = 0;
  for await (const chunk of body) {
    const value = chunk as Buffer;
    const room = maxBytes - bytes;
    if (value.length > room) {
      text += decoder.decode(value.subarray(0, room), { stream: true });
      body.destroy();
      return { text: text + decoder.decode(), truncated: true };
    }
    bytes += value.length;
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode(), truncated: false };
}
