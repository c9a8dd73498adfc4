// Glob patterns for glob's `pattern` and grep's `include`, matched against "/"-separated paths
// relative to the search folder. `*` is any run of characters but "/", `?` one such character,
// `**` any number of folders (`**/x` matches `x` too), `[abc]`/`[a-z]`/`[!a]` a class, `{a,b}`
// alternatives. Dotfiles match like any other name. A pattern without "/" is matched against the
// file's name alone (the contract ports' rule), so `*.ts` finds .ts files at every depth.
//
// The tools match with an automaton (glob-nfa.ts), in time linear in the path whatever the
// model writes; globToRegExp stays for hosts that want a RegExp of the same pattern.
import { GlobAutomaton } from "./glob-nfa.js";
import { parseGlob, regexSource } from "./glob-parse.js";

/**
 * Compiles a glob to an anchored RegExp over "/"-separated relative paths. It matches what
 * {@link matchGlob} matches, but a backtracking RegExp can take seconds on a glob with many
 * stars (`*a*a*a*a*a*a*b`): use matchGlob on patterns you do not control.
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${regexSource(parseGlob(glob))}$`, "s");
}

/** True when `rel` ("/"-separated) matches `glob` (basename only when the glob has no "/"). */
export function matchGlob(rel: string, glob: string): boolean {
  return globMatcher(glob)(rel);
}

/** A reusable matcher for one glob, linear in the length of the path. */
export function globMatcher(glob: string): (rel: string) => boolean {
  const automaton = new GlobAutomaton(parseGlob(glob));
  if (glob.includes("/")) return (rel) => automaton.test(rel);
  return (rel) => automaton.test(rel.slice(rel.lastIndexOf("/") + 1));
}
