export { applyPatchTool } from "./apply-patch.js";
export { bashTool, DEFAULT_BASH_TIMEOUT_MS } from "./bash.js";
export { BASH_INHERITED_ENV } from "./bash-env.js";
export { builtinEnabled, builtinsEnabled, builtinTools } from "./builtins.js";
export { editTool } from "./edit.js";
export { globTool } from "./glob.js";
export { globToRegExp, matchGlob } from "./glob-match.js";
export { DEFAULT_GREP_TIMEOUT_MS, grepTool } from "./grep.js";
export type {
  ApprovalRule,
  BuiltinName,
  BuiltinsConfig,
  BuiltinToolOptions,
} from "./options.js";
export {
  APPROVAL_BY_DEFAULT,
  BUILTIN_NAMES,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_FETCH_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
} from "./options.js";
export type { QuestionItem } from "./question.js";
export { questionTool, renderQuestionPrompt } from "./question.js";
export { readTool } from "./read.js";
export { DEFAULT_SEARCH_LIMIT } from "./search.js";
export type { TodoItem, TodoStore } from "./todo-store.js";
export { memoryTodoStore } from "./todo-store.js";
export { renderTodos, todowriteTool } from "./todowrite.js";
export { DEFAULT_WEBFETCH_TIMEOUT_S, webfetchTool } from "./webfetch.js";
export { writeTool } from "./write.js";
