// A stable fingerprint of a call (tool name + arguments) so a resume can refuse to run anything
// other than the call that suspended. Not a security hash: it detects edits and corruption.

function stable(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stable(record[key])}`).join(",")}}`;
}

/** 64-bit FNV-1a of the tool name and the canonical JSON of its arguments, as 16 hex digits. */
export function fingerprint(tool: string, args: Record<string, unknown>): string {
  const text = `${tool}\u0000${stable(args)}`;
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
