import { type BuiltinsConfig, builtinTools } from "@toolnexus/builtins";
import {
  error,
  quotedStart,
  type Tool,
  type ToolContext,
  ToolnexusError,
  thrownError,
} from "@toolnexus/core";
import { httpTool } from "@toolnexus/http";
import { type LoadSkillsOptions, loadSkills, type SkillSource } from "@toolnexus/skills";
import { toAnthropic, toGemini, toOpenAI } from "./adapters.js";
import { assemble, describeOrigin, type Entry, entriesOf } from "./assemble.js";
import type {
  McpLoader,
  McpServerStatus,
  McpSource,
  ToolClash,
  Toolkit,
  ToolkitOptions,
} from "./types.js";

/**
 * Thrown by {@link createToolkit} when the options cannot make a toolkit. `code` says which
 * problem: `"duplicate_tool"` (two host tools share a name), `"mcp_unavailable"` (`mcpConfig`
 * without an MCP loader), `"invalid_option"` (an option of the wrong shape).
 */
export class ToolkitError extends ToolnexusError {
  constructor(
    code: "duplicate_tool" | "mcp_unavailable" | "invalid_option",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

const defaultWarning = (message: string) => console.warn(`[toolnexus] ${message}`);

function isTool(value: unknown): value is Tool {
  if (typeof value !== "object" || value === null) return false;
  const tool = value as Partial<Tool>;
  return typeof tool.name === "string" && typeof tool.execute === "function";
}

function isMcpSource(value: unknown): value is McpSource {
  if (typeof value !== "object" || value === null) return false;
  const source = value as Partial<McpSource>;
  return (
    typeof source.tools === "function" &&
    typeof source.status === "function" &&
    typeof source.close === "function"
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool name up to this many characters is quoted whole by `Unknown tool: <name>`. */
const WHOLE_NAME_CHARS = 80;

/**
 * `Unknown tool: <name>`, bounded: the name whole up to 80 characters, else its first 40
 * JSON-quoted and its length (`Unknown tool: "xxxx…"… (5242880 characters)`).
 */
function unknownToolText(name: string): string {
  return `Unknown tool: ${name.length <= WHOLE_NAME_CHARS ? name : quotedStart(name)}`;
}

function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  return String(thrown);
}

/** The host's tools (`extraTools`, then `http`), checked: every entry a Tool, names unique. */
function hostTools(options: ToolkitOptions): Entry[] {
  const extras = options.extraTools ?? [];
  if (!Array.isArray(extras)) {
    throw new ToolkitError("invalid_option", "createToolkit: extraTools must be an array of Tools");
  }
  extras.forEach((tool, index) => {
    if (!isTool(tool)) {
      throw new ToolkitError(
        "invalid_option",
        `createToolkit: extraTools[${index}] is not a Tool (it needs a string name and an execute function); nativeTool from @toolnexus/native makes one from a function`,
      );
    }
  });
  const declarations = options.http ?? [];
  if (!Array.isArray(declarations)) {
    throw new ToolkitError(
      "invalid_option",
      "createToolkit: http must be an array of HTTP tool declarations",
    );
  }
  const http = declarations.map((declaration, index) => {
    try {
      return httpTool(declaration);
    } catch (thrown) {
      throw new ToolkitError(
        "invalid_option",
        `createToolkit: http[${index}] is not a valid HTTP tool: ${messageOf(thrown)}`,
        { cause: thrown },
      );
    }
  });
  const host = [
    ...entriesOf("extraTools", extras),
    ...entriesOf(
      "http",
      http,
      declarations.map((declaration) => declaration.name),
    ),
  ];
  const seen = new Map<string, Entry>();
  for (const entry of host) {
    const first = seen.get(entry.tool.name);
    if (first !== undefined) {
      throw new ToolkitError(
        "duplicate_tool",
        `createToolkit: two host tools are named "${entry.tool.name}": ${describeOrigin(first.origin, first.declaredAs)} and ${describeOrigin(entry.origin, entry.declaredAs)}; rename one (extraTools and http tool names must be unique)`,
      );
    }
    seen.set(entry.tool.name, entry);
  }
  return host;
}

/** The `builtins` setting: the option, else a parsed MCP config's `builtins` key, else on. */
function builtinsSetting(options: ToolkitOptions): boolean | BuiltinsConfig | undefined {
  if (options.builtins !== undefined) return options.builtins;
  const config = options.mcpConfig;
  if (isPlainObject(config) && "builtins" in config) {
    const value = config.builtins;
    if (value === undefined || value === null || typeof value === "boolean") {
      return value ?? undefined;
    }
    if (isPlainObject(value)) return value as BuiltinsConfig;
    throw new ToolkitError(
      "invalid_option",
      "createToolkit: the `builtins` key of mcpConfig must be a boolean or an object",
    );
  }
  return undefined;
}

function builtinSet(options: ToolkitOptions): Tool[] {
  const setting = builtinsSetting(options);
  if (setting !== undefined && typeof setting !== "boolean" && !isPlainObject(setting)) {
    throw new ToolkitError(
      "invalid_option",
      "createToolkit: builtins must be a boolean or an object ({ enabled, disabled, tools, root, … })",
    );
  }
  if (setting === false) return [];
  const config: BuiltinsConfig =
    setting === undefined || setting === true
      ? { ...options.builtinOptions }
      : { ...options.builtinOptions, ...setting };
  return builtinTools(config);
}

/** What to do about MCP: nothing, use a loaded source, or load `mcpConfig` with a loader. */
function mcpPlan(
  options: ToolkitOptions,
): { kind: "none" } | { kind: "source"; source: McpSource } | { kind: "load"; load: McpLoader } {
  const { mcp, mcpConfig } = options;
  if (mcp === undefined || mcp === null) {
    if (mcpConfig === undefined) return { kind: "none" };
    throw new ToolkitError(
      "mcp_unavailable",
      "createToolkit: mcpConfig needs the MCP integration, which is a separate package: install @toolnexus/mcp and pass its loader, e.g. createToolkit({ mcpConfig, mcp: loadMcp }) with loadMcp from @toolnexus/mcp",
    );
  }
  if (typeof mcp === "function") {
    if (mcpConfig === undefined) {
      throw new ToolkitError(
        "invalid_option",
        "createToolkit: mcp is a loader function but there is no mcpConfig to load; pass mcpConfig (a config file path or object), or pass an already loaded MCP source as mcp",
      );
    }
    return { kind: "load", load: mcp };
  }
  if (!isMcpSource(mcp)) {
    throw new ToolkitError(
      "invalid_option",
      "createToolkit: mcp must be an MCP loader function (loadMcp from @toolnexus/mcp) or a loaded MCP source with tools(), status() and close()",
    );
  }
  if (mcpConfig !== undefined) {
    throw new ToolkitError(
      "invalid_option",
      "createToolkit: mcp is an already loaded MCP source, so mcpConfig would not be loaded; pass the source alone, or mcpConfig with mcp set to the loader (loadMcp from @toolnexus/mcp)",
    );
  }
  return { kind: "source", source: mcp };
}

function skillsPlan(
  options: ToolkitOptions,
  warn: (message: string) => void,
): LoadSkillsOptions | undefined {
  const extra = options.skillOptions ?? {};
  if (
    options.skillsDir === undefined &&
    extra.skills === undefined &&
    extra.provider === undefined
  ) {
    return undefined;
  }
  const plan: LoadSkillsOptions = { onWarning: warn, ...extra };
  if (options.skillsDir !== undefined) plan.dirs = options.skillsDir;
  if (options.signal !== undefined) plan.signal = options.signal;
  return plan;
}

async function loadMcpTools(
  plan: ReturnType<typeof mcpPlan>,
  options: ToolkitOptions,
): Promise<{ source: McpSource | undefined; tools: readonly Tool[] }> {
  if (plan.kind === "none") return { source: undefined, tools: [] };
  let source: McpSource;
  if (plan.kind === "load") {
    const loaded = await plan.load(
      options.mcpConfig as string | Readonly<Record<string, unknown>>,
      options.signal === undefined ? {} : { signal: options.signal },
    );
    if (!isMcpSource(loaded)) {
      throw new ToolkitError(
        "invalid_option",
        "createToolkit: the mcp loader did not return an MCP source with tools(), status() and close()",
      );
    }
    source = loaded;
  } else {
    source = plan.source;
  }
  try {
    const tools = await source.tools();
    if (!Array.isArray(tools)) {
      throw new ToolkitError("invalid_option", "createToolkit: mcp.tools() must return an array");
    }
    tools.forEach((tool, index) => {
      if (!isTool(tool)) {
        throw new ToolkitError(
          "invalid_option",
          `createToolkit: mcp.tools()[${index}] is not a Tool (it needs a string name and an execute function)`,
        );
      }
    });
    return { source, tools };
  } catch (thrown) {
    // A source this call loaded is closed again; one the host passed in stays the host's.
    if (plan.kind === "load") await Promise.resolve(source.close()).catch(() => {});
    throw thrown;
  }
}

/**
 * Builds a {@link Toolkit} from every tool source at once: MCP servers (with `@toolnexus/mcp`),
 * skill folders, the built-in tools (on by default), HTTP endpoints and your own tools.
 *
 * The tool list follows the toolnexus contract (SPEC §4): a host tool (`extraTools` or `http`)
 * named like a built-in replaces it; then MCP → skill → built-in → host tools, deduplicated by
 * name with the first kept. Every clash is in `toolkit.clashes` and passed to `onClash`; the
 * first-wins ones are also warned about unless `onClash` is given. Two host tools with the same
 * name, `mcpConfig` without an MCP loader, or a malformed option reject with a
 * {@link ToolkitError}. Skill problems are warnings (or, with `skillOptions.strict`, a
 * `SkillsError`).
 */
export async function createToolkit(options: ToolkitOptions = {}): Promise<Toolkit> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ToolkitError("invalid_option", "createToolkit: pass an options object");
  }
  options.signal?.throwIfAborted();
  const warn = options.onWarning ?? defaultWarning;
  // Everything that can be checked without I/O first, so a bad option opens nothing.
  const host = hostTools(options);
  const builtins = entriesOf("builtin", builtinSet(options));
  const mcp = mcpPlan(options);
  const skillsOptions = skillsPlan(options, warn);
  const disabled = new Set(options.disableTools ?? []);

  const [skillsLoad, mcpLoad] = await Promise.allSettled([
    skillsOptions === undefined ? undefined : loadSkills(skillsOptions),
    loadMcpTools(mcp, options),
  ]);
  if (skillsLoad.status === "rejected" || mcpLoad.status === "rejected") {
    if (mcpLoad.status === "fulfilled" && mcp.kind === "load") {
      await Promise.resolve(mcpLoad.value.source?.close()).catch(() => {});
    }
    throw skillsLoad.status === "rejected"
      ? skillsLoad.reason
      : (mcpLoad as PromiseRejectedResult).reason;
  }
  const skills: SkillSource | undefined = skillsLoad.value;
  const mcpSource = mcpLoad.value.source;

  const { tools: byName, clashes } = assemble({
    mcp: entriesOf("mcp", mcpLoad.value.tools),
    skill: skills === undefined ? [] : entriesOf("skill", [skills.tool]),
    builtin: builtins,
    host,
    disabled,
  });
  const offered = new Set([
    ...mcpLoad.value.tools.map((tool) => tool.name),
    ...(skills === undefined ? [] : [skills.tool.name]),
    ...builtins.map((entry) => entry.tool.name),
    ...host.map((entry) => entry.tool.name),
  ]);
  for (const name of disabled) {
    if (!offered.has(name)) warn(`disableTools name "${name}" matched no tool`);
  }
  for (const found of clashes) {
    if (options.onClash !== undefined) options.onClash(found);
    else if (found.rule === "first-wins") warn(found.message);
  }

  const list = [...byName.values()].map((entry) => entry.tool);
  // The catalog tells the model to call `skill`: no catalog when that tool is not exposed
  // (disabled, or an MCP tool of the same name won).
  const prompt =
    skills !== undefined && byName.get(skills.tool.name)?.tool === skills.tool ? skills.prompt : "";
  const frozenClashes: readonly ToolClash[] = Object.freeze(clashes);
  const skillList = Object.freeze([...(skills?.skills ?? [])]);
  let closing: Promise<void> | undefined;

  return {
    tools: () => [...list],
    get: (name) => byName.get(name)?.tool,
    async execute(name: string, args?: Record<string, unknown>, ctx?: ToolContext) {
      const tool = byName.get(name)?.tool;
      if (tool === undefined) return error(unknownToolText(String(name)));
      try {
        return await tool.execute(args ?? {}, ctx);
      } catch (thrown) {
        return thrownError(thrown, messageOf(thrown));
      }
    },
    skillsPrompt: () => prompt,
    mcpStatus: (): Record<string, McpServerStatus> => ({ ...(mcpSource?.status() ?? {}) }),
    close() {
      closing ??= Promise.resolve()
        .then(() => mcpSource?.close())
        .then(() => {});
      return closing;
    },
    toOpenAI: () => toOpenAI(list),
    toAnthropic: () => toAnthropic(list),
    toGemini: () => toGemini(list),
    skills: skillList,
    clashes: frozenClashes,
  };
}
