import type { Tool } from "@toolnexus/core";
import { applyPatchTool } from "./apply-patch.js";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import {
  BUILTIN_NAMES,
  type BuiltinName,
  type BuiltinsConfig,
  type BuiltinToolOptions,
} from "./options.js";
import { questionTool } from "./question.js";
import { readTool } from "./read.js";
import { memoryTodoStore } from "./todo-store.js";
import { todowriteTool } from "./todowrite.js";
import { webfetchTool } from "./webfetch.js";
import { writeTool } from "./write.js";

const FACTORIES: Record<BuiltinName, (options: BuiltinToolOptions) => Tool> = {
  bash: bashTool,
  read: readTool,
  write: writeTool,
  edit: editTool,
  grep: grepTool,
  glob: globTool,
  webfetch: webfetchTool,
  question: questionTool,
  apply_patch: applyPatchTool,
  todowrite: todowriteTool,
};

/**
 * Whether the built-in source is on for a `builtins` setting (the contract's precedence):
 * undefined → on; a boolean as is; an object is off when `disabled: true`, else off when
 * `enabled: false`, else on.
 */
export function builtinsEnabled(config?: boolean | BuiltinsConfig | null): boolean {
  if (config === undefined || config === null) return true;
  if (typeof config === "boolean") return config;
  if (config.disabled === true) return false;
  if (config.enabled === false) return false;
  return true;
}

/** True when the tool named `name` is on under `config` (the source on, the map not false). */
export function builtinEnabled(name: string, config?: boolean | BuiltinsConfig | null): boolean {
  if (!builtinsEnabled(config)) return false;
  if (!(BUILTIN_NAMES as readonly string[]).includes(name)) return false;
  const map = typeof config === "object" && config !== null ? config.tools : undefined;
  return map?.[name] !== false;
}

/**
 * The enabled built-in tools, in the contract's order (bash, read, write, edit, grep, glob,
 * webfetch, question, apply_patch, todowrite). `false`, `{ disabled: true }` or
 * `{ enabled: false }` give `[]`; `tools: { bash: false }` drops single tools (unknown names are
 * ignored); the other fields configure the tools (root, approvals, caps…).
 */
export function builtinTools(config?: boolean | BuiltinsConfig | null): Tool[] {
  if (!builtinsEnabled(config)) return [];
  const options: BuiltinsConfig = typeof config === "object" && config !== null ? config : {};
  // One todo store for the set, unless the host brought its own.
  const shared: BuiltinToolOptions = { ...options, todos: options.todos ?? memoryTodoStore() };
  return BUILTIN_NAMES.filter((name) => builtinEnabled(name, config)).map((name) =>
    FACTORIES[name](shared),
  );
}
