// The MCP client of one server and what it offers the server: elicitation (both eras), sampling
// and roots, each advertised only when the host provides it, with the handlers that answer them.
import { Client } from "@modelcontextprotocol/client";
import type { ActiveSpec, ServerConnection } from "./connection.js";
import { onElicit } from "./elicit.js";
import type { Elicitation } from "./mapping.js";
import { versionOptions } from "./probe.js";
import { TASKS_EXTENSION } from "./task-wire.js";

const CLIENT_INFO = { name: "toolnexus", version: "0.1.0" };

/** A client for `server` speaking `protocol`; what the server sends it is scrubbed first. */
export function makeClient(server: ServerConnection, protocol: ActiveSpec["protocol"]): Client {
  const { options, scrub } = server;
  const capabilities: Record<string, unknown> = {};
  if (options.elicitation !== false) capabilities.elicitation = { form: {}, url: {} };
  if (options.sampling !== undefined) capabilities.sampling = {};
  if (options.roots !== undefined) capabilities.roots = { listChanged: false };
  // Tasks extension: a 2026 server may answer a call with a task, which task.ts follows.
  if (options.tasks !== false) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const client = new Client(options.clientInfo ?? CLIENT_INFO, {
    capabilities,
    // 2026 servers' questions come back to us as data, to suspend on (never fulfilled inside the call).
    inputRequired: { autoFulfill: false },
    // With pinning, a changed tool list is fetched and checked against the approved one.
    ...(options.pin === undefined || server.toolsChanged === undefined
      ? {}
      : {
          listChanged: {
            tools: {
              onChanged: (error: Error | null, tools: readonly unknown[] | null) => {
                if (error === null && tools !== null) server.toolsChanged?.(tools);
              },
            },
          },
        }),
    ...versionOptions(protocol),
  } as ConstructorParameters<typeof Client>[1]);
  if (options.elicitation !== false) {
    client.setRequestHandler(
      "elicitation/create",
      (request, ctx) =>
        onElicit(server, scrub.deep(request.params as Elicitation), ctx.mcpReq.signal) as never,
    );
  }
  const { sampling, roots } = options;
  if (sampling !== undefined) {
    client.setRequestHandler(
      "sampling/createMessage",
      async (request, ctx) =>
        (await sampling(scrub.deep(request.params as Record<string, unknown>), {
          server: server.name,
          signal: ctx.mcpReq.signal,
        })) as never,
    );
  }
  if (roots !== undefined) {
    client.setRequestHandler("roots/list", async () => ({ roots: [...(await server.roots())] }));
  }
  return client;
}
