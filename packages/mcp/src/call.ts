// One execution of an MCP tool: a first call, or a retry with the human's answer; the rounds of
// `input_required`, URL-required errors and halted push-style questions become suspensions.
import { error, pending, type ToolContext, type ToolResult } from "@toolnexus/core";
import { type ActiveSpec, messageOf, type ServerConnection as Server } from "./connection.js";
import { answerInputRequests } from "./input-required.js";
import { combinedRequest, elicitationKey, elicitationRequest } from "./mapping.js";
import { resumeFrom } from "./resume.js";
import { send } from "./send.js";
import { type McpState, ownState, STATE_VERSION } from "./state.js";
import { followTask, resumeTask } from "./task.js";
import type { McpTask } from "./task-wire.js";

export async function callTool(
  server: Server,
  tool: string,
  exposed: string,
  args: Record<string, unknown>,
  ctx: ToolContext | undefined,
  /** `task`: a 2025 server requires the call to be a task (`taskSupport: "required"`). */
  options: { task?: boolean } = {},
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
  if (state?.kind === "task") return resumeTask({ server, tool, exposed, ctx }, state, answer);
  const resumed = resumeFrom({ name: tool, arguments: args }, state, answer);
  if (resumed === "declined") {
    return error(`declined/expired: the server's authorization was not completed`, meta);
  }
  let { params } = resumed;
  const { replay, approved } = resumed;
  // A 2025 server makes a call a task when asked to (2026 servers decide themselves).
  if (options.task === true && server.client.getProtocolEra() !== "modern") {
    params = { ...params, task: {} };
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
    if ("task" in outcome) return followNew({ server, tool, exposed, ctx }, outcome.task);
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
    const answered = await answerInputRequests(server, tool, inputRequests, ctx);
    if ("error" in answered) return answered.error;
    const { responses, elicitations } = answered;
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

/** A task the server just made of the call: followed, a poll that fails being the call's error. */
async function followNew(
  call: Parameters<typeof followTask>[0],
  task: McpTask,
): Promise<ToolResult> {
  try {
    return await followTask(call, task);
  } catch (thrown) {
    const { server } = call;
    return error(
      server.scrub.text(
        `MCP server ${server.name}: the task of ${call.tool} could not be followed: ${messageOf(thrown)}`,
      ),
      { server: server.name, tool: call.tool, task: task.taskId },
    );
  }
}
