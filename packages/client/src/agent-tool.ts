// Sub-agents: a configured client as a tool another client calls. The child runs durably under
// a run id derived from the parent's call, so a parent that runs the call again (an answer, or
// a takeover after a crash) reattaches to the same child run instead of starting another.
import {
  type Answer,
  error,
  type JSONSchema,
  pending,
  type Request,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "@toolnexus/core";
import { EMIT } from "./call-signal.js";
import type { ResolvedConfig } from "./config.js";
import { recordAnswers, settleRun } from "./durable.js";
import type { ParentTraceInfo } from "./instrumentation.js";
import { configOf, startRun } from "./start.js";
import type { Client, RunEvent, RunResult } from "./types.js";

/** Options of {@link agentTool}. */
export interface AgentToolOptions {
  /** The tool's name, as the parent's model calls it. */
  name: string;
  /** What the agent does, written for the parent's model. */
  description: string;
  /**
   * JSON Schema of the tool's input. Default: `{ prompt: string }`, the child's prompt. With
   * your own schema, give `prompt` to turn the arguments into the child's prompt.
   */
  inputSchema?: JSONSchema;
  /** Builds the child's prompt from the model's arguments. Default: `args.prompt`. */
  prompt?: (args: Record<string, unknown>) => string;
  /** Default time budget for one call of the agent (its whole run), in ms. */
  timeoutMs?: number;
}

const PROMPT_SCHEMA: JSONSchema = {
  type: "object",
  properties: { prompt: { type: "string", description: "What the agent should do" } },
  required: ["prompt"],
  additionalProperties: false,
};

/**
 * Turns a configured client into a tool another client can call (a sub-agent). The model's
 * arguments become the child's prompt, the child's final text is the tool's output, and its
 * usage counts toward the parent's run.
 *
 * The child's tools see `ctx.agent` (the child's agent), the parent's `sessionId`, a `callId`
 * of their own and the parent's `extra` under the child's. The parent's signal and the call's
 * budget bound the whole child run. A question a child's tool asks escalates: the parent's
 * `waitFor` asks its human, or the parent halts durably, and the answer continues the child from
 * its own checkpoint. The escalated Request keeps the asking tool's `data` as it was; its
 * `route` says which agent asks (`route.agent`) and through which agent tools (`route.path`,
 * the outermost first).
 *
 * With an instrumentation, the child's runs are traced as the parent call's children (the
 * parent's `ctx.traceCarrier`, no context manager needed), and marked as a sub-agent's
 * (`RunTraceInfo.parent`), so a human's answer is measured once, where it was given.
 *
 * @example
 * const researcher = createClient({ model, tools: [search], agent: "researcher" });
 * const lead = createClient({
 *   model,
 *   tools: [agentTool(researcher, { name: "research", description: "Finds sources" })],
 * });
 */
export function agentTool(child: Client, options: AgentToolOptions): Tool {
  const config = configOf(child);
  const { name } = options;
  if (typeof name !== "string" || name === "" || typeof options.description !== "string") {
    throw new TypeError("agentTool: give the tool a name and a description");
  }
  const childAgent = config.agent ?? name;
  const toPrompt =
    options.prompt ??
    ((args: Record<string, unknown>) => {
      if (typeof args.prompt !== "string") {
        throw new TypeError(`${name}: the argument "prompt" must be a string`);
      }
      return args.prompt;
    });
  // An escalated request gets an id of its own (the child's, plus this tool's name), so a parent
  // and a child sharing one store never answer each other's request.
  const suffix = `:${name}`;

  const tool: Tool = {
    name,
    description: options.description,
    inputSchema: options.inputSchema ?? PROMPT_SCHEMA,
    source: "agent",
    // A declined or expired question is the child's to handle: it is passed down to it.
    handlesRefusals: true,
    // Each question a child's tool asks is a suspension of its own, however many the child asks.
    maxSuspensions: Number.POSITIVE_INFINITY,
    async execute(args, ctx) {
      const emit =
        ctx === undefined ? undefined : (ctx as { [EMIT]?: (e: RunEvent) => void })[EMIT];
      const sink =
        emit === undefined
          ? undefined
          : (event: RunEvent) =>
              emit({ type: "agent", agent: childAgent, callId: ctx?.callId ?? "", event });
      const runId =
        ctx?.runId !== undefined && ctx.callId !== undefined
          ? `${ctx.runId}/${ctx.callId}`
          : undefined;
      const traced = underParent(ctx);
      try {
        let result: RunResult;
        // Only an answer to the child's own (escalated) question goes to the child; an approval
        // of this call itself (needsApproval, a hook) starts the child as usual.
        const answer = ctx?.answer;
        if (ctx !== undefined && answer?.id.endsWith(suffix)) {
          result = await answered(traced, answer, runId, ctx, sink);
        } else {
          result = await started(traced, toPrompt(args), runId, ctx, sink);
        }
        return toToolResult(result, runId);
      } catch (thrown) {
        // The parent gave up on this call (cancelled, or out of time): so does the child, for
        // good, so no worker finishes it later behind the parent's back.
        if (ctx?.signal?.aborted && runId !== undefined) await abandon(runId, ctx.signal.reason);
        // A failed child run reaches the parent's model as an error result, never a throw.
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        return error(`agent ${childAgent} failed: ${message}`, { agent: childAgent });
      }
    },
  };
  if (options.timeoutMs !== undefined) tool.timeoutMs = options.timeoutMs;

  /**
   * The child's configuration for one call: its instrumentation (if any) told that each run it
   * traces works for this call of the parent, whose trace context it nests under.
   */
  function underParent(ctx: ToolContext | undefined): ResolvedConfig {
    const inner = config.instrumentation;
    if (inner === undefined) return config;
    let carrier: Record<string, string> | undefined;
    try {
      carrier = ctx?.traceCarrier?.();
    } catch {
      // A broken carrier only costs the nesting, never the call.
      carrier = undefined;
    }
    const parent: ParentTraceInfo =
      carrier === undefined ? { tool: name } : { tool: name, carrier };
    return {
      ...config,
      instrumentation: { startRun: (info) => inner.startRun({ ...info, parent }) },
    };
  }

  /** Ends the child run `failed`; a parent call that runs again can still continue it by id. */
  async function abandon(runId: string, reason: unknown): Promise<void> {
    try {
      const claimed = await config.runs.claim({
        owner: config.owner,
        leaseMs: config.leaseMs,
        runId,
      });
      if (claimed === undefined) return;
      const why = reason instanceof Error && reason.message ? `: ${reason.message}` : "";
      await config.runs.finish(claimed.lease, {
        state: "failed",
        error: {
          code: "cancelled",
          message: `the parent call was stopped${why}`,
          at: new Date().toISOString(),
        },
      });
    } catch {
      // Best effort: the run stays as it was, continuable by id.
    }
  }

  /**
   * The first execution; after a crash of the parent's worker, the same child run again.
   * `config` is the child's as traced for this call (`underParent`), shadowing the plain one.
   */
  async function started(
    config: ResolvedConfig,
    prompt: string,
    runId: string | undefined,
    ctx: ToolContext | undefined,
    sink: ((event: RunEvent) => void) | undefined,
  ): Promise<RunResult> {
    const extra = ctx?.extra === undefined ? config.extra : { ...ctx.extra, ...config.extra };
    const runOptions = {
      durable: true,
      ...(runId === undefined ? {} : { runId }),
      ...(ctx?.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
      ...(extra === undefined ? {} : { extra }),
      ...(ctx?.signal === undefined ? {} : { signal: ctx.signal }),
      // The parent's requester may not approve the sub-agent's calls either.
      ...(ctx?.requester === undefined ? {} : { requester: ctx.requester }),
    };
    // Started by an earlier attempt of this call (a takeover after a crash): reattach to it
    // rather than try a start the store refuses (and a trace records as a failure).
    if (runId !== undefined && (await config.runs.getRun(runId)) !== undefined) {
      return settleRun(config, runId, ctx?.signal, sink);
    }
    try {
      return await startRun(config, prompt, runOptions, sink === undefined ? {} : { sink });
    } catch (thrown) {
      // Started by a concurrent attempt between the check and the start: reattach to it.
      if (runId !== undefined && (thrown as { code?: unknown })?.code === "run_exists") {
        return settleRun(config, runId, ctx?.signal, sink);
      }
      throw thrown;
    }
  }

  /** The human answered the child's question: record it on the child's run and continue it. */
  async function answered(
    config: ResolvedConfig,
    answer: Answer,
    runId: string | undefined,
    ctx: ToolContext,
    sink: ((event: RunEvent) => void) | undefined,
  ): Promise<RunResult> {
    const id = answer.id.slice(0, -suffix.length);
    // Who answered, so the sub-agent's policies count distinct approvers as the parent's do.
    const childRun = await recordAnswers(config, [{ ...answer, id }], ctx.answeredBy);
    if (runId !== undefined && childRun !== runId) {
      throw new TypeError(
        `the answer belongs to run ${childRun}, not to this agent's run ${runId}`,
      );
    }
    return settleRun(config, childRun, ctx.signal, sink);
  }

  /** The child's outcome as the parent's tool result; its question as the parent's. */
  function toToolResult(result: RunResult, runId: string | undefined): ToolResult {
    const metadata: Record<string, unknown> = {
      agent: childAgent,
      turns: result.turns,
      usage: result.usage,
    };
    if (runId !== undefined) metadata.runId = runId;
    if (result.status === "done") return { output: result.text, isError: false, metadata };
    if (result.status === "incomplete") {
      return { output: `incomplete (${result.limit}): ${result.text}`, isError: true, metadata };
    }
    return escalate(result.pending);
  }

  /** The child's question as this call's: the tool's own data untouched, the way up in `route`. */
  function escalate(request: Request): ToolResult {
    const route = request.route ?? { agent: childAgent, path: [] };
    const init: Parameters<typeof pending>[0] = {
      id: `${request.id}${suffix}`,
      kind: request.kind,
      prompt: request.prompt,
      route: { agent: route.agent, path: [name, ...route.path] },
    };
    if (request.data !== undefined) init.data = request.data;
    if (request.url !== undefined) init.url = request.url;
    if (request.expiresAt !== undefined) init.expiresAt = request.expiresAt;
    return pending(init);
  }

  return tool;
}
