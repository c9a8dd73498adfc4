import type {
  Answer,
  AssistantMessage,
  ConversationStore,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  Request,
  SuspensionStore,
  Tool,
  ToolCall,
  ToolContext,
  ToolResult,
  Usage,
} from "@toolnexus/core";

/** What `waitFor` gets besides the Request: the call that raised it and the run's signal. */
export interface WaitForInfo {
  call: ToolCall;
  /** The tool that suspended (or, for `needsApproval`, the tool waiting to run). */
  tool: string;
  /** Aborts when the run is cancelled or the wait's own limit runs out. */
  signal: AbortSignal;
  sessionId: string | undefined;
  agent: string | undefined;
}

/** Resolves a suspension in-process: show the Request to a human and return their Answer. */
export type WaitFor = (request: Request, info: WaitForInfo) => Answer | Promise<Answer>;

/** What `beforeTool` sees. */
export interface BeforeToolInfo {
  call: ToolCall;
  tool: Tool;
  args: Record<string, unknown>;
  ctx: ToolContext;
}

/**
 * What `beforeTool` may return: nothing (run as is), `{ args }` (run with these), `{ result }`
 * (don't run; use this result), or a suspension result made with `pending()` (handled like the
 * tool's own suspension; on the re-execution `ctx.answer` is set, so check it in the hook).
 */
export type BeforeToolDecision =
  | undefined
  | { args: Record<string, unknown> }
  | { result: ToolResult }
  | ToolResult;

/** What `afterTool` sees: the call's final result (never a suspension). */
export interface AfterToolInfo {
  call: ToolCall;
  tool: Tool | undefined;
  args: Record<string, unknown>;
  result: ToolResult;
  ctx: ToolContext;
}

/** Hooks around each model call and each tool call. Each may be async. */
export interface Hooks {
  /** Inspect or rewrite what the model is about to see (return a new request to replace it). */
  beforeModel?(
    request: ModelRequest,
    info: { turn: number },
  ): ModelRequest | undefined | Promise<ModelRequest | undefined>;
  /** Inspect or replace the model's response. */
  afterModel?(
    response: ModelResponse,
    info: { turn: number },
  ): ModelResponse | undefined | Promise<ModelResponse | undefined>;
  /** Rewrite args, short-circuit with a result, or raise a suspension before a tool runs. */
  beforeTool?(info: BeforeToolInfo): BeforeToolDecision | Promise<BeforeToolDecision>;
  /** Replace a tool's final result (return a ToolResult) or just observe it. */
  afterTool?(info: AfterToolInfo): ToolResult | undefined | Promise<ToolResult | undefined>;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  model: Model;
  tools?: readonly Tool[];
  /** Who is calling; tools see it as `ctx.agent`. */
  agent?: string;
  /** Prepended as a system message (unless the history already starts with one). */
  systemPrompt?: string;
  /** Model calls per run before it stops with `status: "incomplete"`. Default 10. */
  maxTurns?: number;
  /** Budget for every tool call, in ms (a tool's own `timeoutMs` may make it smaller). */
  toolTimeoutMs?: number;
  /** Budget for the run's own work (model calls and tools, not human waits), in ms. */
  timeoutMs?: number;
  /** Limit on a human's wait for one suspension, in ms; past it the answer is `expired`. */
  waitTimeoutMs?: number;
  /** Resolve suspensions in-process. Without it, a suspension halts the run durably. */
  waitFor?: WaitFor;
  /** Where halted runs wait. Default: in memory (lost when the process exits). */
  suspensions?: SuspensionStore;
  /** Where `ask` keeps transcripts. Default: in memory. */
  conversations?: ConversationStore;
  hooks?: Hooks;
  /** Host state every tool sees as `ctx.extra` (a run's own `extra` wins key by key). */
  extra?: Record<string, unknown>;
  /** Receives every {@link RunEvent} of every run and resume. Errors it throws are ignored. */
  onEvent?: (event: RunEvent) => void;
}

/** Options of one run. */
export interface RunOptions {
  /** The conversation this run belongs to; tools see it as `ctx.sessionId`. */
  sessionId?: string;
  /** Earlier messages to continue from. */
  history?: readonly Message[];
  /** Cancels the run: in-flight tools see their signal abort and the run rejects. */
  signal?: AbortSignal;
  /** Run-level host state, merged over the client's `extra`. */
  extra?: Record<string, unknown>;
}

/** Options of {@link Client.resume}. */
export interface ResumeOptions {
  signal?: AbortSignal;
}

/** One tool call as the run saw it. `status: "pending"` marks a suspension, not an error. */
export interface ToolCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result: ToolResult;
  status: "ok" | "error" | "pending";
  /** True when the loop stopped the call at its budget. */
  timedOut: boolean;
  /** The tool's own working time, excluding any wait for a human. */
  durationMs: number;
}

interface RunResultBase {
  /** The final answer (done), the first pending prompt (pending), or the last text (incomplete). */
  text: string;
  /** The whole transcript, balanced: one tool message per tool call. */
  messages: Message[];
  /** Calls run by this run or resume, in the order they finished being recorded. */
  toolCalls: ToolCallRecord[];
  /** Model calls made so far in this run, resumes included. */
  turns: number;
  usage: Usage;
  /** The model's id. */
  model: string;
  runId: string;
  sessionId: string | undefined;
}

/** The model answered without asking for more tools. */
export interface DoneResult extends RunResultBase {
  status: "done";
}

/** The run halted for a human; resume it with `client.resume(answer)`. */
export interface PendingResult extends RunResultBase {
  status: "pending";
  /** The first suspended call's Request, in tool-call order. */
  pending: Request;
  /** Every Request the halted turn waits for. */
  pendings: Request[];
  /** The stored checkpoint's id. */
  checkpointId: string;
}

/** A limit stopped the run before the model answered. */
export interface IncompleteResult extends RunResultBase {
  status: "incomplete";
  limit: "maxTurns" | "timeout";
}

/** What `run`, `ask` and `resume` return; `switch` on `status`. */
export type RunResult = DoneResult | PendingResult | IncompleteResult;

/** Everything that happens in a run, in order. `switch` on `type`. */
export type RunEvent =
  | { type: "text"; delta: string; turn: number }
  | { type: "message"; message: AssistantMessage; turn: number }
  | { type: "tool_call"; call: ToolCall; messageId: string; ctx: ToolContext }
  | { type: "pending"; call: ToolCall; request: Request }
  | {
      type: "tool_result";
      call: ToolCall;
      record: ToolCallRecord;
      isError: boolean;
      pending: boolean;
    }
  | { type: "usage"; usage: Usage; total: Usage }
  | { type: "done"; result: RunResult };

/** A configured loop. Create it once and reuse it for many runs. */
export interface Client {
  /** Run a prompt to completion, to a halt for a human, or to a limit. */
  run(prompt: string, options?: RunOptions): Promise<RunResult>;
  /** The same run as a stream of events; the last one is `done` with the RunResult. */
  stream(prompt: string, options?: RunOptions): AsyncIterable<RunEvent>;
  /** Continue a halted run with one Answer or several (for calls of the same halted turn). */
  resume(answer: Answer | readonly Answer[], options?: ResumeOptions): Promise<RunResult>;
  /** `run` that loads and saves the session's transcript, so the next `ask` continues it. */
  ask(prompt: string, options?: RunOptions): Promise<RunResult>;
  readonly suspensions: SuspensionStore;
  readonly conversations: ConversationStore;
}
