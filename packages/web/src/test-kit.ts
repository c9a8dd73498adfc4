// Shared by the tests: a memory store with halted runs, the handler served on 127.0.0.1 through
// toNodeListener or through Hono, two users who may each see one session, and an SSE reader.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { memoryRunStore } from "@toolnexus/client";
import type { RunStore } from "@toolnexus/core";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import { Hono } from "hono";
import { createWebHandler } from "./handler.js";
import { toNodeListener } from "./node.js";
import type { WebCaller, WebHandlerOptions } from "./options.js";

export interface User extends WebCaller {
  sessions: string[];
}

/** alice may touch session S only, bob session T only. */
export const USERS: Record<string, User> = {
  "token-alice": { id: "alice", sessions: ["S"] },
  "token-bob": { id: "bob", sessions: ["T"] },
};

export const identifyByToken = (request: Request): User | undefined => {
  const match = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "");
  return match ? USERS[match[1]!] : undefined;
};

export const allowOwnSessions: WebHandlerOptions<User>["allow"] = (caller, access) =>
  access.action !== "start" &&
  access.sessionId !== undefined &&
  caller.sessions.includes(access.sessionId);

/** A JSON Schema a form answers: a required env from a list, nothing else. */
export const ENV_SCHEMA = {
  type: "object",
  properties: {
    env: { type: "string", enum: ["staging", "production"] },
    replicas: { type: "integer", minimum: 1 },
  },
  required: ["env"],
  additionalProperties: false,
};

export interface HaltOptions {
  runId: string;
  sessionId?: string;
  agent?: string;
  /** Request ids; the first carries `schema` as `data.schema` when given. */
  requests: string[];
  schema?: Record<string, unknown>;
  expiresAt?: string;
}

/** A run halted in `store` on the given requests (as a durable run's first halt stores it). */
export async function haltRun(store: RunStore, options: HaltOptions): Promise<void> {
  const checkpoint = sampleCheckpoint({
    runId: options.runId,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    pending: options.requests.map((id) => ({
      id,
      ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
    })),
  });
  if (options.schema !== undefined) {
    checkpoint.pending[0]!.request.data = { schema: options.schema };
  }
  await store.halt(checkpoint);
}

export interface Served {
  /** Where the routes are: the server's origin plus the base path. */
  base: string;
  origin: string;
  close(): Promise<void>;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The handler on node:http through toNodeListener, mounted at the root. */
export async function serveNode(options: WebHandlerOptions<User>): Promise<Served> {
  const server = createServer(toNodeListener(createWebHandler(options)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base: origin, origin, close: () => closeServer(server) };
}

/** The handler inside a Hono app under /api (its basePath), served by @hono/node-server. */
export async function serveHono(options: WebHandlerOptions<User>): Promise<Served> {
  const handler = createWebHandler({ ...options, basePath: "/api" });
  const app = new Hono();
  app.get("/", (c) => c.text("the app's own page"));
  app.all("/api/*", (c) => handler(c.req.raw));
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
      resolve(started as Server),
    );
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base: `${origin}/api`, origin, close: () => closeServer(server) };
}

export const SERVERS = [
  ["node:http via toNodeListener", serveNode],
  ["Hono under /api", serveHono],
] as const;

/** A fresh memory store. */
export const newStore = () => memoryRunStore();

export function auth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** POST JSON as a same-origin browser page would (Origin set to the server's own). */
export function postJson(
  served: Served,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${served.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: served.origin, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** One parsed SSE frame (comments are skipped). */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * Reads SSE frames from a response until `stop(frames)` says so or the stream ends; returns
 * the frames and whether the stream ended by itself. Cancels the body when stopping early.
 */
export async function readSse(
  response: Response,
  stop: (frames: SseFrame[], comments: string[]) => boolean = () => false,
): Promise<{ frames: SseFrame[]; comments: string[]; ended: boolean }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { frames, comments, ended: true };
    buffer += value;
    let cut = buffer.indexOf("\n\n");
    while (cut !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const frame: SseFrame = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comments.push(line.slice(1).trim());
        else if (line.startsWith("id: ")) frame.id = line.slice(4);
        else if (line.startsWith("event: ")) frame.event = line.slice(7);
        else if (line.startsWith("data: ")) frame.data = line.slice(6);
      }
      if (frame.id !== undefined || frame.event !== undefined) frames.push(frame);
      cut = buffer.indexOf("\n\n");
    }
    if (stop(frames, comments)) {
      await reader.cancel();
      return { frames, comments, ended: false };
    }
  }
}
