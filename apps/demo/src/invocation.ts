// How the person started the demo, so that every command it prints can be typed back as printed:
// `npx -y pnpm@12.4.2 demo …` for someone who followed the README without pnpm installed, `pnpm
// demo …` for someone who ran an installed pnpm.
import { readFileSync } from "node:fs";

/** The root package.json's `packageManager` (e.g. `pnpm@12.4.2`), the README's pinned pnpm. */
function pinnedPnpm(): string {
  try {
    const root = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ) as { packageManager?: unknown };
    if (typeof root.packageManager === "string" && root.packageManager.startsWith("pnpm@")) {
      return root.packageManager.split("+")[0]!;
    }
  } catch {
    // Fall through to the version the README names.
  }
  return "pnpm@12.4.2";
}

/**
 * The command that starts the demo, as the person typed it. Read from what pnpm tells the
 * scripts it runs: run as the `demo` script by a pnpm that npx fetched (`npm_execpath` in npx's
 * cache, or npx's `npm_command=exec` left in the environment), it is `npx -y pnpm@<version> demo`;
 * by an installed pnpm, `pnpm demo`. Started any other way (straight from node, in tests), it is
 * the README's command, which works from the repository root whether or not pnpm is installed.
 */
export function demoCommand(env: NodeJS.ProcessEnv = process.env): string {
  const agent = /^pnpm\/(\S+)/.exec(env.npm_config_user_agent ?? "");
  if (env.npm_lifecycle_event === "demo" && agent !== null) {
    const viaNpx = (env.npm_execpath ?? "").includes("_npx") || env.npm_command === "exec";
    return viaNpx ? `npx -y pnpm@${agent[1]} demo` : "pnpm demo";
  }
  return `npx -y ${pinnedPnpm()} demo`;
}
