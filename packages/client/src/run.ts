import {
  type Answer,
  type AssistantMessage,
  addUsage,
  CHECKPOINT_VERSION,
  type Checkpoint,
  emptyUsage,
  error,
  isToolResult,
  type Message,
  type Model,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type PendingCall,
  parseAnswer,
  pendingOf,
  type Request,
  randomId,
  type Tool,
  type ToolCall,
  type ToolContext,
  type ToolMessage,
  type ToolResult,
  type Usage,
} from "@toolnexus/core";
import { RunClock, smallest, timeoutReason } from "./budget.js";
import { CallContext, stopCall } from "./call-signal.js";
import type { ResolvedConfig } from "./config.js";
import { RunCancelledError, RunError } from "./errors.js";
import { fingerprint } from "./fingerprint.js";
import { loopId } from "./ids.js";
import type { DoneResult, Hooks, RunEvent, RunResult, ToolCallRecord } from "./types.js";

/** The fields every RunResult has, whatever its status. */
type SharedResultFields = Omit<DoneResult, "status">;

/** How one tool call of a turn ended: a tool message, and a pending call if it halted. */
interface Settled {
  message: ToolMessage;
  pending?: Omit<PendingCall, "slot">;
}

/** One attempt at running a tool: its result and, for the record, how it went. */
interface Attempt {
  result: ToolResult;
  args: Record<string, unknown>;
  timedOut: boolean;
  durationMs: number;
}

/** The state a run starts from: fresh, or restored from a checkpoint. */
export interface RunStart {
  runId: string;
  sessionId: string | undefined;
  messages: Message[];
  turns: number;
  usage: Usage;
  runExtra: Record<string, unknown> | undefined;
  conversation: boolean;
}

const CANCELLED = Symbol("cancelled");

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without output/isError" : `a ${typeof value}`;
}

function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  return String(thrown);
}

function isExpired(deadline: string | undefined): boolean {
  return deadline !== undefined && Date.parse(deadline) <= Date.now();
}

/**
 * One run of the loop, from a prompt or from a checkpoint. It owns the transcript and appends
 * to it (never copies it), so a turn's cost does not grow with the conversation.
 */
export class Run {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly messages: Message[];
  private turns: number;
  private usage: Usage;
  private readonly runExtra: Record<string, unknown> | undefined;
  private readonly extra: Record<string, unknown> | undefined;
  private readonly conversation: boolean;
  private readonly records: ToolCallRecord[] = [];
  private readonly clock: RunClock;
  /** Set when a call was stopped by the run's own deadline (timers may fire a hair early). */
  private outOfTime = false;

  constructor(
    private readonly config: ResolvedConfig,
    start: RunStart,
    private readonly signal: AbortSignal | undefined,
    private readonly sink: ((event: RunEvent) => void) | undefined,
    private readonly streaming: boolean,
  ) {
    this.runId = start.runId;
    this.sessionId = start.sessionId;
    this.messages = start.messages;
    this.turns = start.turns;
    this.usage = start.usage;
    this.runExtra = start.runExtra;
    this.conversation = start.conversation;
    this.extra =
      config.extra === undefined
        ? start.runExtra
        : start.runExtra === undefined
          ? config.extra
          : { ...config.extra, ...start.runExtra };
    this.clock = new RunClock(config.timeoutMs);
    this.listening = config.listens || sink !== undefined;
  }

  /** Whether anyone receives events; when nobody does, the loop does not build them. */
  private readonly listening: boolean;

  private emit(event: RunEvent): void {
    this.config.emit(event);
    this.sink?.(event);
  }

  private cancelled(): RunCancelledError {
    return new RunCancelledError(this.messages, this.runId, this.signal?.reason);
  }

  /** The loop: call the model, run the tools it asks for, repeat. */
  async loop(): Promise<RunResult> {
    const { maxTurns } = this.config;
    for (;;) {
      if (this.turns >= maxTurns) return this.finish({ status: "incomplete", limit: "maxTurns" });
      const left = this.clock.remaining();
      if (this.outOfTime || (left !== undefined && left <= 0)) {
        return this.finish({ status: "incomplete", limit: "timeout" });
      }
      const response = await this.callModel();
      if (response === "timeout") return this.finish({ status: "incomplete", limit: "timeout" });
      this.turns++;
      const assistant = this.appendAssistant(response);
      if (assistant.toolCalls === undefined) return this.finish({ status: "done" });
      const { toolCalls } = assistant;
      const settled =
        toolCalls.length === 1
          ? [await this.settleCall(toolCalls[0]!, assistant.id)]
          : await Promise.all(toolCalls.map((call) => this.settleCall(call, assistant.id)));
      let halted: PendingCall[] | undefined;
      for (const outcome of settled) {
        const slot = this.messages.push(outcome.message) - 1;
        if (outcome.pending === undefined) continue;
        halted ??= [];
        halted.push({ ...outcome.pending, slot });
      }
      if (halted !== undefined) return this.halt(halted);
    }
  }

  /** Continue from a claimed checkpoint with the given answers (already validated). */
  async resume(checkpoint: Checkpoint, answers: ReadonlyMap<string, Answer>): Promise<RunResult> {
    const outcomes = await Promise.all(
      checkpoint.pending.map(async (waiting): Promise<PendingCall | undefined> => {
        const given = answers.get(waiting.request.id);
        const expired = isExpired(waiting.deadline ?? waiting.request.expiresAt);
        if (given === undefined && !expired) return waiting;
        const answer: Answer = expired
          ? { id: waiting.request.id, ok: false, reason: "expired" }
          : (given as Answer);
        const { call, messageId } = this.findCall(waiting.callId);
        const tool = this.config.tools.get(waiting.tool) as Tool;
        if (this.listening) {
          this.emit({ type: "tool_call", call, messageId, ctx: this.context(call, messageId) });
        }
        const settled = await this.afterAnswer(
          call,
          tool,
          waiting.args,
          messageId,
          waiting.request,
          waiting.approval,
          answer,
        );
        this.messages[waiting.slot] = settled.message;
        return settled.pending === undefined
          ? undefined
          : { ...settled.pending, slot: waiting.slot };
      }),
    );
    const still = outcomes.filter((outcome): outcome is PendingCall => outcome !== undefined);
    if (still.length > 0) return this.halt(still);
    return this.loop();
  }

  private findCall(callId: string): { call: ToolCall; messageId: string } {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!;
      if (message.role !== "assistant" || message.toolCalls === undefined) continue;
      const call = message.toolCalls.find((candidate) => candidate.id === callId);
      if (call !== undefined) return { call, messageId: message.id };
    }
    throw new RunError(
      "checkpoint_invalid",
      `tool call ${callId} is not in the transcript`,
      this.messages,
      this.runId,
    );
  }

  private appendAssistant(response: ModelResponse): AssistantMessage {
    const assistant: AssistantMessage = {
      role: "assistant",
      id: response.id || loopId("msg"),
      content: response.text,
    };
    const calls = response.toolCalls;
    if (calls.length > 0) {
      // A turn asks for a handful of calls: looking back over the earlier ones is cheaper
      // than a Set until there are dozens.
      const ids = calls.length > 32 ? new Set<string>() : undefined;
      const toolCalls: ToolCall[] = [];
      for (const call of calls) {
        // The model's id when it gave a usable one; otherwise one unique within the run.
        const taken =
          call.id === "" ||
          (ids === undefined
            ? toolCalls.some((earlier) => earlier.id === call.id)
            : ids.has(call.id));
        const kept = taken ? { ...call, id: loopId("call") } : call;
        ids?.add(kept.id);
        toolCalls.push(kept);
      }
      assistant.toolCalls = toolCalls;
    }
    this.messages.push(assistant);
    if (this.listening) this.emit({ type: "message", message: assistant, turn: this.turns });
    return assistant;
  }

  /** One model call; without hooks or a run deadline it takes one small async frame. */
  private callModel(): Promise<ModelResponse | "timeout"> {
    const { hooks } = this.config;
    if (
      hooks.beforeModel === undefined &&
      hooks.afterModel === undefined &&
      this.config.timeoutMs === undefined
    ) {
      return this.callModelDirect();
    }
    return this.callModelGeneral();
  }

  private async callModelDirect(): Promise<ModelResponse> {
    if (this.signal?.aborted) throw this.cancelled();
    const turn = this.turns + 1;
    let response: ModelResponse;
    try {
      response = await this.generate(
        { messages: this.messages, tools: this.config.specs },
        this.signal,
        turn,
      );
    } catch (thrown) {
      throw this.modelFailed(thrown, turn);
    }
    this.countUsage(response);
    return response;
  }

  private async callModelGeneral(): Promise<ModelResponse | "timeout"> {
    const { hooks } = this.config;
    let request: ModelRequest = { messages: this.messages, tools: this.config.specs };
    const turn = this.turns + 1;
    if (hooks.beforeModel !== undefined)
      request = (await hooks.beforeModel(request, { turn })) ?? request;

    const left = this.clock.remaining();
    let signal = this.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unlink: (() => void) | undefined;
    if (left !== undefined) {
      const controller = new AbortController();
      timer = setTimeout(
        () => controller.abort(timeoutReason(Math.round(left))),
        Math.max(0, left),
      );
      if (this.signal !== undefined) {
        const forward = () => controller.abort(this.signal?.reason);
        this.signal.addEventListener("abort", forward, { once: true });
        unlink = () => this.signal?.removeEventListener("abort", forward);
      }
      signal = controller.signal;
    }
    if (this.signal?.aborted) throw this.cancelled();

    let response: ModelResponse;
    try {
      response = await this.generate(request, signal, turn);
    } catch (thrown) {
      if (!this.signal?.aborted && signal?.aborted) return "timeout";
      throw this.modelFailed(thrown, turn);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      unlink?.();
    }
    if (hooks.afterModel !== undefined)
      response = (await hooks.afterModel(response, { turn })) ?? response;
    this.countUsage(response);
    return response;
  }

  /** What a failed model call rejects the run with: cancelled, or `model_failed`. */
  private modelFailed(thrown: unknown, turn: number): Error {
    if (this.signal?.aborted) return this.cancelled();
    return new RunError(
      "model_failed",
      `model ${this.config.model.id} failed on turn ${turn}: ${messageOf(thrown)}`,
      this.messages,
      this.runId,
      thrown,
    );
  }

  private countUsage(response: ModelResponse): void {
    if (response.usage === undefined) return;
    this.usage = addUsage(this.usage, response.usage);
    if (this.listening) this.emit({ type: "usage", usage: response.usage, total: this.usage });
  }

  // Not async: an async wrapper around model.generate would cost extra promise hops per turn.
  private generate(
    request: ModelRequest,
    signal: AbortSignal | undefined,
    turn: number,
  ): Promise<ModelResponse> {
    const { model } = this.config;
    const options = signal === undefined ? {} : { signal };
    if (!this.streaming || model.stream === undefined) return model.generate(request, options);
    return this.streamed(model.stream.bind(model), request, options, turn);
  }

  private async streamed(
    stream: NonNullable<Model["stream"]>,
    request: ModelRequest,
    options: ModelCallOptions,
    turn: number,
  ): Promise<ModelResponse> {
    let final: ModelResponse | undefined;
    for await (const part of stream(request, options)) {
      if (part.type === "text") this.emit({ type: "text", delta: part.delta, turn });
      else if (part.type === "finish") final = part.response;
    }
    if (final === undefined) throw new Error("the stream ended without a finish event");
    return final;
  }

  /** The context of one call, without its budget (set per attempt). */
  private context(call: ToolCall, messageId: string, answer?: Answer): ToolContext {
    return this.fill({ messageId, callId: call.id }, answer);
  }

  /** Fills in the fields a call's context gets from the run. */
  private fill<T extends ToolContext>(ctx: T, answer: Answer | undefined): T {
    if (this.sessionId !== undefined) ctx.sessionId = this.sessionId;
    if (this.config.agent !== undefined) ctx.agent = this.config.agent;
    if (this.extra !== undefined) ctx.extra = this.extra;
    if (answer !== undefined) ctx.answer = answer;
    return ctx;
  }

  /**
   * Run one call of a turn to its end: a result, or a suspension resolved or halted. The
   * common call (no approval rule, no beforeTool hook, no budget, no run signal) goes through
   * one small async frame; every other call through the general path.
   */
  private settleCall(call: ToolCall, messageId: string): Settled | Promise<Settled> {
    if (this.listening) {
      this.emit({ type: "tool_call", call, messageId, ctx: this.context(call, messageId) });
    }
    if (call.argsError !== undefined) {
      return this.final(call, undefined, call.args, messageId, {
        result: error(`invalid arguments for ${call.name}: ${call.argsError}`),
        args: call.args,
        timedOut: false,
        durationMs: 0,
      });
    }
    const tool = this.config.tools.get(call.name);
    if (tool === undefined) {
      return this.final(call, undefined, call.args, messageId, {
        result: error(`unknown tool: ${call.name}`),
        args: call.args,
        timedOut: false,
        durationMs: 0,
      });
    }
    if (
      tool.needsApproval === undefined &&
      this.config.hooks.beforeTool === undefined &&
      this.unstoppable(tool)
    ) {
      return this.settleDirect(call, tool, messageId);
    }
    return this.settleGeneral(call, tool, messageId);
  }

  private async settleDirect(call: ToolCall, tool: Tool, messageId: string): Promise<Settled> {
    const ctx = this.fill(new CallContext(messageId, call.id), undefined);
    const started = performance.now();
    let result: ToolResult;
    try {
      result = checked(tool, await tool.execute(call.args, ctx));
    } catch (thrown) {
      result = error(messageOf(thrown));
    }
    const first = {
      result,
      args: call.args,
      timedOut: false,
      durationMs: performance.now() - started,
    };
    const request = pendingOf(result);
    if (request === undefined) return this.final(call, tool, call.args, messageId, first);
    return this.suspend(call, tool, call.args, messageId, request, false, first);
  }

  private async settleGeneral(call: ToolCall, tool: Tool, messageId: string): Promise<Settled> {
    if (tool.needsApproval !== undefined && (await this.needsApproval(tool, call, messageId))) {
      const request: Request = {
        id: randomId("pnd"),
        kind: "approval",
        prompt: `Allow ${tool.name} to run with ${call.rawArgs || JSON.stringify(call.args)}?`,
      };
      return this.suspend(call, tool, call.args, messageId, request, true, undefined);
    }
    const first = await this.attempt(tool, call, call.args, messageId, undefined);
    const request = pendingOf(first.result);
    if (request === undefined) return this.final(call, tool, first.args, messageId, first);
    return this.suspend(call, tool, first.args, messageId, request, false, first);
  }

  /** True when no budget and no run signal can stop a call of this tool. */
  private unstoppable(tool: Tool): boolean {
    return (
      this.signal === undefined &&
      tool.timeoutMs === undefined &&
      this.config.toolTimeoutMs === undefined &&
      this.config.timeoutMs === undefined
    );
  }

  private async needsApproval(tool: Tool, call: ToolCall, messageId: string): Promise<boolean> {
    const rule = tool.needsApproval;
    if (rule === undefined || rule === false) return false;
    if (rule === true) return true;
    try {
      return (await rule(call.args, this.context(call, messageId))) === true;
    } catch {
      // A broken approval rule must not let the tool run unchecked.
      return true;
    }
  }

  /** A suspension: ask `waitFor` in-process, or mark the call for a durable halt. */
  private async suspend(
    call: ToolCall,
    tool: Tool,
    args: Record<string, unknown>,
    messageId: string,
    request: Request,
    approval: boolean,
    attempt: Attempt | undefined,
  ): Promise<Settled> {
    if (this.listening) this.emit({ type: "pending", call, request });
    if (this.config.waitFor === undefined) {
      const output = attempt?.result.output ?? request.prompt;
      const message: ToolMessage = {
        role: "tool",
        callId: call.id,
        name: call.name,
        content: output,
        isError: true,
      };
      this.record(
        call,
        args,
        attempt?.result ?? error(output, { pending: request }),
        "pending",
        attempt,
      );
      const deadline = this.deadlineOf(request);
      const pending: Omit<PendingCall, "slot"> = {
        request,
        callId: call.id,
        tool: tool.name,
        args,
        fingerprint: fingerprint(tool.name, args),
        approval,
      };
      if (deadline !== undefined) pending.deadline = deadline;
      return { message, pending };
    }
    const answer = await this.wait(call, tool, request);
    if (!("ok" in answer)) {
      return this.final(call, tool, args, messageId, {
        result: error(answer.problem),
        args,
        timedOut: false,
        durationMs: 0,
      });
    }
    return this.afterAnswer(call, tool, args, messageId, request, approval, answer);
  }

  /** The human's deadline for a request: its own `expiresAt` or the client's wait limit. */
  private deadlineOf(request: Request): string | undefined {
    const { waitTimeoutMs } = this.config;
    const own = request.expiresAt === undefined ? undefined : Date.parse(request.expiresAt);
    const limit = waitTimeoutMs === undefined ? undefined : Date.now() + waitTimeoutMs;
    const deadline = smallest(own, limit);
    return deadline === undefined ? undefined : new Date(deadline).toISOString();
  }

  /** Ask `waitFor`, bounded by the human's own limit. The run's clocks are paused meanwhile. */
  private async wait(
    call: ToolCall,
    tool: Tool,
    request: Request,
  ): Promise<Answer | { problem: string }> {
    const waitFor = this.config.waitFor!;
    const expired: Answer = { id: request.id, ok: false, reason: "expired" };
    // A request already past its own expiresAt is not shown to anyone.
    if (isExpired(request.expiresAt)) return expired;
    if (this.signal?.aborted) throw this.cancelled();
    // The wait limit starts now, when the human is asked.
    const limitMs = smallest(
      request.expiresAt === undefined ? undefined : Date.parse(request.expiresAt) - Date.now(),
      this.config.waitTimeoutMs,
    );

    const controller = new AbortController();
    const resumeClock = this.clock.pause();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unlink: (() => void) | undefined;
    try {
      const outcome = await new Promise<unknown>((resolve, reject) => {
        if (limitMs !== undefined) {
          timer = setTimeout(() => {
            controller.abort(new DOMException("the wait for an answer expired", "TimeoutError"));
            resolve(expired);
          }, limitMs);
        }
        if (this.signal !== undefined) {
          const onAbort = () => {
            controller.abort(this.signal?.reason);
            resolve(CANCELLED);
          };
          this.signal.addEventListener("abort", onAbort, { once: true });
          unlink = () => this.signal?.removeEventListener("abort", onAbort);
        }
        Promise.resolve()
          .then(() =>
            waitFor(request, {
              call,
              tool: tool.name,
              signal: controller.signal,
              sessionId: this.sessionId,
              agent: this.config.agent,
            }),
          )
          .then(resolve, reject);
      });
      if (outcome === CANCELLED) throw this.cancelled();
      const answer = parseAnswer(outcome);
      if (answer.id !== request.id) {
        return { problem: `waitFor answered request "${answer.id}" but was asked "${request.id}"` };
      }
      return answer;
    } catch (thrown) {
      if (thrown instanceof RunCancelledError) throw thrown;
      return { problem: `waitFor failed for "${request.prompt}": ${messageOf(thrown)}` };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      unlink?.();
      resumeClock();
    }
  }

  /** The second half of a suspension: run again with the answer, or report the refusal. */
  private async afterAnswer(
    call: ToolCall,
    tool: Tool,
    args: Record<string, unknown>,
    messageId: string,
    request: Request,
    approval: boolean,
    answer: Answer,
  ): Promise<Settled> {
    if (!answer.ok) {
      return this.final(call, tool, args, messageId, {
        result: error(`declined/expired: ${request.prompt}`, { answer }),
        args,
        timedOut: false,
        durationMs: 0,
      });
    }
    const again = await this.attempt(tool, call, args, messageId, answer);
    const next = pendingOf(again.result);
    if (next === undefined) return this.final(call, tool, again.args, messageId, again);
    // After an approval the tool ran for the first time, so its own question is a new suspension.
    if (approval) return this.suspend(call, tool, again.args, messageId, next, false, again);
    // Never loop on the same call: a second suspension on the re-execution is an error.
    return this.final(call, tool, again.args, messageId, {
      ...again,
      result: error(`unresolved: ${next.prompt}`),
    });
  }

  /** `beforeTool`, then the tool itself within its budget. */
  private attempt(
    tool: Tool,
    call: ToolCall,
    args: Record<string, unknown>,
    messageId: string,
    answer: Answer | undefined,
  ): Promise<Attempt> {
    const ctx = this.fill(new CallContext(messageId, call.id), answer);
    const { beforeTool } = this.config.hooks;
    if (beforeTool === undefined) return this.execute(tool, args, ctx);
    return this.hookedAttempt(beforeTool, tool, call, args, ctx);
  }

  /** `beforeTool` may rewrite the arguments, answer in the tool's place, or let it run. */
  private async hookedAttempt(
    beforeTool: NonNullable<Hooks["beforeTool"]>,
    tool: Tool,
    call: ToolCall,
    givenArgs: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<Attempt> {
    let args = givenArgs;
    let decision: unknown;
    try {
      decision = await beforeTool({ call, tool, args, ctx });
    } catch (thrown) {
      return {
        result: error(`beforeTool hook failed: ${messageOf(thrown)}`),
        args,
        timedOut: false,
        durationMs: 0,
      };
    }
    if (isToolResult(decision)) return { result: decision, args, timedOut: false, durationMs: 0 };
    if (typeof decision === "object" && decision !== null) {
      const { result, args: rewritten } = decision as { result?: unknown; args?: unknown };
      if (isToolResult(result)) return { result, args, timedOut: false, durationMs: 0 };
      if (typeof rewritten === "object" && rewritten !== null)
        args = rewritten as Record<string, unknown>;
    }
    return this.execute(tool, args, ctx);
  }

  /**
   * Run the tool with its budget enforced: at the deadline the result is a timeout, whatever
   * the tool does. Not async itself: a call that nothing can stop takes a small async frame,
   * and only a call with a budget or a run signal pays for the race.
   */
  private execute(tool: Tool, args: Record<string, unknown>, ctx: CallContext): Promise<Attempt> {
    if (this.signal?.aborted) return Promise.reject(this.cancelled());
    const left = this.clock.remaining();
    const raw = smallest(
      tool.timeoutMs,
      this.config.toolTimeoutMs,
      left === undefined ? undefined : Math.max(0, left),
    );
    const budget = raw === undefined ? undefined : Math.max(0, Math.round(raw));
    if (budget === undefined && this.signal === undefined) return unbounded(tool, args, ctx);
    return this.bounded(tool, args, ctx, budget, left);
  }

  private async bounded(
    tool: Tool,
    args: Record<string, unknown>,
    ctx: CallContext,
    budget: number | undefined,
    left: number | undefined,
  ): Promise<Attempt> {
    if (budget !== undefined) ctx.timeout = budget;
    const started = performance.now();
    const work = invoke(tool, args, ctx);

    let timer: ReturnType<typeof setTimeout> | undefined;
    let unlink: (() => void) | undefined;
    const stop = new Promise<"timeout" | typeof CANCELLED>((resolve) => {
      if (budget !== undefined) {
        timer = setTimeout(() => {
          stopCall(ctx, timeoutReason(budget));
          resolve("timeout");
        }, budget);
      }
      if (this.signal !== undefined) {
        const onAbort = () => {
          stopCall(ctx, this.signal?.reason);
          resolve(CANCELLED);
        };
        this.signal.addEventListener("abort", onAbort, { once: true });
        unlink = () => this.signal?.removeEventListener("abort", onAbort);
      }
    });
    try {
      const winner = await Promise.race([work, stop]);
      const durationMs = performance.now() - started;
      if (winner === CANCELLED) throw this.cancelled();
      if (winner === "timeout") {
        if (left !== undefined && budget === Math.max(0, Math.round(left))) this.outOfTime = true;
        // The tool may still finish later; its result is dropped.
        return { result: error(`timed out after ${budget}ms`), args, timedOut: true, durationMs };
      }
      return { result: winner, args, timedOut: false, durationMs };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      unlink?.();
    }
  }

  /** A call's final result: through `afterTool`, into the record and the transcript. */
  private final(
    call: ToolCall,
    tool: Tool | undefined,
    args: Record<string, unknown>,
    messageId: string,
    attempt: Attempt,
  ): Settled | Promise<Settled> {
    const { afterTool } = this.config.hooks;
    if (afterTool === undefined) return this.settled(call, args, attempt.result, attempt);
    return this.afterTool(afterTool, call, tool, args, messageId, attempt);
  }

  /** `afterTool` may replace the result; a throw becomes an error result. */
  private async afterTool(
    afterTool: NonNullable<Hooks["afterTool"]>,
    call: ToolCall,
    tool: Tool | undefined,
    args: Record<string, unknown>,
    messageId: string,
    attempt: Attempt,
  ): Promise<Settled> {
    let result = attempt.result;
    try {
      const replaced = await afterTool({
        call,
        tool,
        args,
        result,
        ctx: this.context(call, messageId),
      });
      if (isToolResult(replaced)) result = replaced;
    } catch (thrown) {
      result = error(`afterTool hook failed: ${messageOf(thrown)}`);
    }
    return this.settled(call, args, result, attempt);
  }

  /** Records the call's final result and makes its tool message. */
  private settled(
    call: ToolCall,
    args: Record<string, unknown>,
    result: ToolResult,
    attempt: Attempt,
  ): Settled {
    this.record(call, args, result, result.isError ? "error" : "ok", attempt);
    return {
      message: {
        role: "tool",
        callId: call.id,
        name: call.name,
        content: result.output,
        isError: result.isError,
      },
    };
  }

  private record(
    call: ToolCall,
    args: Record<string, unknown>,
    result: ToolResult,
    status: ToolCallRecord["status"],
    attempt: Attempt | undefined,
  ): void {
    const record: ToolCallRecord = {
      id: call.id,
      name: call.name,
      args,
      result,
      status,
      timedOut: attempt?.timedOut ?? false,
      durationMs: attempt?.durationMs ?? 0,
    };
    this.records.push(record);
    if (!this.listening) return;
    this.emit({
      type: "tool_result",
      call,
      record,
      isError: status === "error",
      pending: status === "pending",
    });
  }

  /** Save a checkpoint, then report the halt. */
  private async halt(calls: PendingCall[]): Promise<RunResult> {
    const checkpoint: Checkpoint = {
      version: CHECKPOINT_VERSION,
      id: loopId("ckp"),
      runId: this.runId,
      createdAt: new Date().toISOString(),
      messages: this.messages,
      pending: calls,
      turns: this.turns,
      usage: this.usage,
    };
    if (this.sessionId !== undefined) checkpoint.sessionId = this.sessionId;
    if (this.config.agent !== undefined) checkpoint.agent = this.config.agent;
    if (this.runExtra !== undefined && serialisable(this.runExtra))
      checkpoint.extra = this.runExtra;
    if (this.conversation) checkpoint.conversation = true;
    try {
      await this.config.suspensions.save(checkpoint);
    } catch (thrown) {
      throw new RunError(
        "store_failed",
        `could not save the checkpoint of run ${this.runId}: ${messageOf(thrown)}`,
        this.messages,
        this.runId,
        thrown,
      );
    }
    const pendings = calls.map((call) => call.request);
    const first = pendings[0]!;
    const result: RunResult = this.withBase(
      { status: "pending", pending: first, pendings, checkpointId: checkpoint.id },
      first.prompt,
    );
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }

  /**
   * Completes a result by assigning the fields every status shares. Assigned, not spread: on
   * Node 20 `{ ...end, ...base }` takes V8's slow path and cost more than the rest of a run.
   */
  private withBase<T extends object>(head: T, text: string): T & SharedResultFields {
    const result = head as T & SharedResultFields;
    result.text = text;
    result.messages = this.messages;
    result.toolCalls = this.records;
    result.turns = this.turns;
    result.usage = this.usage;
    result.model = this.config.model.id;
    result.runId = this.runId;
    result.sessionId = this.sessionId;
    return result;
  }

  private finish(
    end: { status: "done" } | { status: "incomplete"; limit: "maxTurns" | "timeout" },
  ): RunResult | Promise<RunResult> {
    let text = "";
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!;
      if (message.role === "assistant") {
        text = message.content;
        break;
      }
    }
    const result: RunResult = this.withBase(
      end.status === "done" ? { status: "done" } : { status: "incomplete", limit: end.limit },
      text,
    );
    if (this.conversation && this.sessionId !== undefined) {
      return this.saveThenEnd(this.sessionId, result);
    }
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }

  /** `ask`: save the session's transcript before reporting the end. */
  private async saveThenEnd(sessionId: string, result: RunResult): Promise<RunResult> {
    try {
      await this.config.conversations.save(sessionId, this.messages);
    } catch (thrown) {
      throw new RunError(
        "store_failed",
        `could not save the conversation of session ${sessionId}: ${messageOf(thrown)}`,
        this.messages,
        this.runId,
        thrown,
      );
    }
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }
}

/** A call nothing can stop: await the tool, without racing it. */
async function unbounded(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<Attempt> {
  const started = performance.now();
  const result = await invoke(tool, args, ctx);
  return { result, args, timedOut: false, durationMs: performance.now() - started };
}

/** Calls the tool; a throw, a rejection or a value that is not a ToolResult becomes an error result. */
async function invoke(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolResult> {
  try {
    return checked(tool, await tool.execute(args, ctx));
  } catch (thrown) {
    return error(messageOf(thrown));
  }
}

/** A tool's return value, or an error result when it is not a ToolResult. */
function checked(tool: Tool, value: unknown): ToolResult {
  return isToolResult(value)
    ? value
    : error(`tool ${tool.name} returned ${describe(value)} instead of a ToolResult`);
}

function serialisable(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/** A fresh run's starting state. */
export function freshStart(
  sessionId: string | undefined,
  messages: Message[],
  runExtra: Record<string, unknown> | undefined,
  conversation: boolean,
): RunStart {
  return {
    runId: loopId("run"),
    sessionId,
    messages,
    turns: 0,
    usage: emptyUsage(),
    runExtra,
    conversation,
  };
}
