import type { BuiltinsConfig, BuiltinToolOptions } from "@toolnexus/builtins";
import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import type { HttpToolOptions } from "@toolnexus/http";
import type { LoadSkillsOptions, Skill } from "@toolnexus/skills";
import type { AnthropicTool, GeminiTool, OpenAITool } from "./adapters.js";

/** The state of one MCP server: the contract's three, or whatever else an MCP source reports. */
export type McpServerStatus = "connected" | "failed" | "disabled" | (string & {});

/**
 * A loaded MCP source: what `@toolnexus/mcp` provides (any object of this shape works). The
 * toolkit reads `tools()` once when it is created, asks `status()` on every `mcpStatus()` call
 * and calls `close()` from `toolkit.close()`.
 */
export interface McpSource {
  /** The MCP tools, named `sanitize(server)_sanitize(tool)`, with `source: "mcp"`. */
  tools(): readonly Tool[] | Promise<readonly Tool[]>;
  /** Each configured server's state, by server name. */
  status(): Readonly<Record<string, McpServerStatus>>;
  /** Disconnects every server (and stops local server processes). */
  close(): Promise<void> | void;
}

/** What an MCP loader receives besides the config. */
export interface McpLoadOptions {
  /** The toolkit's `signal`: aborts the load. */
  signal?: AbortSignal;
}

/**
 * Loads an MCP config (a path to a config file or the parsed object) into an {@link McpSource};
 * `loadMcp` of `@toolnexus/mcp` has this shape.
 */
export type McpLoader = (
  config: string | Readonly<Record<string, unknown>>,
  options: McpLoadOptions,
) => McpSource | Promise<McpSource>;

/** Which list a tool of the toolkit came from. */
export type ToolOriginKind = "mcp" | "skill" | "builtin" | "extraTools" | "http";

/** Where one tool came from: its list, its position in that list, and its `source` label. */
export interface ToolOrigin {
  kind: ToolOriginKind;
  /** The position in its list: `extraTools[index]`, `http[index]`, `mcp.tools()[index]`… */
  index: number;
  /** The tool's `source` field (`"native"`, `"http"`, `"mcp"`, `"builtin"`, `"skill"`…). */
  source: string;
}

/**
 * Why a tool was left out for another of the same name:
 * - `"shadowed-builtin"`: a host tool (`extraTools` or `http`) replaces the built-in tool of
 *   that name, on purpose (a sandboxed `bash`, say). Not warned about by default.
 * - `"first-wins"`: two sources gave the same name and the earlier one in the order
 *   MCP → skill → built-in → host tools was kept. Warned about by default.
 */
export type ClashRule = "shadowed-builtin" | "first-wins";

/** One name clash: which tool was kept, which was dropped, by which rule. */
export interface ToolClash {
  /** The tool name both share. */
  name: string;
  /** The tool in the toolkit. */
  kept: ToolOrigin;
  /** The tool left out. */
  dropped: ToolOrigin;
  rule: ClashRule;
  /** One line for a human naming both tools and the winner. */
  message: string;
}

/** Options of {@link createToolkit}. Every source is optional; built-ins are on by default. */
export interface ToolkitOptions {
  /**
   * An MCP config: the path of a config file or the parsed object (top-level `mcpServers`,
   * `servers` or `mcp`). Loaded by the `mcp` loader, which it needs (`@toolnexus/mcp`). A parsed
   * object's top-level `builtins` key is the built-in toggle when `builtins` is not given.
   */
  mcpConfig?: string | Readonly<Record<string, unknown>>;
  /**
   * The MCP integration (from `@toolnexus/mcp`): a loader function, called with `mcpConfig`, or
   * an already loaded {@link McpSource} (then leave `mcpConfig` out).
   */
  mcp?: McpSource | McpLoader;
  /** Folders searched for `**\/SKILL.md`; given (even empty), the toolkit has the `skill` tool. */
  skillsDir?: string | readonly string[];
  /**
   * More skill options, passed to `loadSkills` of `@toolnexus/skills`: `skills` (data skills)
   * and `provider` (these also give the toolkit a `skill` tool), `filter`, `sampleLimit`,
   * `strict`, `onWarning` (defaults to this toolkit's `onWarning`).
   */
  skillOptions?: Omit<LoadSkillsOptions, "dirs" | "signal">;
  /**
   * Your own tools (native tools, agent tools, hand-written ones). They come last, after the
   * built-ins, but one named like a built-in replaces it. Two host tools with one name are an
   * error.
   */
  extraTools?: readonly Tool[];
  /** HTTP endpoints declared as tools (each passed to `httpTool`); host tools like `extraTools`. */
  http?: readonly HttpToolOptions[];
  /**
   * The built-in tools: on by default. `false`, `{ disabled: true }` or `{ enabled: false }`
   * turn the whole source off; `{ tools: { bash: false } }` drops single tools (unknown names
   * are ignored). The object also takes the tool options (`root`, `needsApproval`, caps…).
   */
  builtins?: boolean | BuiltinsConfig;
  /** Options of every built-in tool (`root`, `needsApproval`, caps…), under `builtins`' own. */
  builtinOptions?: BuiltinToolOptions;
  /** Tool names left out of the toolkit, whatever their source (the contract's drop-list). */
  disableTools?: readonly string[];
  /**
   * Called once per name clash while the toolkit is built (see {@link ToolClash}). When given,
   * the default warning for `"first-wins"` clashes is not written.
   */
  onClash?: (clash: ToolClash) => void;
  /**
   * Where warnings go (first-wins clashes without `onClash`, unknown `disableTools` names,
   * skill problems). Defaults to `console.warn` with a `[toolnexus] ` prefix.
   */
  onWarning?: (message: string) => void;
  /** Aborts the build (skill discovery and the MCP load); `createToolkit` rejects. */
  signal?: AbortSignal;
}

/** A combined tool set: one list for `createClient`, one router, three provider schemas. */
export interface Toolkit {
  /**
   * Every tool, deduplicated by name, in the contract's order: MCP tools, the `skill` tool,
   * the built-ins, then `extraTools` and `http` tools. A new array on each call.
   */
  tools(): Tool[];
  /** The tool of that name, or undefined. */
  get(name: string): Tool | undefined;
  /**
   * Runs the named tool with `args` (`{}` when left out) and `ctx`. An unknown name is the
   * result `{ output: "Unknown tool: <name>", isError: true }` (a name longer than 80
   * characters is quoted by its first 40, JSON-quoted, and its length); a tool that throws becomes an
   * error result with its message. Approval gates (`needsApproval`) are the client's job and
   * are not applied here.
   */
  execute(name: string, args?: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult>;
  /**
   * The skills catalog for the system prompt; `""` when the toolkit has no skill source or its
   * `skill` tool is not in `tools()` (disabled, or an MCP tool named `skill` won).
   */
  skillsPrompt(): string;
  /** Each MCP server's state by name; `{}` without MCP. */
  mcpStatus(): Record<string, McpServerStatus>;
  /** Closes the MCP source (once; later calls return the same promise). */
  close(): Promise<void>;
  /** `tools()` as OpenAI function tools. */
  toOpenAI(): OpenAITool[];
  /** `tools()` as Anthropic tools. */
  toAnthropic(): AnthropicTool[];
  /** `tools()` as Gemini's one-element tool array. */
  toGemini(): GeminiTool[];
  /** The skills loaded for the `skill` tool (after `skillOptions.filter`); `[]` without skills. */
  readonly skills: readonly Skill[];
  /** Every name clash found while building, in the order found. */
  readonly clashes: readonly ToolClash[];
}
