// Starting a run from a prompt, shared by run, ask, stream and sub-agents (agentTool).
import type { Message } from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { startDurable } from "./durable.js";
import { traced } from "./instrumentation.js";
import { checkRequester } from "./policy.js";
import { freshStart, Run } from "./run-state.js";
import { loop } from "./turn-loop.js";
import type { Client, RunEvent, RunOptions, RunResult } from "./types.js";

/** How a run starts, besides its prompt and options. */
export interface StartHow {
  history?: readonly Message[];
  /** `ask`: the transcript is saved under the session when the run finishes. */
  conversation?: boolean;
  /** Receives the run's events (a stream, or a parent agent's run). */
  sink?: (event: RunEvent) => void;
  streaming?: boolean;
  /** Overrides `options.signal` (a stream's own controller). */
  signal?: AbortSignal;
}

// Each client's resolved configuration, for the package's own helpers (agentTool): a hidden
// property of the client, not a WeakMap entry, because V8 keeps a WeakMap's values alive
// through every young-generation GC, so each short-lived client (and its store) reached the old
// generation and cost a full GC (about 2/3 of createClient's time on Node 20).
const CONFIG = Symbol("toolnexus.config");

export function registerConfig(client: Client, config: ResolvedConfig): void {
  Object.defineProperty(client, CONFIG, { value: config });
}

/** The configuration of a client made by createClient. */
export function configOf(client: Client): ResolvedConfig {
  const config =
    typeof client === "object" && client !== null
      ? (client as Client & { [CONFIG]?: ResolvedConfig })[CONFIG]
      : undefined;
  if (config === undefined) {
    throw new TypeError("expected a client made by createClient from @toolnexus/client");
  }
  return config;
}

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

export function startRun(
  config: ResolvedConfig,
  prompt: string,
  options: RunOptions,
  how: StartHow,
): Promise<RunResult> {
  const messages = startMessages(config, prompt, how.history);
  const { runId } = options;
  if (runId !== undefined && (typeof runId !== "string" || runId === "")) {
    throw new TypeError("run: runId must be a non-empty string");
  }
  const signal = how.signal ?? options.signal;
  const start = freshStart(
    options.sessionId,
    messages,
    options.extra,
    how.conversation === true,
    runId,
  );
  if (options.requester !== undefined) start.requester = checkRequester(options.requester);
  const run = new Run(config, start, signal, how.sink, how.streaming === true);
  const { instrumentation } = config;
  if (instrumentation === undefined) {
    return options.durable === true ? startDurable(config, run, signal) : loop(run);
  }
  run.trace = instrumentation.startRun({
    runId: run.runId,
    sessionId: run.sessionId,
    agent: config.agent,
    model: config.model.id,
    provider: config.model.provider,
    kind: "run",
    messages,
  });
  return traced(
    run.trace,
    options.durable === true ? startDurable(config, run, signal) : loop(run),
  );
}
