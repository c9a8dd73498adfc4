// The Fetch API handler AG-UI's HttpAgent posts to: a RunAgentInput in, the run's AG-UI events
// out as Server-Sent Events. Without `resume` it starts a run (the host's `start`); with it, it
// records the answers to the interrupts the last run ended on. Either way it then only follows
// the store, so whichever process (or worker) runs the run, the stream shows it.
import type { AGUIEvent, RunAgentInput } from "@ag-ui/core";
import type { RunInfo } from "@toolnexus/core";
import {
  type AccessCheck,
  checkOrigin,
  errorResponse,
  identifyCaller,
  internalResponse,
  permits,
  readJson,
  reportError,
  runAccessOf,
  sseResponse,
  type WebCaller,
  WebError,
} from "@toolnexus/web";
import { followAsAgUiIf } from "./follow.js";
import { checkRunAgentInput } from "./input.js";
import {
  type AgUiHandlerOptions,
  type ResolvedAgUiOptions,
  resolveAgUiOptions,
} from "./options.js";
import { resumeRun } from "./resume.js";

/** A standard Fetch API handler: mount it in Hono, Next.js, Bun, Deno, or `toNodeListener`. */
export type AgUiHandler = (request: Request) => Promise<Response>;

/**
 * Makes the handler. Options are checked now (a TypeError names a bad one). Refusals before the
 * stream starts are JSON `{ error: { code, message, issues? } }` with their status (HttpAgent
 * rejects with an error carrying `status` and that body); failures after it are RUN_ERROR.
 */
export function createAgUiHandler<C extends WebCaller>(
  options: AgUiHandlerOptions<C>,
): AgUiHandler {
  const resolved = resolveAgUiOptions(options);
  return async (request) => {
    try {
      return await handle(resolved, request);
    } catch (error) {
      if (error instanceof WebError) return errorResponse(error);
      return internalResponse(reportError(resolved.onError, "@toolnexus/ag-ui", request, error));
    }
  };
}

async function handle<C extends WebCaller>(
  options: ResolvedAgUiOptions<C>,
  request: Request,
): Promise<Response> {
  const url = new URL(request.url);
  if (options.path !== undefined && url.pathname !== options.path) {
    throw new WebError(404, "not_found", "nothing is served here");
  }
  if (request.method !== "POST") {
    throw new WebError(405, "method_not_allowed", "POST a RunAgentInput here", {
      headers: { allow: "POST" },
    });
  }
  checkOrigin(request, url, options.allowedOrigins);
  const caller = await identifyCaller(options.identify, request);
  // A slot is taken before anything is started or recorded, and freed when its stream ends.
  const release = options.streams.take(caller.id);
  try {
    return await stream(options, request, caller, release);
  } catch (error) {
    release();
    throw error;
  }
}

async function stream<C extends WebCaller>(
  options: ResolvedAgUiOptions<C>,
  request: Request,
  caller: C,
  release: () => void,
): Promise<Response> {
  const input = checkRunAgentInput(await readJson(request, options.maxBodyBytes));
  const { store } = options;
  if (typeof store.readEvents !== "function") {
    throw new WebError(501, "not_implemented", "this server's store does not record run events");
  }
  const check: AccessCheck<C> = { store, caller, allow: options.allow };
  const { runId, after } =
    input.resume !== undefined && input.resume.length > 0
      ? await resumeRun(check, input.resume)
      : { runId: await start(options, check, input, request), after: 0 };
  // Whatever run id `start` returned (one built from the browser's input may name someone
  // else's run), the stream shows a run only to a caller `allow` lets follow it.
  const mayFollow = (run: RunInfo) => permits(check, runAccessOf("follow", run));

  // The client going away (the request's signal, or only the body cancelled) stops the follower.
  const events = (gone: AbortSignal) =>
    followAsAgUiIf(
      store,
      runId,
      {
        threadId: input.threadId,
        runId: input.runId,
        after,
        signal: gone,
        pollMs: options.pollMs,
        maxEvents: options.maxStreamEvents,
        maxMs: options.maxStreamMs,
        waitForRunMs: options.waitForRunMs,
        onError: (error) => reportError(options.onError, "@toolnexus/ag-ui", request, error),
      },
      mayFollow,
    );
  return sseResponse({
    frames: (gone) => framesOf(events(gone)),
    signal: request.signal,
    heartbeatMs: options.heartbeatMs,
    onClose: release,
    onError: (error) => reportError(options.onError, "@toolnexus/ag-ui", request, error),
  });
}

/** Each event as the SSE frame HttpAgent reads: one `data:` line of JSON, then a blank line. */
async function* framesOf(events: AsyncIterable<AGUIEvent>): AsyncGenerator<string> {
  for await (const event of events) yield `data: ${JSON.stringify(event)}\n\n`;
}

async function start<C extends WebCaller>(
  options: ResolvedAgUiOptions<C>,
  check: AccessCheck<C>,
  input: RunAgentInput,
  request: Request,
): Promise<string> {
  const { caller } = check;
  if (options.start === undefined) {
    throw new WebError(
      501,
      "not_implemented",
      "this server does not start runs; it only resumes them",
    );
  }
  const { allow } = options;
  if (allow === undefined || (await allow(caller, { action: "start" })) !== true) {
    throw new WebError(403, "forbidden", "you may not start runs here");
  }
  const started = await options.start({ caller, input, request });
  if (typeof started?.runId !== "string" || started.runId === "") {
    throw new TypeError("start must return { runId: string }");
  }
  // A run already in the store is streamed only to a caller who may follow it: a start that
  // failed because the id was taken (by someone else's run) must not show that run. A run not
  // stored yet is checked by the stream once it appears.
  const run = await check.store.getRun(started.runId);
  if (run !== undefined && !(await permits(check, runAccessOf("follow", run)))) {
    throw new WebError(
      404,
      "not_found",
      "the run started for this request is not in the store (or it is not yours to see)",
    );
  }
  return started.runId;
}
