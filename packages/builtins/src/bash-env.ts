// What a bash command sees of the host's environment by default: only what programs need to
// run (paths, user, locale, terminal, temp folder, time zone), never the host's API keys or
// tokens. The command's output goes to the model and into stored runs, so `printenv` must not
// print secrets. Same spirit as @toolnexus/mcp's allowlist for local servers.

/** The host variables a bash command inherits when the `env` option is not set. */
export const BASH_INHERITED_ENV: readonly string[] =
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
        "TMP",
        "TZ",
        "USERNAME",
        "USERPROFILE",
        "WINDIR",
      ]
    : [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_COLLATE",
        "LC_CTYPE",
        "LC_MESSAGES",
        "LC_MONETARY",
        "LC_NUMERIC",
        "LC_TIME",
        "TERM",
        "TMPDIR",
        "TZ",
      ];

/** The default environment of a bash command: the allowlisted variables of `host`. */
export function inheritedEnv(
  host: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BASH_INHERITED_ENV) {
    const value = host[name];
    // A value starting with "()" is an exported shell function, not a setting.
    if (typeof value === "string" && !value.startsWith("()")) env[name] = value;
  }
  return env;
}
