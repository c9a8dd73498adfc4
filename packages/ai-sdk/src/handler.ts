// The Fetch API handler `DefaultChatTransport` talks to, unchanged: `POST {api}` (a new user
// message starts a run; a tool approval the person answered is recorded as the Answer) streams
// the run's message, and `GET {api}/{chatId}/stream` resumes it after a reload (204 when the
// chat has nothing running). The run goes on wherever a worker takes it: this only follows
// the store. Callers and permissions work as in @toolnexus/web.
import {
  type Answer,
  checkId,
  type RequestInfo,
  type RunInfo,
  type Request as ToolnexusRequest,
} from "@toolnexus/core";
import {
  type AccessCheck,
  answerStoreRefusal,
  authorizeRequest,
  authorizeRun,
  checkAnswer,
  checkOrigin,
  errorResponse,
  identifyCaller,
  idOf,
  internalResponse,
  permits,
  readJson,
  recordAnswer,
  reportError,
  runAccessOf,
  type WebCaller,
  WebError,
} from "@toolnexus/web";
import {
  approvalResponsesOf,
  type ChatMessage,
  type ChatRequestBody,
  chatRequestOf,
  textOf,
} from "./chat-body.js";
import { chatRunKey } from "./chat-runs.js";
import { suspensionOffset } from "./follow.js";
import {
  type ChatHandlerOptions,
  type ResolvedChatOptions,
  resolveChatOptions,
} from "./options.js";
import { type MayFollow, streamResponse } from "./stream-response.js";

/** A standard Fetch API handler. */
export type ChatHandler = (request: Request) => Promise<Response>;

const ENDED = new Set(["done", "failed", "cancelled"]);

/** Makes the handler; options are checked now (a TypeError names a bad one). */
export function createChatHandler<C extends WebCaller>(
  options: ChatHandlerOptions<C>,
): ChatHandler {
  const resolved = resolveChatOptions(options);
  return async (request) => {
    try {
      return await handle(resolved, request);
    } catch (error) {
      if (error instanceof WebError) return errorResponse(error);
      return internalResponse(reportError(resolved.onError, "@toolnexus/ai-sdk", request, error));
    }
  };
}

interface Context<C extends WebCaller> {
  options: ResolvedChatOptions<C>;
  request: Request;
  caller: C;
  check: AccessCheck<C>;
  /** Frees this request's stream slot (once its stream ends). */
  release: () => void;
}

async function handle<C extends WebCaller>(
  options: ResolvedChatOptions<C>,
  request: Request,
): Promise<Response> {
  const url = new URL(request.url);
  const { api } = options;
  // `{api}` takes POST; `{api}/{chatId}/stream` takes GET (DefaultChatTransport's resume).
  const rest =
    url.pathname === api || url.pathname.startsWith(`${api}/`)
      ? url.pathname.slice(api.length)
      : undefined;
  const streamOf = rest === undefined ? null : /^\/([^/]+)\/stream\/?$/.exec(rest);
  if (streamOf === null && rest !== "" && rest !== "/") {
    throw new WebError(404, "not_found", "no such route");
  }
  const method = streamOf ? "GET" : "POST";
  if (request.method !== method) {
    throw new WebError(405, "method_not_allowed", `use ${method} here`, {
      headers: { allow: method },
    });
  }
  if (method === "POST") checkOrigin(request, url, options.allowedOrigins);
  const caller = await identifyCaller(options.identify, request);
  // A slot is taken before anything is started or recorded, and freed when its stream ends.
  const release = options.streams.take(caller.id);
  const ctx: Context<C> = {
    options,
    request,
    caller,
    check: { store: options.store, caller, allow: options.allow },
    release,
  };
  try {
    const response = await route(ctx, streamOf);
    if (response.status !== 200) release(); // a 204: nothing to stream
    return response;
  } catch (error) {
    release();
    throw error;
  }
}

async function route<C extends WebCaller>(
  ctx: Context<C>,
  streamOf: RegExpExecArray | null,
): Promise<Response> {
  const { options, request } = ctx;
  if (streamOf) return resume(ctx, idOf(streamOf[1]!, "chat"));
  const body = chatRequestOf(await readJson(request, options.maxBodyBytes), options.maxMessages);
  if (body.trigger === "regenerate-message") {
    throw new WebError(
      400,
      "bad_request",
      "regenerating is not supported: a run's recorded steps cannot be redone; send a new message",
    );
  }
  const last = body.messages[body.messages.length - 1]!;
  if (last.role === "user") return startRun(ctx, body, last);
  if (last.role === "assistant") return respond(ctx, body, last);
  throw new WebError(400, "bad_request", "the last message must be the user's or the assistant's");
}

function stream<C extends WebCaller>(
  ctx: Context<C>,
  runId: string,
  after: number,
  waitForRunMs = 0,
  mayFollow?: MayFollow,
): Response {
  const { options, request } = ctx;
  return streamResponse({
    store: options.store,
    runId,
    after,
    signal: request.signal,
    waitForRunMs,
    heartbeatMs: options.heartbeatMs,
    pollMs: options.pollMs,
    maxStreamMs: options.maxStreamMs,
    onClose: ctx.release,
    onError: (error) => reportError(options.onError, "@toolnexus/ai-sdk", request, error),
    ...(mayFollow === undefined ? {} : { mayFollow }),
  });
}

/** A new user message: the host starts a run, and the stream follows it from its first event. */
async function startRun<C extends WebCaller>(
  ctx: Context<C>,
  body: ChatRequestBody,
  message: ChatMessage,
): Promise<Response> {
  const { options, caller, request } = ctx;
  if (!(await permits(ctx.check, { action: "start" }))) {
    throw new WebError(403, "forbidden", "you may not start runs here");
  }
  const prompt = textOf(message);
  if (prompt.trim() === "") {
    throw new WebError(400, "bad_request", "the new message has no text");
  }
  if (prompt.length > options.maxPromptChars) {
    throw new WebError(
      413,
      "payload_too_large",
      `the message is over the ${options.maxPromptChars} characters accepted`,
    );
  }
  const started = await options.start({
    caller,
    chatId: body.chatId,
    prompt,
    message,
    messages: body.messages,
    body: body.raw,
    request,
  });
  if (typeof started?.runId !== "string" || started.runId === "") {
    throw new TypeError("start must return { runId: string }");
  }
  // Whatever run id `start` returned (a taken one names someone else's run), the stream shows a
  // run only to a caller `allow` lets follow it: one already stored is checked now, one not
  // stored yet by the stream once it appears.
  const mayFollow = (run: RunInfo) => permits(ctx.check, runAccessOf("follow", run));
  const run = await options.store.getRun(started.runId);
  if (run !== undefined && !(await mayFollow(run))) {
    throw new WebError(
      404,
      "not_found",
      "the run started for this message is not in the store (or it is not yours to see)",
    );
  }
  await options.chats.set(chatRunKey(caller.id, body.chatId), started.runId);
  return stream(ctx, started.runId, 0, options.startTimeoutMs, mayFollow);
}

/**
 * The person answered tool approvals (`addToolApprovalResponse`): each becomes the Answer
 * `{ ok: approved }` (`reason: "declined"` when not, the person's words as `data.reason`), by
 * the caller; the stream goes on after the suspension that asked. Every approval is checked
 * (the caller's, a tool approval, one run, followable, an approver the policy accepts, an answer
 * a store keeps) before the first is recorded: a refused POST records nothing. Only the store
 * failing between two recordings leaves the ones before recorded.
 */
async function respond<C extends WebCaller>(
  ctx: Context<C>,
  body: ChatRequestBody,
  message: ChatMessage,
): Promise<Response> {
  const { options, caller } = ctx;
  const responses = approvalResponsesOf(message);
  if (responses.length === 0) {
    throw new WebError(
      400,
      "bad_request",
      "nothing to do: the last message is the assistant's and answers no tool approval",
    );
  }
  let run: RunInfo | undefined;
  const toRecord: { request: ToolnexusRequest; answer: Answer }[] = [];
  for (const response of responses) {
    const { info, run: of } = await authorizeApproval(ctx.check, response.approvalId);
    if (info.request.kind !== "approval") {
      throw new WebError(
        400,
        "bad_request",
        "this request is not a tool approval; answer it with POST /requests/:id/answer",
      );
    }
    if (run !== undefined && run.runId !== of.runId) {
      throw new WebError(400, "bad_request", "the approvals belong to different runs");
    }
    run = of;
    if (info.state !== "waiting") continue; // answered already (this response, or by someone else)
    const answer: Answer = { id: response.approvalId, ok: response.approved };
    if (!response.approved) answer.reason = "declined";
    if (response.reason !== undefined) answer.data = { reason: response.reason };
    toRecord.push({ request: info.request, answer });
  }
  await authorizeRun(ctx.check, run!.runId, "follow");
  // The caller's id is the host's (identify): one no store can keep is the host's bug, a 500.
  checkId(caller.id, "by");
  for (const { request, answer } of toRecord) checkAnswer(request, answer, caller.id);

  for (const { request, answer } of toRecord) {
    try {
      await recordAnswer(options.store, request, answer, caller.id);
    } catch (error) {
      // Answered meanwhile, expired or cancelled: the stream shows what the run did instead.
      if (error instanceof WebError && error.code === "answer_conflict") continue;
      throw answerStoreRefusal(error, "the approval id") ?? error;
    }
  }
  await options.chats.set(chatRunKey(caller.id, body.chatId), run!.runId);
  const after = await suspensionOffset(
    options.store,
    run!.runId,
    responses.map((r) => r.approvalId),
  );
  return stream(ctx, run!.runId, after ?? 0);
}

/** {@link authorizeRequest} for `answer`, an id no store can keep being the caller's 400. */
async function authorizeApproval<C extends WebCaller>(
  check: AccessCheck<C>,
  approvalId: string,
): Promise<{ info: RequestInfo; run: RunInfo }> {
  try {
    return await authorizeRequest(check, approvalId, "answer");
  } catch (error) {
    throw answerStoreRefusal(error, "the approval id") ?? error;
  }
}

/** `useChat`'s resume: the chat's latest run, from its first event, while it has not ended. */
async function resume<C extends WebCaller>(ctx: Context<C>, chatId: string): Promise<Response> {
  const { options } = ctx;
  const nothing = () =>
    new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  const runId = await options.chats.get(chatRunKey(ctx.caller.id, chatId));
  if (runId === undefined) return nothing();
  let run: RunInfo;
  try {
    run = await authorizeRun(ctx.check, runId, "follow");
  } catch (error) {
    // Not the caller's chat looks like a chat with nothing running: nothing is revealed.
    if (error instanceof WebError && error.status === 404) return nothing();
    throw error;
  }
  if (ENDED.has(run.state)) return nothing();
  return stream(ctx, runId, 0);
}
