// One round of a 2026 server's `input_required`: the host answers sampling and roots now; the
// elicitations are the human's, gathered (scrubbed) for one suspension.
import { error, type ToolContext, type ToolResult } from "@toolnexus/core";
import { isObject, messageOf, type ServerConnection as Server } from "./connection.js";
import type { Elicitation } from "./mapping.js";

/** What the host answered, and what is left for the human. */
export interface InputRound {
  responses: Record<string, unknown>;
  elicitations: Record<string, Elicitation>;
}

/** Answers what the host can of `inputRequests`; an error result for what it cannot. */
export async function answerInputRequests(
  server: Server,
  tool: string,
  inputRequests: Record<string, unknown> | undefined,
  ctx: ToolContext | undefined,
): Promise<InputRound | { error: ToolResult }> {
  const meta = { server: server.name, tool };
  const round: InputRound = { responses: {}, elicitations: {} };
  for (const [key, entry] of Object.entries(inputRequests ?? {})) {
    const method = isObject(entry) ? entry.method : undefined;
    const p = (isObject(entry) && isObject(entry.params) ? entry.params : {}) as Record<
      string,
      unknown
    >;
    if (method === "elicitation/create") {
      round.elicitations[key] = server.scrub.deep(p) as Elicitation;
    } else if (method === "roots/list" && server.options.roots !== undefined) {
      round.responses[key] = { roots: [...(await server.roots())] };
    } else if (method === "sampling/createMessage" && server.options.sampling !== undefined) {
      try {
        round.responses[key] = await server.options.sampling(server.scrub.deep(p), {
          server: server.name,
          signal: ctx?.signal ?? new AbortController().signal,
        });
      } catch (thrown) {
        return {
          error: error(
            server.scrub.text(
              `MCP server ${server.name}: sampling for ${tool} failed: ${messageOf(thrown)}`,
            ),
            meta,
          ),
        };
      }
    } else {
      return {
        error: error(
          server.scrub.text(
            `MCP server ${server.name} asked ${tool} for ${String(method)}, which this client does not provide`,
          ),
          meta,
        ),
      };
    }
  }
  return round;
}
