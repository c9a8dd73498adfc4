import { resolveConfig } from "./config.js";
import { parseAnswers, recordAnswer, recordAnswers, settleRun } from "./durable.js";
import { engineRunOnly, runUnderEngine } from "./engine-run.js";
import { cancel, follow } from "./follow-cancel.js";
import { registerConfig, startRun } from "./start.js";
import type { Client, ClientOptions, ResumeOptions, RunEvent, RunResult } from "./types.js";
import { work } from "./worker.js";

/**
 * Creates the loop: it calls the model, runs the tools it asks for with a filled-in
 * ToolContext and enforced budgets, and suspends for humans, in-process (`waitFor`) or durably
 * (the run halts with `status: "pending"`; `answer` records the human's answer and `resume`
 * or a worker continues it, in this process or another).
 *
 * @example
 * const client = createClient({ model, tools: [add] });
 * const result = await client.run("What is 2 + 3?");
 * if (result.status === "done") console.log(result.text);
 */
export function createClient(options: ClientOptions): Client {
  const config = resolveConfig(options);

  const client: Client = {
    runs: config.runs,
    conversations: config.conversations,

    run(prompt, runOptions = {}) {
      try {
        if (runOptions.durability !== undefined) return runUnderEngine(config, prompt, runOptions);
        return startRun(config, prompt, runOptions, { history: runOptions.history });
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    },

    async ask(prompt, runOptions = {}) {
      const { sessionId } = runOptions;
      if (runOptions.durability !== undefined) throw engineRunOnly("ask");
      if (sessionId === undefined) return client.run(prompt, runOptions);
      const saved = await config.conversations.load(sessionId);
      const history = [...(saved ?? []), ...(runOptions.history ?? [])];
      return startRun(config, prompt, runOptions, { history, conversation: true });
    },

    stream(prompt, runOptions = {}) {
      return eventStream(
        (sink, signal) =>
          runOptions.durability !== undefined
            ? Promise.reject(engineRunOnly("stream"))
            : startRun(config, prompt, runOptions, {
                history: runOptions.history,
                sink,
                streaming: true,
                signal,
              }),
        runOptions.signal,
      );
    },

    async resume(given, resumeOptions: ResumeOptions = {}) {
      const answers = parseAnswers(given);
      const runId = await recordAnswers(config, answers, resumeOptions.by);
      return settleRun(config, runId, resumeOptions.signal, undefined);
    },

    async answer(given, answerOptions) {
      return recordAnswer(config, given, answerOptions?.by);
    },

    follow(runId, followOptions) {
      return follow(config, runId, followOptions);
    },

    async cancel(runId, request) {
      return cancel(config, runId, request);
    },

    async continueRun(runId, resumeOptions: ResumeOptions = {}) {
      if (typeof runId !== "string" || runId === "") {
        throw new TypeError("continueRun: pass the run's id (RunResult.runId)");
      }
      return settleRun(config, runId, resumeOptions.signal, undefined);
    },

    async getRun(runId) {
      return config.runs.getRun(runId);
    },

    work(options) {
      return work(config, options);
    },
  };
  registerConfig(client, config);
  return client;
}

/**
 * Adapts a push-style run (events through a callback) to an async iterable. Breaking out of the
 * loop early cancels the run.
 */
function eventStream(
  begin: (sink: (event: RunEvent) => void, signal: AbortSignal) => Promise<RunResult>,
  outer: AbortSignal | undefined,
): AsyncIterable<RunEvent> {
  return {
    [Symbol.asyncIterator]() {
      const controller = new AbortController();
      // The caller's signal is linked only while the run goes on: a long-lived signal shared by
      // many streams must not keep one listener (and its run) per stream.
      const onOuterAbort = () => controller.abort(outer?.reason);
      const unlink = () => outer?.removeEventListener("abort", onOuterAbort);
      const queue: RunEvent[] = [];
      let failure: { error: unknown } | undefined;
      let finished = false;
      let wake: (() => void) | undefined;
      const notify = () => {
        wake?.();
        wake = undefined;
      };
      let started = false;
      const ensureStarted = () => {
        if (started) return;
        started = true;
        if (outer?.aborted) controller.abort(outer.reason);
        else outer?.addEventListener("abort", onOuterAbort, { once: true });
        begin((event) => {
          queue.push(event);
          notify();
        }, controller.signal).then(
          () => {
            unlink();
            finished = true;
            notify();
          },
          (thrown: unknown) => {
            unlink();
            failure = { error: thrown };
            finished = true;
            notify();
          },
        );
      };
      return {
        async next(): Promise<IteratorResult<RunEvent>> {
          ensureStarted();
          for (;;) {
            const event = queue.shift();
            if (event !== undefined) return { value: event, done: false };
            if (failure !== undefined) {
              const { error } = failure;
              failure = undefined;
              throw error;
            }
            if (finished) return { value: undefined, done: true };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<RunEvent>> {
          unlink();
          if (!finished)
            controller.abort(new DOMException("the stream consumer stopped", "AbortError"));
          finished = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
