import type { Tool } from "@toolnexus/core";
import type { TodoStore } from "./todo-store.js";

/** The ten built-in tool names, in the contract's order. */
export const BUILTIN_NAMES = [
  "bash",
  "read",
  "write",
  "edit",
  "grep",
  "glob",
  "webfetch",
  "question",
  "apply_patch",
  "todowrite",
] as const;

/** One of the ten built-in tool names. */
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** What `Tool.needsApproval` accepts: a flag or a rule of the call's arguments and context. */
export type ApprovalRule = NonNullable<Tool["needsApproval"]>;

/** The tools that ask a human before they run unless told otherwise. */
export const APPROVAL_BY_DEFAULT: readonly BuiltinName[] = ["bash", "write", "edit", "apply_patch"];

/** Output cap of every built-in, in bytes of UTF-8, unless `maxOutputBytes` says otherwise. */
export const DEFAULT_MAX_OUTPUT_BYTES = 50 * 1024;

/** How long `bash` waits between SIGTERM and SIGKILL, unless `killGraceMs` says otherwise. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

/** How much of a response body `webfetch` reads, unless `maxFetchBytes` says otherwise. */
export const DEFAULT_MAX_FETCH_BYTES = 5 * 1024 * 1024;

/** Options shared by every built-in tool factory. */
export interface BuiltinToolOptions {
  /**
   * The folder the file tools (read, write, edit, grep, glob, apply_patch) are confined to, and
   * bash's default and only allowed `workdir`. Relative paths resolve against it. Default: the
   * process's working directory when the tool is created.
   */
  root?: string;
  /**
   * Which tools ask a human (a `kind: "approval"` Request) before they run. Default: bash,
   * write, edit and apply_patch. `false` turns every gate off, `true` keeps the default, and an
   * object overrides tools by name on top of the default (`{ bash: false, read: true }`); a
   * value can be a rule `(args, ctx) => boolean`.
   */
  needsApproval?: boolean | Partial<Record<BuiltinName, boolean | ApprovalRule>>;
  /**
   * File tools: open regular files that have more than one hard link (default `false`: refused,
   * since a hard link inside the root can be a file from outside it). pnpm's `node_modules` is
   * made of hard links, so set it when the model must read those.
   */
  allowHardLinks?: boolean;
  /** Largest output a tool returns, in UTF-8 bytes; longer output is cut with a marker. */
  maxOutputBytes?: number;
  /** bash: milliseconds between SIGTERM and SIGKILL when a command is stopped (2000). */
  killGraceMs?: number;
  /** bash: the shell that runs the command with `-c` (default `/bin/bash`, else `/bin/sh`). */
  shell?: string;
  /**
   * bash: the command's environment, used exactly as given (plus `TOOLNEXUS_BASH_CALL`).
   * Default: only the host variables of `BASH_INHERITED_ENV` (PATH, HOME, USER, locale, TERM,
   * TMPDIR, TZ…), so API keys and tokens in `process.env` never reach the command, its output
   * or the model. `env: process.env` gives the command the whole host environment;
   * `{ ...process.env, X: "1" }` or `{ PATH: process.env.PATH, X: "1" }` anything between.
   */
  env?: Record<string, string | undefined>;
  /** webfetch: the most bytes read from a response body (5 MiB); the rest is not downloaded. */
  maxFetchBytes?: number;
  /**
   * webfetch: hosts (names or IP literals, as written in the URL: `"localhost"`,
   * `"127.0.0.1"`, `"[::1]"`, `"wiki.internal"`) that may be on a loopback, private or
   * link-local address. Every other host is refused when it is, or resolves to, such an
   * address. A redirect to another host is checked against this list again.
   */
  allowHosts?: readonly string[];
  /** webfetch: `true` turns the private-network refusal off for every host (default `false`). */
  allowPrivateNetworks?: boolean;
  /** todowrite: where each session's todo list is kept (default: in memory, per factory). */
  todos?: TodoStore;
}

/**
 * The `builtins` configuration of the contract plus the tool options: `enabled: false` or
 * `disabled: true` turns the whole source off (`disabled` wins), `tools` switches single tools
 * off (`{ bash: false }`) on the all-on baseline.
 */
export interface BuiltinsConfig extends BuiltinToolOptions {
  enabled?: boolean;
  disabled?: boolean;
  /** Name → on/off on the all-on baseline; unknown names are ignored. */
  tools?: Partial<Record<string, boolean>>;
}

/** The approval rule of one tool under these options, or undefined for none. */
export function approvalRule(
  name: BuiltinName,
  options: BuiltinToolOptions,
): boolean | ApprovalRule | undefined {
  const setting = options.needsApproval;
  if (setting === false) return undefined;
  const byDefault = APPROVAL_BY_DEFAULT.includes(name);
  if (setting === undefined || setting === true) return byDefault ? true : undefined;
  const override = setting[name];
  if (override !== undefined) return override === false ? undefined : override;
  return byDefault ? true : undefined;
}

export function maxOutputBytes(options: BuiltinToolOptions): number {
  return positiveOption(options.maxOutputBytes, "maxOutputBytes") ?? DEFAULT_MAX_OUTPUT_BYTES;
}

export function positiveOption(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`@toolnexus/builtins: ${name} must be a positive number, got ${value}`);
  }
  return Math.floor(value);
}
