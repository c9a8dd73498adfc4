export type {
  ArgsOf,
  NativeInput,
  NativeToolDefinition,
  NativeToolWithContext,
  NativeToolWithoutContext,
  RunWithoutCtx,
} from "./native-tool.js";
export { nativeTool } from "./native-tool.js";
export { toToolResult } from "./normalize.js";
export { InputSchemaError } from "./schema.js";
