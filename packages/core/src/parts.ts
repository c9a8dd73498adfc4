import { ToolnexusError } from "./errors.js";

/** A piece of text in a tool's result. */
export interface TextPart {
  type: "text";
  text: string;
}

/** An image in a tool's result: base64 data (no `data:` prefix) of one of {@link IMAGE_MIME_TYPES}. */
export interface ImagePart {
  type: "image";
  mimeType: string;
  data: string;
}

/** A resource (a file, a page) a tool's result embeds: its URI, and its text when it is text. */
export interface ResourcePart {
  type: "resource";
  uri: string;
  mimeType?: string;
  text?: string;
}

/**
 * Content beyond the text of a tool's result (`ToolResult.parts`): plain JSON, kept in the
 * transcript and in checkpoints. `output` stays the text every model reads; adapters whose
 * provider takes images in tool results send the image parts too, and resources as text.
 */
export type ContentPart = TextPart | ImagePart | ResourcePart;

/** The image types every adapter's provider accepts. */
export const IMAGE_MIME_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
];
/** Most parts one tool result may carry. */
export const MAX_PARTS = 8;
/** Most characters of one part's payload (an image's base64 data, a text, a resource's text). */
export const MAX_PART_BYTES = 5 * 1024 * 1024;
/** Most characters of all of one result's parts together. */
export const MAX_PARTS_BYTES = 10 * 1024 * 1024;

/**
 * Thrown by {@link checkParts} for parts that are malformed or over a cap. `index` is the first
 * bad part's position. The message names the problem, never the part's data.
 */
export class ContentPartError extends ToolnexusError {
  readonly index: number | undefined;
  constructor(message: string, index?: number) {
    super("content_part", index === undefined ? message : `part ${index}: ${message}`);
    this.index = index;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sized(text: string, index: number, what: string): number {
  if (text.length > MAX_PART_BYTES) {
    throw new ContentPartError(
      `${what} is ${text.length} characters, over ${MAX_PART_BYTES}`,
      index,
    );
  }
  return text.length;
}

function checkPart(value: unknown, index: number): { part: ContentPart; size: number } {
  if (!isObject(value)) throw new ContentPartError("is not an object", index);
  if (value.type === "text") {
    if (typeof value.text !== "string") throw new ContentPartError("has no text", index);
    return { part: { type: "text", text: value.text }, size: sized(value.text, index, "its text") };
  }
  if (value.type === "image") {
    const { mimeType, data } = value;
    if (typeof mimeType !== "string" || !IMAGE_MIME_TYPES.includes(mimeType)) {
      throw new ContentPartError(
        `its image type is not one of ${IMAGE_MIME_TYPES.join(", ")}: ${String(mimeType).slice(0, 40)}`,
        index,
      );
    }
    if (typeof data !== "string" || data === "") throw new ContentPartError("has no data", index);
    const size = sized(data, index, "its data");
    if (data.length % 4 !== 0 || !BASE64.test(data)) {
      throw new ContentPartError("its data is not base64", index);
    }
    return { part: { type: "image", mimeType, data }, size };
  }
  if (value.type === "resource") {
    if (typeof value.uri !== "string" || value.uri === "") {
      throw new ContentPartError("has no uri", index);
    }
    const part: ResourcePart = { type: "resource", uri: value.uri };
    let size = sized(value.uri, index, "its uri");
    if (typeof value.mimeType === "string") part.mimeType = value.mimeType;
    if (typeof value.text === "string") {
      part.text = value.text;
      size += sized(value.text, index, "its text");
    }
    return { part, size };
  }
  throw new ContentPartError(`has an unknown type: ${String(value.type).slice(0, 40)}`, index);
}

/**
 * Checks a tool result's `parts` and returns a plain copy (unknown keys left out). Throws
 * {@link ContentPartError} for a part that is malformed (an unknown type, an image type outside
 * {@link IMAGE_MIME_TYPES}, data that is not base64) or over a cap ({@link MAX_PARTS},
 * {@link MAX_PART_BYTES}, {@link MAX_PARTS_BYTES}).
 */
export function checkParts(parts: unknown): ContentPart[] {
  if (!Array.isArray(parts)) throw new ContentPartError("parts is not a list");
  if (parts.length > MAX_PARTS) {
    throw new ContentPartError(`${parts.length} parts, over ${MAX_PARTS}`);
  }
  let total = 0;
  return parts.map((value, index) => {
    const { part, size } = checkPart(value, index);
    total += size;
    if (total > MAX_PARTS_BYTES) {
      throw new ContentPartError(
        `the parts reach ${total} characters, over ${MAX_PARTS_BYTES}`,
        index,
      );
    }
    return part;
  });
}

/**
 * The parts a tool message carries for a result: its checked `parts`, or none. Parts that fail
 * {@link checkParts} are dropped and `note` says why (to append to the text the model reads).
 */
export function messageParts(parts: unknown): { parts?: ContentPart[]; note?: string } {
  if (parts === undefined) return {};
  try {
    const checked = checkParts(parts);
    return checked.length === 0 ? {} : { parts: checked };
  } catch (thrown) {
    const why = thrown instanceof ContentPartError ? thrown.message : "the parts are malformed";
    return { note: `[the tool's content parts were left out: ${why}]` };
  }
}

/**
 * The text of the parts a model that takes only text should read besides `output`: each
 * resource's URI and text, and a line per image saying one was left out. `""` when none.
 */
export function partsAsText(parts: readonly ContentPart[] | undefined, withImages = true): string {
  const lines: string[] = [];
  for (const part of Array.isArray(parts) ? parts : []) {
    if (typeof part !== "object" || part === null) continue;
    if (part.type === "resource") {
      const head = `[resource ${part.uri}${part.mimeType === undefined ? "" : ` (${part.mimeType})`}]`;
      lines.push(part.text === undefined ? head : `${head}\n${part.text}`);
    } else if (part.type === "image" && withImages) {
      lines.push(`[image (${part.mimeType}) left out: this model reads only text here]`);
    }
  }
  return lines.join("\n");
}

/**
 * The image parts of a message's parts that an adapter may send: of a type in
 * {@link IMAGE_MIME_TYPES}, with string data (a transcript read back is not trusted blindly).
 */
export function imageParts(parts: readonly ContentPart[] | undefined): ImagePart[] {
  return (Array.isArray(parts) ? parts : []).filter(
    (part): part is ImagePart =>
      part?.type === "image" &&
      IMAGE_MIME_TYPES.includes(part.mimeType) &&
      typeof part.data === "string",
  );
}

/**
 * The text a tool message gives a model: its `content`, then its resources as text, and (unless
 * `imagesSent`: the adapter sends them as images) a line per image left out.
 */
export function toolResultText(
  content: string,
  parts: readonly ContentPart[] | undefined,
  imagesSent: boolean,
): string {
  const extra = partsAsText(parts, !imagesSent);
  if (extra === "") return content;
  return content === "" ? extra : `${content}\n${extra}`;
}
