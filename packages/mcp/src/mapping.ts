// Data in and out of MCP: a tools/call result as a ToolResult, an elicitation as a Request, an
// Answer as an elicitation result.
import type { Answer, Request, ToolResult } from "@toolnexus/core";
import { DEFAULT_MAX_OUTPUT_CHARS } from "./limits.js";
import { capOutput } from "./output-cap.js";
import { resultParts } from "./result-parts.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The parts of an MCP `CallToolResult` this package reads. */
export interface McpCallResult {
  content?: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * Maps an MCP `tools/call` result to a ToolResult, as the contract says: `isError` gives an
 * error result with the text parts joined; otherwise `structuredContent` (when present) is the
 * output as JSON, else the text parts joined with newlines. Images, audio, embedded resources and
 * resource links are kept in `metadata` (`images`, `audio`, `resources`, `resourceLinks`).
 * When the content has images or embedded resources, `parts` carries the text, images and
 * resources in order for models that take them (see result-parts.ts; `metadata.partsDropped`
 * counts blocks left out).
 *
 * The output is at most `maxChars` characters (default 1 000 000): a longer one is cut with a
 * note saying so and `metadata.truncated` is true; `structuredContent` whose JSON is longer is
 * not kept in `metadata` either. Scrub the result before, not after: a cut through a secret
 * leaves a fragment no scrubber recognises.
 */
export function toToolResult(
  result: McpCallResult,
  extra: Record<string, unknown> = {},
  maxChars: number = DEFAULT_MAX_OUTPUT_CHARS,
): ToolResult {
  const texts: string[] = [];
  const images: unknown[] = [];
  const audio: unknown[] = [];
  const resources: unknown[] = [];
  const resourceLinks: unknown[] = [];
  for (const part of Array.isArray(result.content) ? result.content : []) {
    if (!isObject(part)) continue;
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "image") images.push({ mimeType: part.mimeType, data: part.data });
    else if (part.type === "audio") audio.push({ mimeType: part.mimeType, data: part.data });
    else if (part.type === "resource") resources.push(part.resource);
    else if (part.type === "resource_link") {
      const { type: _type, ...link } = part;
      resourceLinks.push(link);
    }
  }
  const metadata: Record<string, unknown> = { ...extra };
  if (images.length > 0) metadata.images = images;
  if (audio.length > 0) metadata.audio = audio;
  if (resources.length > 0) metadata.resources = resources;
  if (resourceLinks.length > 0) metadata.resourceLinks = resourceLinks;
  const text = texts.join("\n");
  const { parts, dropped } = resultParts(Array.isArray(result.content) ? result.content : []);
  if (dropped > 0) metadata.partsDropped = dropped;
  const withParts = (out: ToolResult): ToolResult =>
    parts === undefined ? out : { ...out, parts };
  if (result.isError === true) {
    return withParts({ output: capped(text, maxChars, metadata), isError: true, metadata });
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const json = JSON.stringify(result.structuredContent);
    const output = capped(json, maxChars, metadata);
    if (output === json) metadata.structuredContent = result.structuredContent;
    return withParts({ output, isError: false, metadata });
  }
  return withParts({ output: capped(text, maxChars, metadata), isError: false, metadata });
}

/** `text` within `maxChars`; when it was cut, `metadata.truncated` says so. */
function capped(text: string, maxChars: number, metadata: Record<string, unknown>): string {
  const out = capOutput(text, maxChars);
  if (out.cut) metadata.truncated = true;
  return out.text;
}

/** An elicitation as the server sent it (form or URL mode). */
export interface Elicitation {
  mode?: string;
  message?: string;
  requestedSchema?: unknown;
  url?: string;
  elicitationId?: string;
}

/** What an MCP client answers an elicitation with. */
export type ElicitResult =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

function isUrl(elicitation: Elicitation): boolean {
  return (
    elicitation.mode === "url" || (elicitation.mode === undefined && elicitation.url !== undefined)
  );
}

/** The fields of a Request for one elicitation (form → `input`, URL → `authorization`). */
export function elicitationRequest(elicitation: Elicitation, server: string): Omit<Request, "id"> {
  const prompt = typeof elicitation.message === "string" ? elicitation.message : "";
  if (isUrl(elicitation)) {
    const request: Omit<Request, "id"> = {
      kind: "authorization",
      prompt: prompt || "Open the link to continue",
      data: { server },
    };
    if (typeof elicitation.url === "string") request.url = elicitation.url;
    return request;
  }
  const data: Record<string, unknown> = { server };
  if (elicitation.requestedSchema !== undefined) data.schema = elicitation.requestedSchema;
  return { kind: "input", prompt, data };
}

/**
 * The fields of one Request for several elicitations asked at once (an `input_required` result
 * with several input requests): kind `input`, the prompts on their own lines, and
 * `data.requests` holding each one under the server's key. Answer it with `data` keyed the same.
 */
export function combinedRequest(
  elicitations: Readonly<Record<string, Elicitation>>,
  server: string,
): Omit<Request, "id"> {
  const keys = Object.keys(elicitations);
  if (keys.length === 1) return elicitationRequest(elicitations[keys[0]!]!, server);
  const requests: Record<string, unknown> = {};
  const prompts: string[] = [];
  for (const key of keys) {
    const one = elicitationRequest(elicitations[key]!, server);
    const entry: Record<string, unknown> = { kind: one.kind, prompt: one.prompt };
    if (one.url !== undefined) entry.url = one.url;
    if (one.data?.schema !== undefined) entry.schema = one.data.schema;
    requests[key] = entry;
    prompts.push(one.url === undefined ? one.prompt : `${one.prompt} ${one.url}`);
  }
  return { kind: "input", prompt: prompts.join("\n"), data: { server, requests } };
}

/** Maps a not-ok Answer to MCP's refusal: `declined` → decline; cancelled or expired → cancel. */
function refusal(answer: Answer): ElicitResult {
  return answer.reason === "declined" ? { action: "decline" } : { action: "cancel" };
}

/**
 * Maps the human's Answer to the server's elicitation result: ok → `accept` (with `data` as the
 * content of a form), `declined` → `decline`, `cancelled` or `expired` → `cancel`.
 */
export function toElicitResult(answer: Answer, elicitation: Elicitation): ElicitResult {
  if (!answer.ok) return refusal(answer);
  if (isUrl(elicitation)) return { action: "accept" };
  return { action: "accept", content: answer.data ?? {} };
}

/**
 * The results for several elicitations answered together: each key's content is
 * `answer.data[key]`; a form key the answer leaves out is cancelled.
 */
export function toElicitResults(
  answer: Answer,
  elicitations: Readonly<Record<string, Elicitation>>,
): Record<string, ElicitResult> {
  const keys = Object.keys(elicitations);
  const out: Record<string, ElicitResult> = {};
  if (keys.length === 1) {
    out[keys[0]!] = toElicitResult(answer, elicitations[keys[0]!]!);
    return out;
  }
  for (const key of keys) {
    const elicitation = elicitations[key]!;
    if (!answer.ok) out[key] = refusal(answer);
    else if (isUrl(elicitation)) out[key] = { action: "accept" };
    else {
      const content = answer.data?.[key];
      out[key] = isObject(content) ? { action: "accept", content } : { action: "cancel" };
    }
  }
  return out;
}

/** A short fingerprint of an elicitation, to recognise it when a replayed call asks it again. */
export function elicitationKey(elicitation: Elicitation): string {
  return JSON.stringify([
    elicitation.mode ?? null,
    elicitation.message ?? null,
    elicitation.url ?? null,
    elicitation.requestedSchema ?? null,
  ]);
}
