import {
  type Answer,
  assertCheckpoint,
  type Checkpoint,
  CheckpointError,
  type Message,
  parseAnswer,
  ToolnexusError,
} from "@toolnexus/core";
import { type ResolvedConfig, resolveConfig } from "./config.js";
import { fingerprint } from "./fingerprint.js";
import { freshStart, Run } from "./run.js";
import type {
  Client,
  ClientOptions,
  ResumeOptions,
  RunEvent,
  RunOptions,
  RunResult,
} from "./types.js";

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

/** Checks that a checkpoint can be resumed with these answers by this client, before claiming it. */
function validateResume(
  config: ResolvedConfig,
  checkpoint: Checkpoint,
  answers: readonly Answer[],
): void {
  for (const answer of answers) {
    const waiting = checkpoint.pending.find((call) => call.request.id === answer.id);
    if (waiting === undefined) {
      throw new ToolnexusError(
        "answers_mismatch",
        `answers "${answers[0]!.id}" and "${answer.id}" belong to different halted runs; resume them separately`,
      );
    }
    const tool = config.tools.get(waiting.tool);
    if (tool === undefined) {
      throw new CheckpointError(
        answer.id,
        `tool "${waiting.tool}" is not registered with this client; register it to resume this run`,
      );
    }
    if (fingerprint(waiting.tool, waiting.args) !== waiting.fingerprint) {
      throw new CheckpointError(
        answer.id,
        `the arguments stored for call ${waiting.callId} do not match its fingerprint; the checkpoint was altered`,
      );
    }
    const inTranscript = checkpoint.messages.some(
      (message) =>
        message.role === "assistant" &&
        message.toolCalls?.some((call) => call.id === waiting.callId && call.name === waiting.tool),
    );
    if (!inTranscript) {
      throw new CheckpointError(
        answer.id,
        `call ${waiting.callId} to "${waiting.tool}" is not in the transcript`,
      );
    }
  }
}

/**
 * Creates the loop: it calls the model, runs the tools it asks for with a filled-in
 * ToolContext and enforced budgets, and suspends for humans, in-process (`waitFor`) or durably
 * (the run halts with `status: "pending"` and `resume(answer)` continues it).
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
    const run = new Run(
      config,
      freshStart(runOptions.sessionId, messages, runOptions.extra, conversation),
      signal,
      sink,
      streaming,
    );
    return run.loop();
  };

  const client: Client = {
    suspensions: config.suspensions,
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
      const list = Array.isArray(given) ? given : [given];
      if (list.length === 0)
        throw new TypeError("resume: pass an Answer or a non-empty array of Answers");
      const answers = list.map((answer) => parseAnswer(answer));
      const seen = new Set<string>();
      for (const answer of answers) {
        if (seen.has(answer.id)) {
          throw new ToolnexusError(
            "answers_mismatch",
            `request "${answer.id}" is answered twice in one resume`,
          );
        }
        seen.add(answer.id);
      }
      const firstId = answers[0]!.id;
      const store = config.suspensions;
      const found = await store.get(firstId);
      let checkpoint: Checkpoint;
      if (found === undefined) {
        // Nothing waits on this id: the store's claim says precisely why (unknown, or resumed).
        checkpoint = await store.claim(firstId);
        assertCheckpoint(checkpoint, firstId);
        validateResume(config, checkpoint, answers);
      } else {
        assertCheckpoint(found, firstId);
        validateResume(config, found, answers);
        checkpoint = await store.claim(firstId);
        assertCheckpoint(checkpoint, firstId);
        if (checkpoint.id !== found.id) validateResume(config, checkpoint, answers);
      }
      const run = new Run(
        config,
        {
          runId: checkpoint.runId,
          sessionId: checkpoint.sessionId,
          messages: checkpoint.messages,
          turns: checkpoint.turns,
          usage: checkpoint.usage,
          runExtra: checkpoint.extra,
          conversation: checkpoint.conversation === true,
        },
        resumeOptions.signal,
        undefined,
        false,
      );
      return run.resume(checkpoint, new Map(answers.map((answer) => [answer.id, answer])));
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
