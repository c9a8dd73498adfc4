// Shared by the tests: the chat handler and @toolnexus/web's handler on one node:http server on
// 127.0.0.1, a client whose runs the chat starts, and a chat of the `ai` package itself (its
// AbstractChat, which useChat wraps) for ai 7 and ai 6, so every stream is read by the AI SDK's
// own code: its SSE parser and chunk schema, and how it applies chunks to messages.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@toolnexus/client";
import type { RunStore } from "@toolnexus/core";
import { createWebHandler, type WebCaller, type WebHandlerOptions } from "@toolnexus/web";
import { toNodeListener } from "@toolnexus/web/node";
import * as ai7 from "ai";
import * as ai6 from "ai-v6";
import { createChatHandler } from "./handler.js";
import type { ChatHandlerOptions } from "./options.js";

export interface User extends WebCaller {
  chats: string[];
}

/** alice may use chats starting with "a-", bob those starting with "b-". */
export const USERS: Record<string, User> = {
  "token-alice": { id: "alice", chats: ["a-"] },
  "token-bob": { id: "bob", chats: ["b-"] },
};

export const identifyByToken = (request: Request): User | undefined => {
  const match = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "");
  return match ? USERS[match[1]!] : undefined;
};

/** Anyone known may start; a run (its session is the chat id) is its chat owner's. */
export const allowOwnChats: WebHandlerOptions<User>["allow"] = (caller, access) =>
  access.action === "start" ||
  (access.sessionId !== undefined && caller.chats.some((p) => access.sessionId!.startsWith(p)));

export interface Served {
  origin: string;
  /** The chat route (`DefaultChatTransport`'s api). */
  api: string;
  /** Where @toolnexus/web's routes are. */
  web: string;
  close(): Promise<void>;
}

/**
 * Serves the chat handler at /api/chat and @toolnexus/web's at /api/toolnexus, both over
 * `store`. `start` runs the prompt durably with `client` under the chat's id as its session,
 * without waiting for it (the stream follows it from the store).
 */
export async function serveChat(
  store: RunStore,
  client: Client,
  extra: Partial<ChatHandlerOptions<User>> = {},
): Promise<Served & { runs: string[] }> {
  const runs: string[] = [];
  const chat = createChatHandler<User>({
    store,
    identify: identifyByToken,
    allow: allowOwnChats,
    start: ({ chatId, prompt }) => {
      const runId = `run-${chatId}-${runs.length + 1}`;
      runs.push(runId);
      // A halt or the end is in the store; the stream reports a failure from there.
      void client.run(prompt, { durable: true, runId, sessionId: chatId }).catch(() => {});
      return { runId };
    },
    ...extra,
  });
  const web = createWebHandler<User>({
    store,
    basePath: "/api/toolnexus",
    identify: identifyByToken,
    allow: (caller, access) => access.action !== "start" && allowOwnChats!(caller, access),
  });
  const server = createServer(
    toNodeListener((request) =>
      new URL(request.url).pathname.startsWith("/api/toolnexus") ? web(request) : chat(request),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    api: `${origin}/api/chat`,
    web: `${origin}/api/toolnexus`,
    runs,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The message and part shapes the tests read (both versions' UIMessage fit). */
export interface Part {
  type: string;
  id?: string;
  text?: string;
  state?: string;
  toolCallId?: string;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
  data?: Record<string, unknown>;
}
export interface Message {
  id: string;
  role: string;
  parts: Part[];
}

/** What the tests do with a chat, whichever `ai` version runs it. */
export interface TestChat {
  readonly messages: Message[];
  readonly status: string;
  readonly error: Error | undefined;
  sendMessage(text: string): Promise<void>;
  addToolApprovalResponse(response: {
    id: string;
    approved: boolean;
    reason?: string;
  }): Promise<void>;
  resumeStream(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves at the end of the next request (onFinish), with how it ended. */
  nextFinish(): Promise<{ isError: boolean; isAbort: boolean }>;
  /** Resolves when a data part of `type` arrives (onData) and `match` holds. */
  nextData(type: string, match?: (data: Record<string, unknown>) => boolean): Promise<Part>;
}

export interface ChatOptions {
  api: string;
  chatId: string;
  token: string;
  messages?: Message[];
}

type AiModule = typeof ai7 | typeof ai6;

/** A chat of `ai`'s AbstractChat, as useChat builds it, with a plain in-memory state. */
function makeChat(mod: AiModule, options: ChatOptions): TestChat {
  const finishes: ((value: { isError: boolean; isAbort: boolean }) => void)[] = [];
  const dataWaiters: {
    type: string;
    match: (d: Record<string, unknown>) => boolean;
    resolve: (p: Part) => void;
  }[] = [];
  let messages: Message[] = options.messages ?? [];
  const state = {
    status: "ready",
    error: undefined as Error | undefined,
    get messages() {
      return messages;
    },
    set messages(value: Message[]) {
      messages = value;
    },
    pushMessage: (message: Message) => {
      messages = [...messages, message];
    },
    popMessage: () => {
      messages = messages.slice(0, -1);
    },
    replaceMessage: (index: number, message: Message) => {
      messages = [
        ...messages.slice(0, index),
        structuredClone(message),
        ...messages.slice(index + 1),
      ];
    },
    snapshot: <T>(thing: T): T => structuredClone(thing),
  };
  const Chat = mod.AbstractChat as unknown as new (
    init: Record<string, unknown>,
  ) => {
    status: string;
    error: Error | undefined;
    sendMessage(message: { text: string }): Promise<void>;
    addToolApprovalResponse(response: {
      id: string;
      approved: boolean;
      reason?: string;
    }): Promise<void>;
    resumeStream(): Promise<void>;
    stop(): Promise<void>;
  };
  const chat = new Chat({
    id: options.chatId,
    state,
    transport: new (mod.DefaultChatTransport as typeof ai7.DefaultChatTransport)({
      api: options.api,
      headers: { authorization: `Bearer ${options.token}` },
    }),
    sendAutomaticallyWhen: mod.lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: ({ isError, isAbort }: { isError: boolean; isAbort: boolean }) => {
      for (const resolve of finishes.splice(0)) resolve({ isError, isAbort });
    },
    onData: (part: Part) => {
      for (const waiter of [...dataWaiters]) {
        if (waiter.type === part.type && waiter.match(part.data ?? {})) {
          dataWaiters.splice(dataWaiters.indexOf(waiter), 1);
          waiter.resolve(part);
        }
      }
    },
  });
  return {
    get messages() {
      return messages;
    },
    get status() {
      return chat.status;
    },
    get error() {
      return chat.error;
    },
    sendMessage: (text) => chat.sendMessage({ text }),
    addToolApprovalResponse: (response) => chat.addToolApprovalResponse(response),
    resumeStream: () => chat.resumeStream(),
    stop: () => chat.stop(),
    nextFinish: () => new Promise((resolve) => finishes.push(resolve)),
    nextData: (type, match = () => true) =>
      new Promise((resolve) => dataWaiters.push({ type, match, resolve })),
  };
}

/** Both `ai` versions, each with its own chat, transport and stream reader. */
export const VERSIONS = [
  { name: "ai 7", mod: ai7 as AiModule, chat: (o: ChatOptions) => makeChat(ai7, o) },
  { name: "ai 6", mod: ai6 as AiModule, chat: (o: ChatOptions) => makeChat(ai6, o) },
] as const;

/** The parts of `message` without step boundaries, for comparing what a person sees. */
export function visibleParts(message: Message | undefined): Part[] {
  return (message?.parts ?? []).filter((part) => part.type !== "step-start");
}

export function lastAssistant(messages: readonly Message[]): Message | undefined {
  return [...messages].reverse().find((m) => m.role === "assistant");
}

export function auth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The headers and body `useChat` posts for a new message `text` in chat `chatId`, as alice. */
export function newMessage(chatId: string, text: string) {
  return {
    headers: { "content-type": "application/json", authorization: "Bearer token-alice" },
    body: JSON.stringify({
      id: chatId,
      trigger: "submit-message",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
    }),
  };
}
