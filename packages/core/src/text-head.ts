// Cutting text for a message or a cap without leaving half a character: a UTF-16 surrogate pair
// cut in two is a lone surrogate, which JSON writes as an escape and UTF-8 cannot carry.

/** The first `max` UTF-16 units of `text`, one fewer when the last would be half a surrogate pair. */
export function textHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * How an error quotes text too long to repeat (a model's tool name, a client's id): its first
 * `chars` characters JSON-quoted (see {@link textHead}) and its length, e.g.
 * `"xxxx…xxxx"… (5242880 characters)`.
 */
export function quotedStart(text: string, chars = 40): string {
  return `${JSON.stringify(textHead(text, chars))}… (${text.length} characters)`;
}
