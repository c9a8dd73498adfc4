// Replaced by this package's version at build time (`define` in tsup.config.ts, and in
// vitest.config.ts for the tests).
declare const __PACKAGE_VERSION__: string | undefined;

/** This package's version, as sent in the `user-agent` header. */
export const VERSION: string =
  typeof __PACKAGE_VERSION__ === "string" ? __PACKAGE_VERSION__ : "0.0.0-dev";
