// URL templates: `{name}` placeholders filled from the arguments without ever changing the
// template's structure (its origin, its path segments, its query keys).

/** Where a placeholder sits in the template; each part has its own rule for values. */
type Part = "authority" | "path" | "query" | "fragment";

interface Slot {
  name: string;
  part: Part;
  start: number;
  end: number;
}

/** A parsed URL template: its text and its placeholders, in order of appearance. */
export interface UrlTemplate {
  source: string;
  slots: readonly Slot[];
  /** Each placeholder name once, in order of first appearance. */
  names: readonly string[];
}

const PLACEHOLDER = /\{(\w+)\}/g;
/** A value that may stand in a host: letters, digits and inner hyphens (part of one label). */
const HOST_VALUE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** A path segment the URL parser would treat as `.` or `..` (it decodes `%2e`). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** Stands in for a placeholder when the template's own structure is computed. */
const marker = (index: number) => `tnslot${index}x`;
const MARKERS = /tnslot(\d+)x/g;

/** Index of the first of `chars` in `text` at or after `from`, or `text.length`. */
function indexOfAny(text: string, chars: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (chars.includes(text[index] as string)) return index;
  }
  return text.length;
}

/** Splits an absolute http(s) URL template into its parts and finds its placeholders. */
export function parseTemplate(source: string): UrlTemplate {
  const authorityStart = source.indexOf("//") + 2;
  // The URL parser treats a backslash like a slash in http(s) URLs.
  const pathStart = indexOfAny(source, "/\\?#", authorityStart);
  const queryStart = indexOfAny(source, "?#", pathStart);
  const fragmentStart = indexOfAny(source, "#", queryStart);
  const slots: Slot[] = [];
  for (const match of source.matchAll(PLACEHOLDER)) {
    const start = match.index;
    const part: Part =
      start < pathStart
        ? "authority"
        : start < queryStart
          ? "path"
          : start < fragmentStart
            ? "query"
            : "fragment";
    slots.push({ name: match[1] as string, part, start, end: start + match[0].length });
  }
  return { source, slots, names: [...new Set(slots.map((slot) => slot.name))] };
}

const where = (slot: Slot) => `argument "${slot.name}" for the URL placeholder {${slot.name}}`;

/** The text of one value for its part of the URL, or why it is refused. */
function encode(slot: Slot, value: unknown): { text: string } | { problem: string } {
  if (value === undefined || value === null) {
    return { problem: `missing argument "${slot.name}" for the URL placeholder {${slot.name}}` };
  }
  if (typeof value === "object" || typeof value === "function" || typeof value === "symbol") {
    return { problem: `${where(slot)} must be a string or number` };
  }
  const raw = String(value);
  if (slot.part === "authority") {
    // Encoding cannot make a value safe in a host: only a plain label fragment is accepted.
    return HOST_VALUE.test(raw)
      ? { text: raw.toLowerCase() }
      : {
          problem: `${where(slot)} is part of the host, so it must be letters, digits and inner hyphens (at most 63)`,
        };
  }
  if (slot.part === "path" && raw === "") {
    return { problem: `${where(slot)} must not be empty (it would change the URL's path)` };
  }
  // Throws URIError on a lone surrogate; the caller reports it.
  return { text: encodeURIComponent(raw) };
}

/**
 * Fills every placeholder (each occurrence of a name gets the same value). Values are
 * percent-encoded (`encodeURIComponent`); a value that would still change the URL's structure is
 * refused: one that makes a `.` or `..` path segment, an empty path value, or a host value that
 * is not a plain label. Returns the URL, or every problem found.
 */
export function fillTemplate(
  template: UrlTemplate,
  args: Readonly<Record<string, unknown>>,
): { url: string } | { problem: string } {
  const problems: string[] = [];
  const texts: string[] = [];
  for (const slot of template.slots) {
    const value = Object.hasOwn(args, slot.name) ? args[slot.name] : undefined;
    const encoded = encode(slot, value);
    if ("problem" in encoded) {
      if (!problems.includes(encoded.problem)) problems.push(encoded.problem);
      texts.push("");
    } else {
      texts.push(encoded.text);
    }
  }
  if (problems.length > 0) return { problem: problems.join("; ") };

  const url = join(template, texts);
  const skeleton = skeletonOf(template);
  const dots = dotSegmentProblem(skeleton, texts, template.slots);
  if (dots !== undefined) return { problem: dots };
  return sameStructure(url, skeleton, texts)
    ? { url }
    : { problem: "the arguments would change the structure of the URL template; nothing was sent" };
}

/** A path segment holding a placeholder must not end up as `.` or `..` (the parser drops them). */
function dotSegmentProblem(
  skeleton: string,
  texts: readonly string[],
  slots: readonly Slot[],
): string | undefined {
  const pathStart = indexOfAny(skeleton, "/\\?#", skeleton.indexOf("//") + 2);
  const path = skeleton.slice(pathStart, indexOfAny(skeleton, "?#", pathStart));
  for (const segment of path.split(/[/\\]/)) {
    const names: string[] = [];
    const filled = segment.replace(MARKERS, (_whole, index: string) => {
      names.push((slots[Number(index)] as Slot).name);
      return texts[Number(index)] as string;
    });
    if (names.length > 0 && DOT_SEGMENT.test(filled)) {
      const which = [...new Set(names)].map((name) => `"${name}"`).join(", ");
      return `argument ${which} for the URL makes the path segment "${filled}", which would change the URL's path; "." and ".." are refused`;
    }
  }
  return undefined;
}

/** The template with `texts[i]` in place of its i-th placeholder. */
function join(template: UrlTemplate, texts: readonly string[]): string {
  let out = "";
  let at = 0;
  template.slots.forEach((slot, index) => {
    out += template.source.slice(at, slot.start) + texts[index];
    at = slot.end;
  });
  return out + template.source.slice(at);
}

/** The template with a marker in place of each placeholder: its structure, parseable. */
const skeletonOf = (template: UrlTemplate) =>
  join(
    template,
    template.slots.map((_slot, index) => marker(index)),
  );

/** Throws a TypeError when the template, placeholders standing in, is not a valid URL. */
export function checkTemplate(template: UrlTemplate): void {
  new URL(skeletonOf(template));
}

/**
 * A backstop: the parsed URL must have the template's origin and path with the values in place,
 * exactly (no segment removed, split or merged by the URL parser).
 */
function sameStructure(url: string, skeleton: string, texts: readonly string[]): boolean {
  let parsed: URL;
  let shape: URL;
  try {
    parsed = new URL(url);
    shape = new URL(skeleton);
  } catch {
    return false;
  }
  const put = (text: string) =>
    text.replace(MARKERS, (_whole, index) => texts[Number(index)] ?? "");
  return (
    parsed.protocol === shape.protocol &&
    parsed.host === put(shape.host) &&
    parsed.pathname === put(shape.pathname) &&
    // Values are encoded, so they cannot add a pair; the parser re-encodes `'` in a query, so
    // the pairs are counted rather than the text compared.
    [...parsed.searchParams].length === [...shape.searchParams].length
  );
}
