// Output for people: aligned tables, short ages, and colours only when asked for (a terminal
// without NO_COLOR). Every cell is one line, capped, so a huge value never floods a terminal.

const CODES = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
  bold: 1,
} as const;

export type Colour = keyof typeof CODES;

/** Paints text for a terminal; a painter made with `enabled: false` returns text unchanged. */
export type Paint = (colour: Colour, text: string) => string;

export function painter(enabled: boolean): Paint {
  return enabled ? (colour, text) => `\u001b[${CODES[colour]}m${text}\u001b[0m` : (_, text) => text;
}

/** The colour of a run's or a request's state. */
export function stateColour(state: string): Colour {
  switch (state) {
    case "done":
    case "applied":
      return "green";
    case "failed":
      return "red";
    case "waiting":
      return "yellow";
    case "ready":
    case "answered":
      return "cyan";
    case "running":
      return "blue";
    case "expired":
      return "magenta";
    default:
      return "gray";
  }
}

/** One line of at most `max` characters: line breaks and tabs become spaces, the rest `…`. */
export function oneLine(text: string, max = 80): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes in stored text are shown, never obeyed
  const flat = text.replace(/[\r\n\t]+/g, " ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A cell: its text, and the colour to paint it (the width counts the text only). */
export interface Cell {
  text: string;
  colour?: Colour;
}

/** Rows under a header, each column as wide as its widest cell; the last column is not padded. */
export function table(
  header: readonly string[],
  rows: readonly (readonly (string | Cell)[])[],
  paint: Paint,
): string {
  const cells = rows.map((row) =>
    row.map((cell) => (typeof cell === "string" ? { text: cell } : cell)),
  );
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => row[i]?.text.length ?? 0)),
  );
  const line = (row: readonly Cell[]) =>
    row
      .map((cell, i) => {
        const padded = i === row.length - 1 ? cell.text : cell.text.padEnd(widths[i]!);
        return cell.colour === undefined ? padded : paint(cell.colour, padded);
      })
      .join("  ")
      .trimEnd();
  const head = line(header.map((title) => ({ text: title, colour: "bold" as const })));
  return `${[head, ...cells.map(line)].join("\n")}\n`;
}

/** `2026-12-05 08:40:12Z (3h ago)` for an ISO time, relative to `now`. */
export function when(iso: string | undefined, now: number, ago: (ms: number) => string): string {
  if (iso === undefined) return "-";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return oneLine(iso, 40);
  const shown = new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
  return ms <= now ? `${shown} (${ago(now - ms)} ago)` : `${shown} (in ${ago(ms - now)})`;
}
