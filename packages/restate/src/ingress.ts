// Talking to a toolnexus workflow through Restate's ingress, from any process: start a run, list
// what it waits for, answer it, and wait for its result.
import type { RunResult } from "@toolnexus/client";
import {
  type Answer,
  type AwaitedRequest,
  checkDurableAnswerSize,
  parseAnswer,
  ToolnexusError,
} from "@toolnexus/core";
import { type AnswerReceipt, DEFAULT_SERVICE, type RunInput } from "./workflow.js";

/**
 * Where the ingress is: its URL (`http://127.0.0.1:8080`), or a connection from
 * `@restatedev/restate-sdk-clients` (`clients.connect({ url })`).
 */
export type IngressTarget = string | IngressConnection;

/** The part of a restate-sdk-clients `Ingress` these helpers use. */
export interface IngressConnection {
  workflowClient(definition: { name: string }, key: string): unknown;
}

/** Options of the ingress helpers. */
export interface IngressOptions {
  /** The workflow's name, when it was given one. Default `toolnexus`. */
  service?: string;
  /** Headers for every request (an ingress behind an authenticating proxy). */
  headers?: Record<string, string>;
}

/** Largest ingress response read, in bytes: a run's result with its transcript fits. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

async function post(
  url: string,
  path: string,
  body: unknown,
  options: IngressOptions,
  method = "POST",
): Promise<unknown> {
  const response = await fetch(`${url.replace(/\/+$/, "")}${path}`, {
    method,
    headers: { "content-type": "application/json", ...options.headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) {
    throw new ToolnexusError(
      "ingress_failed",
      `the ingress answered more than ${MAX_RESPONSE_BYTES} bytes`,
    );
  }
  if (!response.ok) {
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new ToolnexusError(
      "ingress_failed",
      `Restate ingress ${response.status} on ${path}: ${message}`,
    );
  }
  return text === "" ? undefined : JSON.parse(text);
}

function path(options: IngressOptions, runId: string, handler: string): string {
  if (typeof runId !== "string" || runId === "")
    throw new TypeError("the run id must be a non-empty string");
  return `/${encodeURIComponent(options.service ?? DEFAULT_SERVICE)}/${encodeURIComponent(runId)}/${handler}`;
}

function handle(ingress: IngressConnection, options: IngressOptions, runId: string) {
  return ingress.workflowClient({ name: options.service ?? DEFAULT_SERVICE }, runId) as Record<
    string,
    (input?: unknown) => Promise<unknown>
  >;
}

/**
 * Starts the run `runId` (a workflow runs once per id: submitting it again attaches to the same
 * run). Resolves once Restate accepted it, not when it ends (see {@link attachRun}).
 */
export async function submitRun(
  ingress: string,
  runId: string,
  input: RunInput,
  options: IngressOptions = {},
): Promise<void> {
  await post(ingress, `${path(options, runId, "run")}/send`, input, options);
}

/** Waits for the run's end and returns its result (done or incomplete). */
export async function attachRun(
  ingress: string,
  runId: string,
  options: IngressOptions = {},
): Promise<RunResult> {
  const service = encodeURIComponent(options.service ?? DEFAULT_SERVICE);
  return (await post(
    ingress,
    `/restate/workflow/${service}/${encodeURIComponent(runId)}/attach`,
    undefined,
    options,
    "GET",
  )) as RunResult;
}

/** The requests the run waits for now (empty while it works or once it ended). */
export async function waitingRequests(
  ingress: IngressTarget,
  runId: string,
  options: IngressOptions = {},
): Promise<AwaitedRequest[]> {
  const got =
    typeof ingress === "string"
      ? await post(ingress, path(options, runId, "requests"), undefined, options)
      : await handle(ingress, options, runId).requests!();
  return (got as AwaitedRequest[] | undefined) ?? [];
}

/**
 * Records a human's answer for the run `runId`, by its request id. An answer may come before the
 * run reaches its question (it is kept until then); a second answer to the same request is not
 * recorded (`recorded: false`). The answer is checked (`parseAnswer`) before it is sent.
 */
export async function answerRun(
  ingress: IngressTarget,
  runId: string,
  answer: Answer,
  options: IngressOptions = {},
): Promise<AnswerReceipt> {
  const checked = parseAnswer(answer);
  checkDurableAnswerSize(checked);
  if (typeof ingress === "string") {
    return (await post(ingress, path(options, runId, "answer"), checked, options)) as AnswerReceipt;
  }
  return (await handle(ingress, options, runId).answer!(checked)) as AnswerReceipt;
}
