// An MCP result's content as ToolResult.parts: text, images and embedded resources in the
// server's order, each checked and capped by core's `checkParts`. A part that fails (an image
// type models do not take, data that is not base64, over a cap) is left out and counted.
import { type ContentPart, checkParts, MAX_PARTS, MAX_PARTS_BYTES } from "@toolnexus/core";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A content block as a part, or undefined for one that has none (audio, a resource link). */
function asPart(block: Record<string, unknown>): unknown {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return { type: "image", mimeType: block.mimeType, data: block.data };
  if (block.type === "resource" && isObject(block.resource)) {
    const { uri, mimeType, text } = block.resource;
    const part: Record<string, unknown> = { type: "resource", uri };
    if (typeof mimeType === "string") part.mimeType = mimeType;
    // A binary resource (`blob`) is named, not carried: models take no arbitrary bytes.
    if (typeof text === "string") part.text = text;
    return part;
  }
  return undefined;
}

/**
 * The parts of `content`, and how many blocks were left out. No parts when the content has
 * nothing beyond text (the output already holds it).
 */
export function resultParts(content: readonly unknown[]): {
  parts?: ContentPart[];
  dropped: number;
} {
  const parts: ContentPart[] = [];
  let dropped = 0;
  let size = 0;
  for (const block of content) {
    if (!isObject(block)) continue;
    const candidate = asPart(block);
    if (candidate === undefined) continue;
    try {
      const [part] = checkParts([candidate]);
      const bytes = JSON.stringify(part).length;
      if (parts.length >= MAX_PARTS || size + bytes > MAX_PARTS_BYTES) {
        dropped++;
        continue;
      }
      parts.push(part!);
      size += bytes;
    } catch {
      dropped++;
    }
  }
  if (!parts.some((part) => part.type !== "text")) return { dropped };
  return { parts, dropped };
}
