// How a halted task's run learns the task moved: a watcher lists the run store's waiting
// `mcp_task` requests, polls each task (`tasks/get`, backing off per task), and answers the
// request when the task is no longer working. The answer only makes the run ready: the worker
// that claims it polls the task itself and carries on. Cancelled runs get their tasks cancelled.
import { ProtocolError } from "@modelcontextprotocol/client";
import { isObject, messageOf, type ServerConnection as Server } from "./connection.js";
import { TASK_REQUEST_KIND } from "./task.js";
import { cancelTask, getTask } from "./task-wire.js";
import type { WatchTasksOptions, WatchTasksSummary } from "./types.js";

/** True when every input request of the task was answered already (the server catching up). */
function asksOnlyAnswered(asked: Record<string, unknown> | undefined, data: unknown): boolean {
  const answered = isObject(data) && Array.isArray(data.answered) ? data.answered : [];
  const keys = Object.keys(asked ?? {});
  return keys.length > 0 && keys.every((key) => answered.includes(key));
}

/** Most requests read from the store per round. */
const PAGE = 500;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Watches the tasks of `servers` (by name) until `options.signal` aborts. */
export async function watchTasks(
  servers: ReadonlyMap<string, Server>,
  options: WatchTasksOptions,
): Promise<WatchTasksSummary> {
  const { runs, signal } = options;
  const pollMs = options.pollMs ?? 1_000;
  const maxPollMs = options.maxPollMs ?? 30_000;
  const summary: WatchTasksSummary = { polls: 0, answered: 0, cancelled: 0 };
  /** Per waiting request: when its task is polled next, and the interval after that. */
  const schedule = new Map<string, { at: number; every: number }>();
  const cancelledSent = new Set<string>();
  const report = (thrown: unknown, server?: Server) => {
    const text = messageOf(thrown);
    options.onError?.(new Error(server === undefined ? text : server.scrub.text(text)));
  };
  const taskOf = (data: unknown) => {
    if (!isObject(data) || typeof data.server !== "string" || typeof data.taskId !== "string") {
      return undefined;
    }
    const server = servers.get(data.server);
    return server === undefined ? undefined : { server, taskId: data.taskId };
  };
  while (!signal.aborted) {
    try {
      const waiting = await runs.list({ kind: TASK_REQUEST_KIND, state: "waiting", limit: PAGE });
      const seen = new Set<string>();
      for (const { request } of waiting) {
        if (signal.aborted) break;
        const mine = taskOf(request.data);
        if (mine === undefined) continue;
        seen.add(request.id);
        const slot = schedule.get(request.id) ?? { at: 0, every: pollMs };
        if (Date.now() < slot.at) continue;
        const timeout = Math.max(pollMs, 10_000);
        try {
          summary.polls++;
          const task = await getTask(mine.server, mine.taskId, { timeout, signal });
          if (task.status === "working" || asksOnlyAnswered(task.inputRequests, request.data)) {
            const every = Math.min(Math.max(slot.every * 2, task.pollIntervalMs ?? 0), maxPollMs);
            schedule.set(request.id, { at: Date.now() + slot.every, every });
            continue;
          }
          await runs.answer({ id: request.id, ok: true, data: { status: task.status } });
          summary.answered++;
          schedule.delete(request.id);
        } catch (thrown) {
          if (signal.aborted) break;
          report(thrown, mine.server);
          if (thrown instanceof ProtocolError) {
            // The server refuses the task (unknown, expired): the run goes on, and the call
            // reports the server's error instead of waiting for ever.
            try {
              await runs.answer({ id: request.id, ok: true, data: { status: "unknown" } });
              summary.answered++;
            } catch (refused) {
              report(refused);
            }
            schedule.delete(request.id);
            continue;
          }
          schedule.set(request.id, {
            at: Date.now() + slot.every,
            every: Math.min(slot.every * 2, maxPollMs),
          });
        }
      }
      for (const id of schedule.keys()) if (!seen.has(id)) schedule.delete(id);
      // A run cancelled while it waited on a task: the server hears it (once per process).
      const cancelled = await runs.list({
        kind: TASK_REQUEST_KIND,
        state: "cancelled",
        limit: 100,
      });
      for (const { request } of cancelled) {
        const mine = taskOf(request.data);
        if (mine === undefined || cancelledSent.has(request.id) || signal.aborted) continue;
        cancelledSent.add(request.id);
        try {
          await cancelTask(mine.server, mine.taskId, { timeout: 10_000, signal });
          summary.cancelled++;
        } catch (thrown) {
          report(thrown, mine.server);
        }
      }
    } catch (thrown) {
      if (signal.aborted) break;
      report(thrown);
    }
    await pause(pollMs, signal);
  }
  return summary;
}
