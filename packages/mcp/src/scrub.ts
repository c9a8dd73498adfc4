// Keeping configured secrets out of everything a server says: a server received our header
// values (and a local one its env), so any text it sends back may echo them. The Scrubber lives
// in core (the MCP server package scrubs its tools' errors with it too).
export { MIN_SECRET_LENGTH, Scrubber } from "@toolnexus/core";

/** A literal `env` value of a local server counts as a secret from this length on. */
export const MIN_LITERAL_ENV_SECRET_LENGTH = 8;
