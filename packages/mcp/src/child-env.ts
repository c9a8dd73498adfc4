// What a local server's process may see of the host's environment: by default only what a
// program needs to run (the MCP SDK's own allowlist), never the host's API keys.

/** The variables a local server inherits by default (the MCP SDK's `getDefaultEnvironment` list). */
export const INHERITED_ENV: readonly string[] =
  process.platform === "win32"
    ? [
        "APPDATA",
        "COMSPEC",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "PROGRAMW6432",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "WINDIR",
      ]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * Which host variables a local server inherits besides its own `env`: the default allowlist
 * (`undefined`), the allowlist plus these names (an array), or everything (`true`).
 */
export type InheritEnv = boolean | readonly string[] | undefined;

/** The environment of a local server's process: the inherited host variables, then its own. */
export function childEnv(
  host: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
  inherit: InheritEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (inherit === true) {
    for (const [key, value] of Object.entries(host))
      if (typeof value === "string") env[key] = value;
  } else {
    const names = [...INHERITED_ENV, ...(Array.isArray(inherit) ? inherit : [])];
    for (const name of names) {
      const value = host[name];
      // A value starting with "()" is an exported shell function, not a setting (as the SDK does).
      if (typeof value === "string" && !value.startsWith("()")) env[name] = value;
    }
  }
  return { ...env, ...own };
}
