// A small HTML to text / Markdown conversion for webfetch: enough structure for a model to read
// a page (headings, links, lists, code, emphasis), without a DOM. Not a full HTML parser.

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  copy: "©",
  reg: "®",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/** Decodes named (common ones) and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function dropInvisible(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!doctype[^>]*>/gi, "");
}

const BLOCK =
  /<\/?(p|div|section|article|header|footer|main|nav|aside|table|thead|tbody|tr|ul|ol|dl|dd|dt|blockquote|figure|figcaption|form|fieldset|hr|h[1-6]|pre|body|html)\b[^>]*>/gi;

function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Visible text of an HTML page, one block per paragraph. */
export function htmlToText(html: string): string {
  const text = dropInvisible(html)
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n")
    .replace(/<\/?(td|th)\b[^>]*>/gi, " ")
    .replace(BLOCK, "\n\n")
    .replace(/<[^>]+>/g, "");
  return tidy(decodeEntities(text));
}

/** The page as light Markdown: headings, links, lists, code blocks, emphasis. */
export function htmlToMarkdown(html: string): string {
  const blocks: string[] = [];
  // Code blocks keep their whitespace: set aside before anything is collapsed.
  let md = dropInvisible(html).replace(
    /<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi,
    (_whole, body: string) => {
      const code = decodeEntities(body.replace(/<[^>]+>/g, "")).replace(/^\n+|\n+$/g, "");
      blocks.push(`\n\n\`\`\`\n${code}\n\`\`\`\n\n`);
      return `\ue000${blocks.length - 1}\ue001`;
    },
  );
  md = md
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_w, level: string, body: string) => {
      const title = body
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim();
      return `\n\n${"#".repeat(Number(level))} ${title}\n\n`;
    })
    .replace(
      /<a\b[^>]*?href\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (
        _w,
        _q,
        d: string | undefined,
        s: string | undefined,
        b: string | undefined,
        body: string,
      ) => {
        const href = d ?? s ?? b ?? "";
        const label = body
          .replace(/<[^>]+>/g, "")
          .replace(/\s+/g, " ")
          .trim();
        if (!label) return "";
        return href && !href.startsWith("javascript:") ? `[${label}](${href})` : label;
      },
    )
    .replace(/<(strong|b)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi, (_w, _t, body: string) =>
      body.trim() ? `**${body.trim()}**` : "",
    )
    .replace(/<(em|i)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi, (_w, _t, body: string) =>
      body.trim() ? `_${body.trim()}_` : "",
    )
    .replace(/<code\b[^>]*>([\s\S]*?)<\/code\s*>/gi, (_w, body: string) => `\`${body}\``)
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<\/li\s*>/gi, "")
    .replace(/<\/?(td|th)\b[^>]*>/gi, " ")
    .replace(BLOCK, "\n\n")
    .replace(/<[^>]+>/g, "");
  md = tidy(decodeEntities(md));
  return md
    .replace(/\ue000(\d+)\ue001/g, (_w, index: string) => blocks[Number(index)] ?? "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
