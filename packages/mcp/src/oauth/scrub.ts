// A server that holds a token may echo it back (in a result, an error, a question): the tokens
// this process holds for it are scrubbed like the configured secrets, whatever they are by now
// (refreshes change them).
import { Scrubber } from "@toolnexus/core";

/** The load's scrubber plus the tokens `live()` names at the moment of each scrub. */
export class TokenScrubber extends Scrubber {
  constructor(
    private readonly base: Scrubber,
    private readonly live: () => readonly string[],
  ) {
    super([]);
  }

  override get empty(): boolean {
    return this.base.empty && this.live().length === 0;
  }

  override text(text: string): string {
    return new Scrubber(this.live()).text(this.base.text(text));
  }

  override deep<T>(value: T): T {
    return new Scrubber(this.live()).deep(this.base.deep(value));
  }
}
