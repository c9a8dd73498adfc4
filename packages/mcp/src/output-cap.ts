// Cutting a server's text to a length, saying so. Callers cut text that is already scrubbed: a
// cut through a secret would leave a fragment the Scrubber no longer recognises.

/** The first `max` characters of `text`, never ending between the halves of a surrogate pair. */
export function head(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** A call's output cut to `maxChars`, with a note saying how long it was; `cut` says whether. */
export function capOutput(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  return {
    text: `${head(text, maxChars)}\n[cut: the result was ${text.length} characters, the limit is ${maxChars} (maxOutputChars)]`,
    cut: true,
  };
}
