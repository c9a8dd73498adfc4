// What the handler's tests share: the handler over a store served on 127.0.0.1, AG-UI's own
// HttpAgent as the client, and every event it receives checked against @ag-ui/core's schemas.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type BaseEvent, HttpAgent, type RunAgentParameters } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { Client } from "@toolnexus/client";
import type { RunStore } from "@toolnexus/core";
import { toNodeListener } from "@toolnexus/web/node";
import { onTestFinished } from "vitest";
import { createAgUiHandler } from "./handler.js";
import { promptOf } from "./input.js";
import type { AgUiHandlerOptions } from "./options.js";

export const TOKENS: Record<string, string> = { "token-alice": "alice", "token-bob": "bob" };

/**
 * The handler as a host would write it: callers from a bearer token; each may start runs and
 * touch the runs of their own threads (the session is `<caller>:<threadId>`); `start` hands the
 * prompt to `client.run` durably and returns at once.
 */
export function testHandlerOptions(
  store: RunStore,
  client: Client | undefined,
): AgUiHandlerOptions<{ id: string }> {
  return {
    store,
    path: "/agent",
    pollMs: 20,
    identify: (request) => {
      const id = TOKENS[request.headers.get("authorization")?.slice(7) ?? ""];
      return id === undefined ? undefined : { id };
    },
    allow: (caller, access) =>
      access.action === "start" || access.sessionId?.startsWith(`${caller.id}:`) === true,
    start: ({ caller, input }) => {
      if (client === undefined) throw new Error("no client to start runs with");
      const runId = `tn_${input.runId}`;
      // The run's failures reach the stream through the store; nothing awaits this promise.
      client
        .run(promptOf(input), { runId, durable: true, sessionId: `${caller.id}:${input.threadId}` })
        .catch(() => {});
      return { runId };
    },
  };
}

/** Serves the handler on 127.0.0.1 until the test ends; returns its URL. */
export async function serve(options: AgUiHandlerOptions<{ id: string }>): Promise<string> {
  const server = createServer(toNodeListener(createAgUiHandler(options)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
}

/** Runs a worker in this process until the test ends. */
export function workInProcess(client: Client, maxFailures = 5): void {
  const controller = new AbortController();
  const working = client.work({ signal: controller.signal, pollMs: 20, maxFailures });
  onTestFinished(async () => {
    controller.abort();
    await working;
  });
}

/** A chat thread through HttpAgent: each run's events, every one checked against the schemas. */
export class Thread {
  readonly agent: HttpAgent;
  /** Every event received, in order, over every run. */
  readonly events: BaseEvent[] = [];
  /** Events that failed @ag-ui/core's schema, with the problem: must stay empty. */
  readonly invalid: { event: BaseEvent; problem: string }[] = [];

  constructor(url: string, token: string, threadId: string) {
    this.agent = new HttpAgent({ url, headers: { authorization: `Bearer ${token}` }, threadId });
  }

  say(text: string): void {
    this.agent.addMessage({
      id: `m${this.agent.messages.length + 1}`,
      role: "user",
      content: text,
    });
  }

  /** One run: its events (also appended to `events`); rejects as HttpAgent does. */
  async run(parameters: RunAgentParameters = {}): Promise<BaseEvent[]> {
    const seen: BaseEvent[] = [];
    await this.agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        seen.push(event);
        this.events.push(event);
        const checked = EventSchemas.safeParse(event);
        if (!checked.success) this.invalid.push({ event, problem: checked.error.message });
      },
    });
    return seen;
  }
}

/** Event types in order, with the detail that tells them apart. */
export function outline(events: readonly BaseEvent[]): string[] {
  return events.map((event) => {
    const e = event as Record<string, unknown>;
    switch (event.type) {
      case "TEXT_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CONTENT":
        return `${event.type} ${String(e.delta)}`;
      case "TOOL_CALL_START":
        return `${event.type} ${String(e.toolCallName)}`;
      case "TOOL_CALL_ARGS":
        return `${event.type} ${String(e.delta)}`;
      case "TOOL_CALL_RESULT":
        return `${event.type} ${String(e.content)}`;
      case "STEP_STARTED":
      case "STEP_FINISHED":
        return `${event.type} ${String(e.stepName)}`;
      case "CUSTOM":
        return `${event.type} ${String(e.name)}`;
      case "RUN_FINISHED":
        return `${event.type} ${String((e.outcome as { type?: string } | undefined)?.type)}`;
      case "RUN_ERROR":
        return `${event.type} ${String(e.code)}`;
      default:
        return event.type;
    }
  });
}
