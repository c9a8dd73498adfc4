// Talking to a toolnexus workflow through Restate's ingress, from any process: start a run, list
// what it waits for, answer it, and wait for its result.
import type { RunResult } from "@toolnexus/client";
import {
  type Answer,
  type AwaitedRequest,
  checkDurableAnswerSize,
  checkId,
  credentialParts,
  parseAnswer,
  Scrubber,
  ToolnexusError,
  textHead,
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

/** How much of a failed response's text (or its JSON `message`) an error quotes. */
const MAX_QUOTED_CHARS = 500;

/**
 * The response's body as text, read as it comes: past `maxBytes` the rest is cancelled (not
 * read) and the call fails, so a huge answer never sits in memory whole.
 */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      // Not awaited: the connection is dropped; nothing more of it is wanted.
      reader.cancel().catch(() => undefined);
      throw new ToolnexusError(
        "ingress_failed",
        `the ingress answered more than ${maxBytes} bytes`,
      );
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * What the caller's headers carry that an ingress or a proxy in front of it may echo: every
 * value, and an authorization value's token (`Bearer <token>`, a Basic credential's parts).
 */
function headerSecrets(headers: Record<string, string> | undefined): Scrubber {
  const values = Object.values(headers ?? {}).filter(
    (value): value is string => typeof value === "string",
  );
  return new Scrubber(values.flatMap((value) => [value, ...credentialParts(value)]));
}

/** At most MAX_QUOTED_CHARS of `text`, not ending in half a surrogate pair. */
function quoted(text: string): string {
  return text.length <= MAX_QUOTED_CHARS ? text : `${textHead(text, MAX_QUOTED_CHARS)}…`;
}

/**
 * The error for a failed response: its JSON `message`, or its text, without the values of the
 * caller's headers (a proxy may echo the credential it refused), then cut.
 */
function failure(status: number, path: string, text: string, scrubber: Scrubber): ToolnexusError {
  const scrubbed = scrubber.text(text);
  let message = scrubbed;
  try {
    const given = (JSON.parse(scrubbed) as { message?: unknown } | null)?.message;
    // JSON.parse undoes escapes the scrubbing matched as a whole: scrubbed again all the same.
    if (typeof given === "string") message = scrubber.text(given);
  } catch {
    // Not JSON: the text as it came.
  }
  return new ToolnexusError(
    "ingress_failed",
    `Restate ingress ${status} on ${path}: ${quoted(message)}`,
  );
}

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
  const text = await readCapped(response, MAX_RESPONSE_BYTES);
  if (!response.ok) throw failure(response.status, path, text, headerSecrets(options.headers));
  return text === "" ? undefined : JSON.parse(text);
}

/**
 * Checks a run id before anything is sent: a non-empty string that core's run stores could keep
 * (`checkId`: at most MAX_STORE_ID_CHARS, no NUL, no unpaired surrogate). The workflow's run
 * keeps its state in such a store, so a run under another id could never save its checkpoint,
 * and Restate would retry it forever.
 */
function checkRunId(runId: string): void {
  if (typeof runId !== "string" || runId === "")
    throw new TypeError("the run id must be a non-empty string");
  checkId(runId, "runId");
}

function path(options: IngressOptions, runId: string, handler: string): string {
  checkRunId(runId);
  return `/${encodeURIComponent(options.service ?? DEFAULT_SERVICE)}/${encodeURIComponent(runId)}/${handler}`;
}

function handle(ingress: IngressConnection, options: IngressOptions, runId: string) {
  checkRunId(runId);
  return ingress.workflowClient({ name: options.service ?? DEFAULT_SERVICE }, runId) as Record<
    string,
    (input?: unknown) => Promise<unknown>
  >;
}

/**
 * Starts the run `runId` (a workflow runs once per id: submitting it again attaches to the same
 * run). Resolves once Restate accepted it, not when it ends (see {@link attachRun}). A run id or
 * session id past core's `checkId` (more than MAX_STORE_ID_CHARS, a NUL, an unpaired surrogate)
 * throws an `InvalidIdError` (`invalid_id`) before anything is sent.
 */
export async function submitRun(
  ingress: string,
  runId: string,
  input: RunInput,
  options: IngressOptions = {},
): Promise<void> {
  checkRunId(runId);
  checkId((input as Partial<RunInput> | null | undefined)?.sessionId, "sessionId");
  await post(ingress, `${path(options, runId, "run")}/send`, input, options);
}

/** Waits for the run's end and returns its result (done or incomplete). */
export async function attachRun(
  ingress: string,
  runId: string,
  options: IngressOptions = {},
): Promise<RunResult> {
  checkRunId(runId);
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
 * recorded (`recorded: false`). The answer is checked (`parseAnswer`, its size, its id with
 * core's `checkId`) and so is the run id, before anything is sent.
 */
export async function answerRun(
  ingress: IngressTarget,
  runId: string,
  answer: Answer,
  options: IngressOptions = {},
): Promise<AnswerReceipt> {
  checkRunId(runId);
  const checked = parseAnswer(answer);
  checkId(checked.id, "answer.id");
  checkDurableAnswerSize(checked);
  if (typeof ingress === "string") {
    return (await post(ingress, path(options, runId, "answer"), checked, options)) as AnswerReceipt;
  }
  return (await handle(ingress, options, runId).answer!(checked)) as AnswerReceipt;
}
