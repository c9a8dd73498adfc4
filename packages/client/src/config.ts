import {
  type ConversationStore,
  type Durability,
  type Model,
  type RunStore,
  randomId,
  type Tool,
  type ToolSpec,
} from "@toolnexus/core";
import { type ResolvedCompaction, resolveCompaction } from "./compaction.js";
import type { Instrumentation } from "./instrumentation.js";
import { memoryConversationStore, memoryRunStore } from "./memory-stores.js";
import { type ApprovalPolicy, checkPolicies } from "./policy.js";
import type { ClientOptions, Hooks, RunEvent, WaitFor } from "./types.js";

/** Client options checked once, with defaults applied and lookups prepared. */
export interface ResolvedConfig {
  model: Model;
  tools: ReadonlyMap<string, Tool>;
  specs: readonly ToolSpec[];
  agent: string | undefined;
  systemPrompt: string | undefined;
  maxTurns: number;
  maxConcurrentTools: number;
  maxToolCallsPerTurn: number;
  toolTimeoutMs: number | undefined;
  timeoutMs: number | undefined;
  waitTimeoutMs: number | undefined;
  waitFor: WaitFor | undefined;
  runs: RunStore;
  /** True when `runs` is the default in-memory store (nothing outlives the process). */
  defaultRuns: boolean;
  instrumentation: Instrumentation | undefined;
  /** Set for a run under a durable-execution engine (engine-run.ts): its steps go through it. */
  durability?: Durability;
  leaseMs: number;
  owner: string;
  conversations: ConversationStore;
  hooks: Hooks;
  /** Context compaction before each model call (compaction.ts); off when undefined. */
  compaction?: ResolvedCompaction;
  /** Approval policies, asked in order before each call (see policy.ts). */
  policies: readonly ApprovalPolicy[];
  extra: Record<string, unknown> | undefined;
  emit: (event: RunEvent) => void;
  /** True when `onEvent` is set: only then are events worth building. */
  listens: boolean;
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(
      `createClient: ${name} must be a positive number of milliseconds, got ${String(value)}`,
    );
  }
  return value;
}

/** Default of `maxConcurrentTools`: a turn's calls in flight at once. */
export const DEFAULT_MAX_CONCURRENT_TOOLS = 16;
/** Default of `maxToolCallsPerTurn`: calls of one turn that are run at all. */
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 128;

function count(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `createClient: ${name} must be a whole number of at least 1, got ${String(value)}`,
    );
  }
  return value;
}

function checkedInstrumentation(value: Instrumentation | undefined): Instrumentation | undefined {
  if (value === undefined) return undefined;
  if (typeof value?.startRun !== "function") {
    throw new TypeError(
      "createClient: `instrumentation` must have a startRun(info) method (see @toolnexus/otel)",
    );
  }
  return value;
}

// This process's part of every default owner, made once: random ids cost more than the rest
// of createClient.
let ownerBase: string | undefined;
let owners = 0;

/** Which process holds a lease: readable in an admin page, unique per client. */
function defaultOwner(): string {
  if (ownerBase === undefined) {
    const proc = (globalThis as { process?: { pid?: number } }).process;
    ownerBase = `pid-${proc?.pid ?? "?"}-${randomId("w").slice(2, 10)}`;
  }
  return `${ownerBase}-${(++owners).toString(36)}`;
}

export function resolveConfig(options: ClientOptions): ResolvedConfig {
  if (options === undefined || options === null || typeof options !== "object") {
    throw new TypeError(
      "createClient: pass an options object, e.g. createClient({ model, tools })",
    );
  }
  if ("suspensions" in options) {
    throw new TypeError(
      "createClient: `suspensions` was renamed `runs` (a RunStore: memoryRunStore() or sqliteStore(...)) when runs became durable",
    );
  }
  const { model } = options;
  if (model === undefined || typeof model.generate !== "function") {
    throw new TypeError(
      "createClient: `model` must be a Model (an adapter such as openai({ model }) or inProcessModel({ id, generate }))",
    );
  }
  const tools = new Map<string, Tool>();
  for (const tool of options.tools ?? []) {
    if (typeof tool?.execute !== "function" || typeof tool.name !== "string") {
      throw new TypeError(
        "createClient: every entry of `tools` must be a Tool (see nativeTool from @toolnexus/native)",
      );
    }
    if (tools.has(tool.name)) {
      throw new TypeError(
        `createClient: two tools are named "${tool.name}"; tool names must be unique`,
      );
    }
    tools.set(tool.name, tool);
  }
  const maxTurns = options.maxTurns ?? 10;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new TypeError(
      `createClient: maxTurns must be a whole number of at least 1, got ${String(maxTurns)}`,
    );
  }
  const onEvent = options.onEvent;
  let warned = false;
  const emit =
    onEvent === undefined
      ? () => {}
      : (event: RunEvent) => {
          try {
            onEvent(event);
          } catch (thrown) {
            // A host's listener must not break the run; say so once instead of failing silently.
            if (!warned) {
              warned = true;
              console.warn("toolnexus: onEvent threw and was ignored:", thrown);
            }
          }
        };
  return {
    model,
    tools,
    specs: [...tools.values()].map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    })),
    agent: options.agent,
    systemPrompt: options.systemPrompt,
    maxTurns,
    maxConcurrentTools: count(
      "maxConcurrentTools",
      options.maxConcurrentTools,
      DEFAULT_MAX_CONCURRENT_TOOLS,
    ),
    maxToolCallsPerTurn: count(
      "maxToolCallsPerTurn",
      options.maxToolCallsPerTurn,
      DEFAULT_MAX_TOOL_CALLS_PER_TURN,
    ),
    toolTimeoutMs: positive("toolTimeoutMs", options.toolTimeoutMs),
    timeoutMs: positive("timeoutMs", options.timeoutMs),
    waitTimeoutMs: positive("waitTimeoutMs", options.waitTimeoutMs),
    waitFor: options.waitFor,
    runs: options.runs ?? memoryRunStore(),
    defaultRuns: options.runs === undefined,
    instrumentation: checkedInstrumentation(options.instrumentation),
    leaseMs: positive("leaseMs", options.leaseMs) ?? 30_000,
    owner: options.owner ?? defaultOwner(),
    conversations: options.conversations ?? memoryConversationStore(),
    hooks: options.hooks ?? {},
    policies: checkPolicies(options.policies),
    compaction: resolveCompaction(options.compaction),
    extra: options.extra,
    emit,
    listens: onEvent !== undefined,
  };
}
