// For this package's tests only (not exported): a real @toolnexus/web handler on 127.0.0.1 over
// a memory store, runs halted by a real client loop on questions with JSON Schemas, a bearer
// token per user, and a count of the server's open connections.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type Tool } from "@toolnexus/core";
import { createWebHandler } from "@toolnexus/web";
import { toNodeListener } from "@toolnexus/web/node";

/** A question's schema: a required env from a list, a replica count, a note, a flag. */
export const DEPLOY_SCHEMA = {
  type: "object",
  properties: {
    env: { type: "string", title: "Environment", enum: ["staging", "production"] },
    replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 5, default: 2 },
    note: { type: "string", title: "Note", description: "Why now", maxLength: 20 },
    force: { type: "boolean", title: "Force" },
  },
  required: ["env"],
  additionalProperties: false,
};

/** The same, where production needs at least 3 replicas: a rule only the server checks here. */
export const PRODUCTION_SCHEMA = {
  ...DEPLOY_SCHEMA,
  if: { properties: { env: { const: "production" } }, required: ["env"] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword here
  then: { properties: { replicas: { minimum: 3 } } },
};

const USERS = new Map([
  ["token-alice", { id: "alice", sessions: ["S1", "S2", "S3"] }],
  ["token-bob", { id: "bob", sessions: ["T1"] }],
]);

export interface Fixture {
  /** The handler's base URL. */
  base: string;
  /** The origin (for the `origin` header a same-origin page sends with a POST). */
  origin: string;
  /** Starts a run in `sessionId` that halts on the deploy question (`schema`: its own); its run id. */
  halt(sessionId: string, schema?: Record<string, unknown>): Promise<string>;
  /** Continues a run whose question was answered, as a worker does; its final text. */
  continueRun(runId: string): Promise<string>;
  /** Event streams (`GET /runs/:id/events`) the server has open now. */
  openStreams(): number;
  /** Resolves once the open event streams are `count` (checked on each open and close). */
  streamsReach(count: number): Promise<void>;
  /** The `after` of each event stream request so far, in order. */
  streamStarts(): number[];
  /** Cuts every open event stream's connection, as a proxy dropping it would. */
  dropStreams(): void;
  /** The next `count` event stream requests get a 503, as an overloaded proxy gives. */
  refuseStreams(count: number): void;
  close(): Promise<void>;
}

export async function startFixture(): Promise<Fixture> {
  const store = memoryRunStore();
  const deployAsking = (schema: Record<string, unknown>): Tool => ({
    name: "deploy",
    description: "Deploys, asking where",
    inputSchema: { type: "object", properties: {} },
    source: "custom",
    execute: async (_args, ctx) => {
      if (ctx?.answer === undefined) {
        return pending({ kind: "input", prompt: "Where to?", data: { schema } });
      }
      return { output: `deployed to ${String(ctx.answer.data?.env)}`, isError: false };
    },
  });
  // Each run: a call to deploy, then the final text (the script is per client, so one per run).
  const clientFor = (schema: Record<string, unknown>) =>
    createClient({
      model: scriptedModel([{ toolCalls: [{ name: "deploy" }] }, { content: "shipped" }]),
      tools: [deployAsking(schema)],
      runs: store,
    });
  const clients = new Map<string, ReturnType<typeof clientFor>>();

  const handler = createWebHandler({
    store,
    identify: (request) =>
      USERS.get(/^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? ""),
    allow: (caller, access) =>
      access.action !== "start" &&
      access.sessionId !== undefined &&
      caller.sessions.includes(access.sessionId),
    heartbeatMs: 60_000,
    pollMs: 20,
  });
  const listener = toNodeListener(handler);
  let refusals = 0;
  const server: Server = createServer((req, res) => {
    if (refusals > 0 && (req.url ?? "").includes("/events")) {
      refusals -= 1;
      res.writeHead(503, { "content-type": "text/plain" }).end("busy");
      return;
    }
    listener(req, res);
  });
  // Event streams are counted by request, not by socket: fetch keeps idle sockets for reuse.
  const streams = new Set<Socket>();
  const starts: number[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (!url.pathname.endsWith("/events")) return;
    starts.push(Number(url.searchParams.get("after") ?? 0));
    streams.add(req.socket);
    res.on("close", () => {
      streams.delete(req.socket);
      notify();
    });
    notify();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base: origin,
    origin,
    async halt(sessionId, schema = DEPLOY_SCHEMA) {
      const client = clientFor(schema);
      const result = await client.run("Ship it", { sessionId });
      const runId = (result as { runId?: string }).runId;
      if (runId === undefined) throw new Error("the run did not halt durably");
      clients.set(runId, client);
      return runId;
    },
    async continueRun(runId) {
      const client = clients.get(runId);
      if (client === undefined) throw new Error(`no run ${runId} here`);
      return (await client.continueRun(runId)).text;
    },
    openStreams: () => streams.size,
    streamStarts: () => [...starts],
    refuseStreams: (count) => {
      refusals = count;
    },
    dropStreams: () => {
      for (const socket of streams) socket.destroy();
    },
    streamsReach: (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (streams.size !== count) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
