import type {
  Answer,
  AnswerOptions,
  AnswerReceipt,
  AssistantMessage,
  CancelReceipt,
  CancelRequest,
  ConversationStore,
  DueTimer,
  Durability,
  FollowOptions,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  RecordedRunEvent,
  Request,
  RunInfo,
  RunResult,
  RunStore,
  Tool,
  ToolCall,
  ToolCallRecord,
  ToolContext,
  ToolResult,
  Usage,
} from "@toolnexus/core";
import type { CompactionOptions, CompactionSizes } from "./compaction.js";
import type { Instrumentation } from "./instrumentation.js";
import type { ApprovalPolicy } from "./policy.js";

export type {
  DoneResult,
  IncompleteResult,
  PendingResult,
  RunResult,
  ToolCallRecord,
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
  /**
   * Tool calls of one run executing at the same time; the others of a turn wait for a free
   * slot. Default 16. Per run: a sub-agent's run has its own (its client's) limit.
   */
  maxConcurrentTools?: number;
  /**
   * Tool calls of one model turn that are run. The calls past it are not run: each gets an
   * error result the model reads, naming the limit, and the run goes on. Default 128.
   */
  maxToolCallsPerTurn?: number;
  /** Budget for every tool call, in ms (a tool's own `timeoutMs` may make it smaller). */
  toolTimeoutMs?: number;
  /** Budget for the run's own work (model calls and tools, not human waits), in ms. */
  timeoutMs?: number;
  /** Limit on a human's wait for one suspension, in ms; past it the answer is `expired`. */
  waitTimeoutMs?: number;
  /** Resolve suspensions in-process. Without it, a suspension halts the run durably. */
  waitFor?: WaitFor;
  /**
   * Where durable runs live: halted runs, recorded answers, leases, the journal, results.
   * Default: in memory (lost when the process exits); `@toolnexus/store-sqlite` keeps them in a
   * file any process on the machine can share.
   */
  runs?: RunStore;
  /**
   * How long a worker's hold on a durable run lasts without renewal, in ms (renewed every third
   * of it while the run works). After a crash, the run is taken over once it runs out. Default 30000.
   */
  leaseMs?: number;
  /** Who this client is when it holds leases (shown by `getRun` as `owner`). Default: host/pid/random. */
  owner?: string;
  /** Where `ask` keeps transcripts. Default: in memory. */
  conversations?: ConversationStore;
  hooks?: Hooks;
  /**
   * Approval policies, asked in order before every tool call: the first that decides (allow,
   * deny, or ask whom and how many) wins over the tool's own `needsApproval`; when none
   * decides, `needsApproval` applies. See {@link ApprovalPolicy}.
   */
  policies?: readonly ApprovalPolicy[];
  /**
   * Context compaction: before a model call, a transcript whose token estimate is over
   * `maxTokens` has its older turns summarized (or trimmed) and a recent tail kept, never
   * separating a tool call from its result. Off by default. See {@link CompactionOptions}.
   */
  compaction?: CompactionOptions;
  /** Host state every tool sees as `ctx.extra` (a run's own `extra` wins key by key). */
  extra?: Record<string, unknown>;
  /**
   * Tracing and metrics for every run (`otelInstrumentation()` from `@toolnexus/otel`, or your
   * own {@link Instrumentation}). Without one, the loop does no tracing work at all.
   */
  instrumentation?: Instrumentation;
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
  /**
   * Who starts the run: an identity your host authenticated. Approval policies see it, it is
   * kept in the checkpoint, and it may not answer the run's policy approval requests (nobody
   * approves their own request).
   */
  requester?: string;
  /**
   * Your own id for the run (a queue message's id, say), instead of a generated one. A durable
   * start with an id the store already has throws a `ToolnexusError` with code `run_exists`, so
   * a redelivered message never starts the same run twice.
   */
  runId?: string;
  /**
   * Make the run durable from its first turn: every model turn and tool result is written to
   * the `runs` store before the run moves on, under a lease; if this process dies, any worker
   * (`client.work`) takes the run over from its last step. Without it, a run becomes durable
   * when it halts for a human.
   */
  durable?: boolean;
  /**
   * Run on a durable-execution engine (`run` only): each model turn and tool call is one of the
   * engine's steps, and a halt waits for its answers through the engine, so `run` resolves only
   * when the run is done or incomplete. Needs `runId` (the engine's workflow key). An engine
   * adapter makes it (`@toolnexus/restate`); see core's `Durability`. A run store (`RunStore`)
   * is one too: the run lives in that store under leases, a halt waits on the store for answers
   * recorded by `answer` from any process, and `run` called again with the same `runId`
   * continues the stored run.
   */
  durability?: Durability | RunStore;
}

/** Options of {@link Client.resume} and {@link Client.continueRun}. */
export interface ResumeOptions {
  /** Stops the run here; it is given back `ready` for any worker, nothing lost. */
  signal?: AbortSignal;
  /**
   * `resume` only: who answered, an identity your host authenticated (a user id, an email),
   * kept with each answer (`RequestInfo.answeredBy`) and in its `answered` event. Never take it
   * from the model or from the answer's data.
   */
  by?: string;
}

/** Options of {@link Client.work}. */
export interface WorkOptions {
  /** Stops the worker: no new runs are claimed, and runs in progress are given back (`ready`). */
  signal: AbortSignal;
  /** Runs continued at once. Default 4. */
  concurrency?: number;
  /** How often to look for work when the store cannot notify (SQLite), in ms. Default 500. */
  pollMs?: number;
  /** A run that failed this many times in a row is ended `failed`. Default 5. */
  maxFailures?: number;
  /** Each run this worker continued to its next halt or its end. */
  onResult?: (result: RunResult) => void;
  /** Each run that stopped with an error; it was given back to be retried (or ended `failed`). */
  onError?: (error: unknown, runId: string) => void;
  /**
   * Each reminder or escalation of a waiting question that came due (`waitRules`), handed to
   * exactly one worker across every process sharing the store (`RunStore.claimDue`): notify
   * someone here. An escalation has already re-addressed the request (`request.data.to`).
   * Errors it throws go to `onError`; the timer counts as fired either way.
   */
  onDue?: (due: DueTimer) => void | Promise<void>;
  /** The worker's clock for due timers, epoch ms. Default `Date.now`; set it in tests. */
  now?: () => number;
}

/** What a worker did, when its signal stopped it. */
export interface WorkSummary {
  /** Runs claimed. */
  claimed: number;
  /** Runs that ended `done` or `incomplete`. */
  finished: number;
  /** Runs that halted again for answers. */
  halted: number;
  /** Runs that stopped with an error (and were given back). */
  errors: number;
  /** Runs ended `failed` after `maxFailures`. */
  failed: number;
  /** Runs stopped and ended `cancelled` because someone cancelled them (`client.cancel`). */
  cancelled: number;
  /** Reminders and escalations this worker fired (`onDue`). */
  due: number;
}

/** Everything that happens in a run, in order. `switch` on `type`. */
export type RunEvent =
  | { type: "text"; delta: string; turn: number }
  /** Reasoning the provider shows ({@link ModelResponse.reasoning}), streamed or whole. */
  | { type: "reasoning"; delta: string; turn: number }
  | { type: "message"; message: AssistantMessage; turn: number }
  | { type: "tool_call"; call: ToolCall; messageId: string; ctx: ToolContext }
  | { type: "pending"; call: ToolCall; request: Request }
  /** The transcript was compacted before this turn's model call (`compaction` option). */
  | {
      type: "compaction";
      turn: number;
      before: CompactionSizes;
      after: CompactionSizes;
      /** How many messages the summary replaced. */
      summarized: number;
    }
  | {
      type: "tool_result";
      call: ToolCall;
      record: ToolCallRecord;
      isError: boolean;
      pending: boolean;
    }
  | { type: "usage"; usage: Usage; total: Usage }
  /**
   * A running tool reported progress (`ctx.progress`, or an MCP server's progress
   * notifications): `callId` is the call's id within the run (`ctx.callId`, that is
   * `callIdOf(call)`: the provider's id unless it repeated an earlier turn's), `total` is
   * there when known.
   */
  | { type: "progress"; callId: string; progress: number; total?: number; message?: string }
  /** An event of a sub-agent's run (`agentTool`), marked with the agent and the parent's call. */
  | { type: "agent"; agent: string; callId: string; event: RunEvent }
  | { type: "done"; result: RunResult };

/** A configured loop. Create it once and reuse it for many runs. */
export interface Client {
  /** Run a prompt to completion, to a halt for a human, or to a limit. */
  run(prompt: string, options?: RunOptions): Promise<RunResult>;
  /** The same run as a stream of events; the last one is `done` with the RunResult. */
  stream(prompt: string, options?: RunOptions): AsyncIterable<RunEvent>;
  /**
   * Record one Answer or several (of the same halted run), then continue the run here and
   * return where it ends. When another worker holds the run, waits for it and returns its
   * outcome. Answers already recorded are not an error (the same answer twice is a no-op).
   */
  resume(answer: Answer | readonly Answer[], options?: ResumeOptions): Promise<RunResult>;
  /**
   * Record a human's answer without running anything (milliseconds; for a web handler). A
   * worker (`work`) or `continueRun` continues the run.
   */
  answer(answer: Answer, options?: AnswerOptions): Promise<AnswerReceipt>;
  /**
   * A durable run's recorded events, from `after` (default 0: the first) on: those recorded so
   * far, then each new one, in any process that shares the store; ends after `done`, `failed`
   * or `cancelled`, or when `signal` aborts. Following again from the last offset seen loses
   * and repeats nothing. `StoreUnsupportedError` for a store that keeps no events.
   */
  follow(runId: string, options?: FollowOptions): AsyncIterable<RecordedRunEvent>;
  /**
   * Cancels a durable run and its sub-agents' runs: a waiting or ready one ends `cancelled`
   * now (a later answer is an `AnswerConflictError` with reason `"cancelled"`); a running one
   * stops at its worker's next lease renewal (its tools see `ctx.signal` abort), and whoever
   * awaits it gets a `RunCancelledError` whose `cancel` says who and why. Cancelling a
   * cancelled or done run changes nothing. `StoreUnsupportedError` for a store without `cancel`.
   */
  cancel(runId: string, request?: CancelRequest): Promise<CancelReceipt>;
  /**
   * Continue the durable run `runId` here: one that is ready (answered, or given back after an
   * error), expired, failed, or whose worker died. Journaled calls never run again.
   */
  continueRun(runId: string, options?: ResumeOptions): Promise<RunResult>;
  /** A durable run's state, requests, last error and (when done) result. */
  getRun(runId: string): Promise<RunInfo | undefined>;
  /** Continue runs from the store until `signal` aborts (a worker). */
  work(options: WorkOptions): Promise<WorkSummary>;
  /** `run` that loads and saves the session's transcript, so the next `ask` continues it. */
  ask(prompt: string, options?: RunOptions): Promise<RunResult>;
  readonly runs: RunStore;
  readonly conversations: ConversationStore;
}
