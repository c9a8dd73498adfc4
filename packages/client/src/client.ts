import type { Message } from "@toolnexus/core";
import { type ResolvedConfig, resolveConfig } from "./config.js";
import { parseAnswers, recordAnswer, recordAnswers, settleRun, startDurable } from "./durable.js";
import { traced } from "./instrumentation.js";
import { freshStart, Run } from "./run.js";
import type {
  Client,
  ClientOptions,
  ResumeOptions,
  RunEvent,
  RunOptions,
  RunResult,
} from "./types.js";
import { work } from "./worker.js";

function startMessages(
  config: ResolvedConfig,
  prompt: string,
  history: readonly Message[] | undefined,
): Message[] {
  if (typeof prompt !== "string") throw new TypeError("run: the prompt must be a string");
  const messages: Message[] = [];
  if (config.systemPrompt !== undefined && history?.[0]?.role !== "system") {
    messages.push({ role: "system", content: config.systemPrompt });
  }
  if (history !== undefined) for (const message of history) messages.push(message);
  messages.push({ role: "user", content: prompt });
  return messages;
}

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

  const start = (
    prompt: string,
    runOptions: RunOptions,
    sink: ((event: RunEvent) => void) | undefined,
    streaming: boolean,
    history: readonly Message[] | undefined,
    conversation: boolean,
    signal: AbortSignal | undefined,
  ): Promise<RunResult> => {
    const messages = startMessages(config, prompt, history);
    const { runId } = runOptions;
    if (runId !== undefined && (typeof runId !== "string" || runId === "")) {
      throw new TypeError("run: runId must be a non-empty string");
    }
    const run = new Run(
      config,
      freshStart(runOptions.sessionId, messages, runOptions.extra, conversation, runId),
      signal,
      sink,
      streaming,
    );
    const { instrumentation } = config;
    if (instrumentation === undefined) {
      return runOptions.durable === true ? startDurable(config, run, signal) : run.loop();
    }
    run.trace = instrumentation.startRun({
      runId: run.runId,
      sessionId: run.sessionId,
      agent: config.agent,
      model: config.model.id,
      kind: "run",
      messages,
    });
    return traced(
      run.trace,
      runOptions.durable === true ? startDurable(config, run, signal) : run.loop(),
    );
  };

  const client: Client = {
    runs: config.runs,
    conversations: config.conversations,

    run(prompt, runOptions = {}) {
      try {
        return start(
          prompt,
          runOptions,
          undefined,
          false,
          runOptions.history,
          false,
          runOptions.signal,
        );
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    },

    async ask(prompt, runOptions = {}) {
      const { sessionId } = runOptions;
      if (sessionId === undefined) return client.run(prompt, runOptions);
      const saved = await config.conversations.load(sessionId);
      const history = [...(saved ?? []), ...(runOptions.history ?? [])];
      return start(prompt, runOptions, undefined, false, history, true, runOptions.signal);
    },

    stream(prompt, runOptions = {}) {
      return eventStream(
        (sink, signal) => start(prompt, runOptions, sink, true, runOptions.history, false, signal),
        runOptions.signal,
      );
    },

    async resume(given, resumeOptions: ResumeOptions = {}) {
      const answers = parseAnswers(given);
      const runId = await recordAnswers(config, answers);
      return settleRun(config, runId, resumeOptions.signal, undefined);
    },

    async answer(given) {
      return recordAnswer(config, given);
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
      if (outer !== undefined) {
        if (outer.aborted) controller.abort(outer.reason);
        else outer.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
      }
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
        begin((event) => {
          queue.push(event);
          notify();
        }, controller.signal).then(
          () => {
            finished = true;
            notify();
          },
          (thrown: unknown) => {
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
          if (!finished)
            controller.abort(new DOMException("the stream consumer stopped", "AbortError"));
          finished = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
