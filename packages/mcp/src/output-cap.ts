// Cutting a server's text to a length, saying so. Callers cut text that is already scrubbed: a
// cut through a secret would leave a fragment the Scrubber no longer recognises.
import { textHead } from "@toolnexus/core";

/** A call's output cut to `maxChars`, with a note saying how long it was; `cut` says whether. */
export function capOutput(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  return {
    text: `${textHead(text, maxChars)}\n[cut: the result was ${text.length} characters, the limit is ${maxChars} (maxOutputChars)]`,
    cut: true,
  };
}
