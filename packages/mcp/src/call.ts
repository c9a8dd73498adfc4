// One execution of an MCP tool: a first call, or a retry with the human's answer; the rounds of
// `input_required`, URL-required errors and halted push-style questions become suspensions.
import {
  BAGGAGE_META_KEY,
  isInputRequiredResult,
  ProtocolError,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from "@modelcontextprotocol/client";
import { error, pending, type ToolContext, type ToolResult } from "@toolnexus/core";
import { CallState, isTimeout } from "./call-state.js";
import {
  type ActiveSpec,
  isObject,
  messageOf,
  type ServerConnection as Server,
} from "./connection.js";
import {
  combinedRequest,
  type Elicitation,
  elicitationKey,
  elicitationRequest,
  type McpCallResult,
  toElicitResult,
  toElicitResults,
  toToolResult,
} from "./mapping.js";
import { type McpState, ownState, type Replayed, STATE_VERSION } from "./state.js";

/** Longest a timer may be set for; the SDK's own request timeout is set to it (we keep time). */
const FOREVER = 2_147_483_647;

type InputRequired = { inputRequests?: Record<string, unknown>; requestState?: string };

/** What one tools/call came to. */
type Outcome =
  | { result: ToolResult }
  | { inputRequired: InputRequired }
  /** A URL-required error (-32042): the links the server wants visited first. */
  | { urlRequired: Elicitation[] }
  /** A push-style question nobody could answer while the call waited. */
  | { halted: { answers: Replayed[]; asking: Elicitation } };

export async function callTool(
  server: Server,
  tool: string,
  exposed: string,
  args: Record<string, unknown>,
  ctx: ToolContext | undefined,
): Promise<ToolResult> {
  const meta = { server: server.name, tool };
  if (server.client === undefined || server.status !== "connected") {
    return error(`MCP server ${server.name} is not connected`, meta);
  }
  const answer = ctx?.answer;
  const state = ownState(ctx?.resumeState);
  if (answer !== undefined && state === undefined && !answer.ok) {
    // Someone else's question (an approval) was refused: nothing to tell the server.
    return error(`declined/expired: ${exposed}`, { ...meta, answer });
  }
  let params: Record<string, unknown> = { name: tool, arguments: args };
  let replay: Replayed[] = [];
  // The links approved in this call so far: asked again, they are not asked of the human again.
  let approved: string[] = [];
  if (state !== undefined && answer !== undefined) {
    if (state.kind === "input_required") {
      params = {
        ...params,
        inputResponses: { ...state.responses, ...toElicitResults(answer, state.elicitations) },
        ...(state.requestState === undefined ? {} : { requestState: state.requestState }),
      };
    } else if (state.kind === "replay") {
      replay = [
        ...state.answers,
        { key: elicitationKey(state.asking), result: toElicitResult(answer, state.asking) },
      ];
      approved = [...(state.approved ?? [])];
    } else {
      if (!answer.ok) {
        return error(`declined/expired: the server's authorization was not completed`, meta);
      }
      replay = [...(state.answers ?? [])];
      approved = [...(state.approved ?? [])];
      if (state.asking !== undefined) approved.push(elicitationKey(state.asking));
    }
  }
  const spec = server.spec as ActiveSpec;
  // A budget the caller enforces through ctx.signal (the client loop's toolTimeoutMs) is left to
  // it, so the run records the call as timed out; only an unenforced ctx.timeout is kept here.
  const callerEnforces = ctx?.timeout !== undefined && ctx.signal !== undefined;
  const hard = Math.min(
    spec.maxTimeout,
    callerEnforces ? Number.POSITIVE_INFINITY : (ctx?.timeout ?? Number.POSITIVE_INFINITY),
  );
  const maxRounds = server.options.maxRounds ?? 8;
  for (let round = 0; ; round++) {
    const outcome = await send(server, params, exposed, args, ctx, spec.timeout, hard, replay);
    if ("result" in outcome) return outcome.result;
    if ("halted" in outcome) {
      const { answers, asking } = outcome.halted;
      const kept: McpState = { mcp: STATE_VERSION, kind: "replay", answers, asking };
      if (approved.length > 0) kept.approved = approved;
      return pending({ ...elicitationRequest(asking, server.name), state: kept });
    }
    if ("urlRequired" in outcome) {
      const next = outcome.urlRequired.find((e) => !approved.includes(elicitationKey(e)));
      if (next !== undefined) {
        const kept: McpState = {
          mcp: STATE_VERSION,
          kind: "url_required",
          answers: replay,
          approved,
          asking: next,
        };
        return pending({ ...elicitationRequest(next, server.name), state: kept });
      }
      // Every link it wants was approved already in this call: just retry, within the bound.
      if (round + 1 >= maxRounds) {
        return error(
          `MCP server ${server.name}: ${tool} asked for authorization more than ${maxRounds} times`,
          meta,
        );
      }
      continue;
    }
    const { inputRequests, requestState } = outcome.inputRequired;
    // Sampling and roots are the host's to answer, now; elicitations are the human's.
    const responses: Record<string, unknown> = {};
    const elicitations: Record<string, Elicitation> = {};
    for (const [key, entry] of Object.entries(inputRequests ?? {})) {
      const method = isObject(entry) ? entry.method : undefined;
      const p = (isObject(entry) && isObject(entry.params) ? entry.params : {}) as Record<
        string,
        unknown
      >;
      if (method === "elicitation/create") elicitations[key] = server.scrub.deep(p) as Elicitation;
      else if (method === "roots/list" && server.options.roots !== undefined) {
        responses[key] = { roots: [...(await server.roots())] };
      } else if (method === "sampling/createMessage" && server.options.sampling !== undefined) {
        try {
          responses[key] = await server.options.sampling(server.scrub.deep(p), {
            server: server.name,
            signal: ctx?.signal ?? new AbortController().signal,
          });
        } catch (thrown) {
          return error(
            server.scrub.text(
              `MCP server ${server.name}: sampling for ${tool} failed: ${messageOf(thrown)}`,
            ),
            meta,
          );
        }
      } else {
        return error(
          server.scrub.text(
            `MCP server ${server.name} asked ${tool} for ${String(method)}, which this client does not provide`,
          ),
          meta,
        );
      }
    }
    if (Object.keys(elicitations).length === 0) {
      if (round + 1 >= maxRounds) {
        return error(
          `MCP server ${server.name}: ${tool} asked for input more than ${maxRounds} times`,
          meta,
        );
      }
      params = {
        name: tool,
        arguments: args,
        inputResponses: responses,
        ...(requestState === undefined ? {} : { requestState }),
      };
      continue;
    }
    const kept: McpState = { mcp: STATE_VERSION, kind: "input_required", elicitations, responses };
    // The server's opaque state goes back byte for byte (never shown to the model).
    if (requestState !== undefined) kept.requestState = requestState;
    return pending({ ...combinedRequest(elicitations, server.name), state: kept });
  }
}

/** Sends one tools/call within the call's clocks. */
async function send(
  server: Server,
  params: Record<string, unknown>,
  exposed: string,
  args: Record<string, unknown>,
  ctx: ToolContext | undefined,
  idleMs: number,
  hardMs: number,
  replay: Replayed[],
): Promise<Outcome> {
  const tool = params.name as string;
  const meta = { server: server.name, tool };
  const { scrub } = server;
  const client = server.client!;
  const call = new CallState(ctx, exposed, args, idleMs, hardMs, [...replay]);
  server.calls.push(call);
  const halted = (): Outcome => {
    // The answers the replay used before this new question (all of them, normally).
    const used = replay.slice(0, replay.length - call.replay.length);
    return { halted: { answers: used, asking: call.suspendWith! } };
  };
  const carrier = traceMeta(ctx);
  const sent = carrier === undefined ? params : { ...params, _meta: carrier };
  try {
    const result = (await client.callTool(sent as never, {
      signal: call.signal,
      timeout: FOREVER,
      allowInputRequired: true,
      onprogress: (progress) => {
        call.resetIdle();
        const update: { progress: number; total?: number; message?: string } = {
          progress: progress.progress,
        };
        if (typeof progress.total === "number") update.total = progress.total;
        if (typeof progress.message === "string") update.message = scrub.text(progress.message);
        ctx?.progress?.(update);
      },
    })) as unknown;
    if (call.suspendWith !== undefined) return halted();
    if (isInputRequiredResult(result)) {
      const r = result as InputRequired;
      const out: InputRequired = {};
      if (r.inputRequests !== undefined) out.inputRequests = r.inputRequests;
      if (r.requestState !== undefined) out.requestState = r.requestState;
      return { inputRequired: out };
    }
    // Everything the server says is scrubbed, not only its errors: any text may echo a secret.
    return { result: scrub.deep(toToolResult(result as McpCallResult, meta)) };
  } catch (thrown) {
    if (call.suspendWith !== undefined) return halted();
    if (call.timedOut !== undefined) {
      return {
        result: error(`MCP server ${server.name}: ${tool} ${call.timedOut}`, {
          ...meta,
          timedOut: true,
        }),
      };
    }
    if (ctx?.signal?.aborted) {
      // The caller's budget ran out (the client loop records it as timed out) or it cancelled.
      const timedOut = isTimeout(ctx.signal);
      return {
        result: error(
          `MCP server ${server.name}: ${tool} ${timedOut ? "timed out" : "was cancelled"}`,
          timedOut ? { ...meta, timedOut: true } : { ...meta, cancelled: true },
        ),
      };
    }
    // A 2025 server needs the human at a link first (-32042): that is a suspension too.
    if (thrown instanceof ProtocolError && thrown.code === -32042) {
      const list = (thrown.data as { elicitations?: unknown } | undefined)?.elicitations;
      const links = (Array.isArray(list) ? list : [])
        .filter(isObject)
        .map((e) => scrub.deep({ ...(e as Elicitation), mode: "url" }));
      if (links.length > 0) return { urlRequired: links };
    }
    return {
      result: error(
        scrub.text(`MCP server ${server.name}: ${tool} failed: ${messageOf(thrown)}`),
        meta,
      ),
    };
  } finally {
    call.end();
    server.calls.splice(server.calls.indexOf(call), 1);
  }
}

/** The trace context for `_meta`, when the run's instrumentation provides one. */
function traceMeta(ctx: ToolContext | undefined): Record<string, string> | undefined {
  const carrier = ctx?.traceCarrier?.();
  if (carrier === undefined) return undefined;
  const meta: Record<string, string> = {};
  for (const key of [TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY]) {
    const value = carrier[key];
    if (typeof value === "string" && value !== "") meta[key] = value;
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}
