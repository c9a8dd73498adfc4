// A call the server made a task (Tasks extension): polled with backoff while the call may wait
// (`taskWaitMs`), then a durable suspension holding only the task id, which any process takes up
// again (the run's next claim, once `watchTasks` or anyone answers its request). The tool is never
// called again: the task is polled, answered (`tasks/update`) or cancelled (`tasks/cancel`).
import { ProtocolError } from "@modelcontextprotocol/client";
import { type Answer, error, pending, type ToolContext, type ToolResult } from "@toolnexus/core";
import type { ActiveSpec, ServerConnection as Server } from "./connection.js";
import { messageOf } from "./connection.js";
import { answerInputRequests } from "./input-required.js";
import { combinedRequest, toElicitResults, toToolResult } from "./mapping.js";
import { capOutput } from "./output-cap.js";
import { type McpState, STATE_VERSION } from "./state.js";
import {
  cancelTask,
  getTask,
  getTaskResult,
  isLegacy,
  type McpTask,
  updateTask,
} from "./task-wire.js";

/** The kind of the Request a run waits on while a server's task runs: no human answers it. */
export const TASK_REQUEST_KIND = "mcp_task";
/** How long a call polls its task before the run halts on it, by default: not at all (the task id is durable at once). */
export const DEFAULT_TASK_WAIT_MS = 0;
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 5_000;

type TaskState = Extract<McpState, { kind: "task" }>;

interface Call {
  server: Server;
  tool: string;
  exposed: string;
  ctx: ToolContext | undefined;
}

const metaOf = (call: Call, taskId: string) => ({
  server: call.server.name,
  tool: call.tool,
  task: taskId,
});

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** True when the call's signal says the run was cancelled or ran out of time. */
function endsRun(signal: AbortSignal | undefined): boolean {
  const reason = signal?.reason as { code?: unknown; name?: unknown } | undefined;
  return reason?.code === "cancel_requested" || reason?.name === "TimeoutError";
}

function requestTimeout(server: Server): number {
  return (server.spec as ActiveSpec).timeout;
}

/** The Request a run waits on while the task works: answered by `watchTasks` when it moves. */
function waiting(call: Call, task: McpTask, answered: string[]): ToolResult {
  const state: TaskState = { mcp: STATE_VERSION, kind: "task", taskId: task.taskId };
  if (answered.length > 0) state.answered = answered;
  const deadline =
    typeof task.ttlMs === "number" && task.createdAt !== undefined
      ? Date.parse(task.createdAt) + task.ttlMs
      : Number.NaN;
  return pending({
    kind: TASK_REQUEST_KIND,
    prompt: `MCP server ${call.server.name} is still working on ${call.exposed}`,
    data: {
      server: call.server.name,
      taskId: task.taskId,
      status: task.status,
      // Keys answered already: until the server shows them answered, the task is still working.
      ...(answered.length === 0 ? {} : { answered }),
    },
    ...(Number.isFinite(deadline) ? { expiresAt: deadline } : {}),
    state,
  });
}

/** The outcome of a task at a final status. */
function finished(call: Call, task: McpTask): ToolResult {
  const meta = metaOf(call, task.taskId);
  const { scrub, name } = call.server;
  if (task.status === "completed") {
    // Scrubbed before the output is cut too: a cut through a secret would leave a fragment.
    const result = scrub.deep(task.result ?? {});
    return scrub.deep(toToolResult(result, meta, call.server.limits.maxOutputChars));
  }
  if (task.status === "cancelled") {
    return error(`MCP server ${name}: the task of ${call.tool} was cancelled`, {
      ...meta,
      cancelled: true,
    });
  }
  const why = task.error?.message ?? task.statusMessage ?? "no reason given";
  const text = scrub.text(`MCP server ${name}: the task of ${call.tool} failed: ${why}`);
  return error(capOutput(text, call.server.limits.maxOutputChars).text, meta);
}

/** Cancels the task on the server (best effort) and says why the call ended. */
async function abandon(call: Call, taskId: string, why: string): Promise<ToolResult> {
  await cancelTask(call.server, taskId, { timeout: requestTimeout(call.server) }).catch(() => {});
  return error(`MCP server ${call.server.name}: ${call.tool} ${why}`, {
    ...metaOf(call, taskId),
    cancelled: true,
  });
}

/**
 * Follows a task from `task` (a handle or a poll) until it ends, asks, or the call's wait runs
 * out. `answered` lists input request keys answered already.
 */
export async function followTask(
  call: Call,
  first: McpTask,
  answered: string[] = [],
  /** True when the task id is in the run's checkpoint already (a task taken up again). */
  kept = false,
): Promise<ToolResult> {
  const { server, ctx } = call;
  const waitMs = server.options.taskWaitMs ?? DEFAULT_TASK_WAIT_MS;
  const until = Date.now() + waitMs;
  let delay = FIRST_POLL_MS;
  let task = first;
  const done = [...answered];
  // The call stops: its task is cancelled when nothing else will follow it (a task only this
  // call knows of; or the run itself was cancelled, or ran out of time). A kept task whose
  // worker stops or loses its lease is left running, and the run waits on it again.
  const stopped = (task: McpTask) =>
    !kept || endsRun(ctx?.signal)
      ? abandon(call, task.taskId, "was cancelled; its task was cancelled on the server")
      : waiting(call, task, done);
  for (;;) {
    if (isLegacy(server) && (task.status === "completed" || task.status === "input_required")) {
      // A 2025 task keeps its result (and delivers its questions, push-style, to the
      // elicitation handler: `waitFor`) behind `tasks/result`, which waits for the end.
      const result = await getTaskResult(server, task.taskId, {
        timeout: (server.spec as ActiveSpec).maxTimeout,
        ...(ctx?.signal === undefined ? {} : { signal: ctx.signal }),
      });
      return finished(call, { ...task, status: "completed", result });
    }
    if (task.status === "completed" || task.status === "failed" || task.status === "cancelled") {
      return finished(call, task);
    }
    if (task.status === "input_required") {
      const open = Object.fromEntries(
        Object.entries(task.inputRequests ?? {}).filter(([key]) => !done.includes(key)),
      );
      if (Object.keys(open).length > 0) {
        const round = await answerInputRequests(server, call.tool, open, ctx);
        if ("error" in round) return round.error;
        const { responses, elicitations } = round;
        if (Object.keys(elicitations).length > 0) {
          const state: TaskState = {
            mcp: STATE_VERSION,
            kind: "task",
            taskId: task.taskId,
            elicitations,
            responses,
          };
          if (done.length > 0) state.answered = done;
          return pending({ ...combinedRequest(elicitations, server.name), state });
        }
        await updateTask(server, task.taskId, responses, { timeout: requestTimeout(server) });
        done.push(...Object.keys(responses));
      }
    }
    const left = until - Date.now();
    if (left <= 0) return waiting(call, task, done);
    try {
      await sleep(Math.min(Math.max(delay, task.pollIntervalMs ?? 0), left), ctx?.signal);
    } catch {
      return stopped(task);
    }
    delay = Math.min(delay * 2, MAX_POLL_MS);
    try {
      task = await getTask(server, task.taskId, {
        timeout: requestTimeout(server),
        ...(ctx?.signal === undefined ? {} : { signal: ctx.signal }),
      });
    } catch (thrown) {
      if (ctx?.signal?.aborted) {
        return stopped(task);
      }
      // The server answered with an error (an unknown task): the call ends with it. Anything
      // else (the server unreachable for now) leaves the task to a later poll: the run halts.
      if (thrown instanceof ProtocolError) throw thrown;
      return waiting(call, task, done);
    }
  }
}

/**
 * Takes a task up again after its run halted on it: the human's answer to its input requests
 * goes back with `tasks/update`; a refused or expired wait cancels it; then it is followed.
 */
export async function resumeTask(
  call: Call,
  state: TaskState,
  answer: Answer | undefined,
): Promise<ToolResult> {
  const { server } = call;
  const timeout = requestTimeout(server);
  const answered = [...(state.answered ?? [])];
  try {
    if (state.elicitations !== undefined && answer !== undefined) {
      const responses = { ...state.responses, ...toElicitResults(answer, state.elicitations) };
      await updateTask(server, state.taskId, responses, { timeout });
      answered.push(...Object.keys(responses));
    } else if (answer !== undefined && !answer.ok) {
      // Nobody is waiting for the task any more (the wait expired, or a person refused it).
      const last = await getTask(server, state.taskId, { timeout }).catch(() => undefined);
      if (last !== undefined && last.status === "completed")
        return followTask(call, last, answered, true);
      return abandon(call, state.taskId, `stopped waiting for its task (${answer.reason})`);
    }
    let task: McpTask;
    try {
      task = await getTask(server, state.taskId, { timeout });
    } catch (thrown) {
      if (thrown instanceof ProtocolError) throw thrown;
      // Unreachable for now: wait again (the watcher polls it later).
      return waiting(call, { taskId: state.taskId, status: "working" }, answered);
    }
    return await followTask(call, task, answered, true);
  } catch (thrown) {
    return error(
      server.scrub.text(
        `MCP server ${server.name}: the task of ${call.tool} could not be followed: ${messageOf(thrown)}`,
      ),
      metaOf(call, state.taskId),
    );
  }
}
