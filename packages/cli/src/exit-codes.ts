/**
 * The exit codes of the `toolnexus` command, for scripts:
 *
 * - `0` it did what was asked;
 * - `1` an unexpected error (a bug, or a store that lacks the operation);
 * - `2` a usage error: an unknown command or option, a missing or malformed value;
 * - `3` the run or request id is not in the store;
 * - `4` the store cannot be used: no such file, the server unreachable, credentials refused;
 * - `5` the store refused: an answer that does not match the request's schema or conflicts
 *   with the recorded one, a retry of a run that has not failed, a cancel of a finished run;
 * - `130` `runs follow` was interrupted (Ctrl-C).
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  store: 4,
  refused: 5,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
