// Long calls as 2026 Tasks (the io.modelcontextprotocol/tasks extension): a tool the host marks
// for it answers `tools/call` at once with a task handle and runs on; the client polls
// `tasks/get` for its status and result, answers its questions with `tasks/update`, and may
// `tasks/cancel` it. Tasks live in the process that started them, at most `maxTasks` at a time,
// each visible only to the identity that started it, and forgotten `ttlMs` after they end.
// A task runs its tool through `step` (step.ts), as a plain call does: the same size limits, the
// same approval asked first (as the task's first question), the same caps.
import { randomId, type Tool, type ToolResult, thrownOf } from "@toolnexus/core";
import { type ElicitReply, toAnswer, toElicitation } from "./elicitation.js";
import type { McpTaskOptions } from "./options.js";
import type { CallChannel } from "./run-tool.js";
import { type StepFrom, type StepRules, step } from "./step.js";
import type { Suspension } from "./suspension.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";

interface Task {
  taskId: string;
  owner: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  endedAt?: number;
  result?: ToolResult;
  /** With `failed`: the tool threw (an internal failure, not an error it reported). */
  failure?: string;
  /** While `input_required`: the question (the tool's approval, or one the tool asked). */
  asking?: Suspension;
  stop: AbortController;
  tool: Tool;
  args: Record<string, unknown>;
}

/** A task as the wire shows it (`tasks/get`, and the handle `tools/call` returns). */
export type TaskView = Record<string, unknown> & { taskId: string; status: Status };

export class TaskTable {
  private readonly tasks = new Map<string, Task>();
  readonly tools: ReadonlySet<string>;

  constructor(
    private readonly options: McpTaskOptions,
    private readonly rules: StepRules,
    private readonly toResult: (result: ToolResult) => Record<string, unknown>,
  ) {
    this.tools = new Set(options.tools);
  }

  private sweep(): void {
    const cutoff = Date.now() - (this.options.ttlMs ?? 3_600_000);
    for (const [id, task] of this.tasks) {
      if (task.endedAt !== undefined && task.endedAt < cutoff) this.tasks.delete(id);
    }
  }

  /** Starts `tool` as a task for `owner`; undefined when the table is full. */
  start(
    tool: Tool,
    args: Record<string, unknown>,
    owner: string,
    caller: CallChannel["caller"],
  ): TaskView | undefined {
    this.sweep();
    if (this.tasks.size >= (this.options.maxTasks ?? 1000)) return undefined;
    const now = new Date().toISOString();
    const task: Task = {
      taskId: randomId("task"),
      owner,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      stop: new AbortController(),
      tool,
      args,
    };
    this.tasks.set(task.taskId, task);
    void this.run(task, caller, { callId: task.taskId });
    return this.view(task);
  }

  private set(task: Task, fields: Partial<Task>): void {
    if (task.status === "cancelled") return;
    Object.assign(task, fields, { lastUpdatedAt: new Date().toISOString() });
    if (
      fields.status === "completed" ||
      fields.status === "failed" ||
      fields.status === "cancelled"
    ) {
      task.endedAt = Date.now();
    }
  }

  private async run(task: Task, caller: CallChannel["caller"], from: StepFrom): Promise<void> {
    const budgetMs = task.tool.timeoutMs ?? this.options.timeoutMs ?? 3_600_000;
    const outcome = await step(this.rules, task.tool, task.args, from, {
      channel: { signal: task.stop.signal, caller },
      budgetMs,
    });
    if ("suspend" in outcome) {
      const asking = outcome.suspend;
      this.set(task, {
        status: "input_required",
        statusMessage: this.rules.scrub.text(asking.request.prompt),
        asking,
      });
      return;
    }
    const result = outcome.done;
    if (thrownOf(result) !== undefined && !task.stop.signal.aborted) {
      this.set(task, { status: "failed", failure: result.output, asking: undefined });
      return;
    }
    this.set(task, { status: "completed", result, asking: undefined });
  }

  /** The task `taskId` of `owner`, as the wire shows it; undefined for another's or none. */
  get(taskId: string, owner: string): TaskView | undefined {
    this.sweep();
    const task = this.tasks.get(taskId);
    return task === undefined || task.owner !== owner ? undefined : this.view(task);
  }

  /** Applies the client's replies to the task's question and runs the tool on. */
  update(
    taskId: string,
    owner: string,
    reply: (key: string) => ElicitReply,
    caller: CallChannel["caller"],
  ): boolean {
    const task = this.tasks.get(taskId);
    if (task === undefined || task.owner !== owner) return false;
    const asking = task.asking;
    if (task.status !== "input_required" || asking === undefined) return true;
    const answer = toAnswer(asking.request, reply(asking.request.id));
    if (answer === undefined) return true;
    // The step applies the answer: a refusal ends the task, an approval runs the tool.
    this.set(task, { status: "working", statusMessage: undefined, asking: undefined });
    void this.run(task, caller, { suspension: asking, answer });
    return true;
  }

  /** Cancels a task that has not ended; its tool's signal aborts. */
  cancel(taskId: string, owner: string): boolean {
    const task = this.tasks.get(taskId);
    if (task === undefined || task.owner !== owner) return false;
    if (task.status === "working" || task.status === "input_required") {
      this.set(task, {
        status: "cancelled",
        statusMessage: "cancelled by the client",
        asking: undefined,
      });
      task.stop.abort(new Error("the task was cancelled"));
    }
    return true;
  }

  /** Cancels every task (the server closes). */
  close(): void {
    for (const task of this.tasks.values()) task.stop.abort(new Error("the server closed"));
  }

  private view(task: Task): TaskView {
    const view: TaskView = {
      taskId: task.taskId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: this.options.ttlMs ?? 3_600_000,
      pollIntervalMs: this.options.pollIntervalMs ?? 1000,
    };
    if (task.statusMessage !== undefined) view.statusMessage = task.statusMessage;
    if (task.status === "completed" && task.result !== undefined)
      view.result = this.toResult(task.result);
    if (task.status === "failed") {
      view.error = {
        code: -32603,
        message: this.rules.scrub.text(task.failure ?? "the task failed"),
      };
    }
    if (task.status === "input_required" && task.asking !== undefined) {
      const e = toElicitation(this.rules.scrub.deep(task.asking.request));
      view.inputRequests = {
        [task.asking.request.id]: { method: "elicitation/create", params: e },
      };
    }
    return view;
  }
}
