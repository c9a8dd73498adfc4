// `pnpm demo serve`: the inbox in a browser, over the same SQLite file as the terminal. Requests,
// answers and new runs go through @toolnexus/web's handler, mounted under /api, as any app would
// mount it. Under /inbox are the demo's own reads, for what the handler does not serve: the live
// state (what waits across runs, and the recent sessions) and a session's transcript with its
// times. This server also continues the runs an answer made ready (the demo's worker).
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { userInfo } from "node:os";
import { CheckpointError, SuspensionNotFoundError } from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { createWebHandler, WebError, type WebHandler } from "@toolnexus/web";
import { toNodeListener } from "@toolnexus/web/node";
import { AG_UI_PATH, agUiHandler, CHAT_API, chatHandler } from "./chat.js";
import { Inbox, SessionNotFoundError } from "./inbox.js";
import { demoCommand } from "./invocation.js";
import { createModel, describeModel, type ModelChoice } from "./models.js";
import type { Printer } from "./printer.js";
import {
  assertContinuable,
  demoClient,
  findRequest,
  isSubAgentRun,
  openStore,
  shownPath,
  UsageError,
} from "./setup.js";
import { printable } from "./terminal-text.js";
import { timelinePath } from "./timeline.js";
import { spawnWorker } from "./worker.js";

export { Inbox } from "./inbox.js";

export const DEFAULT_PORT = 4173;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
/** How often the server looks at the file for changes made by other processes (the CLI). */
const POLL_MS = 700;
/** Where the handler's routes are mounted. */
export const API_BASE = "/api";

export interface ServeOptions {
  dbPath: string;
  port: string | undefined;
  host: string | undefined;
  choice: ModelChoice;
  printer: Printer;
  /** The model flags to start the worker process with (the same model as this server). */
  workerFlags?: readonly string[];
}

/** The page: the Vite build of web/ (`pnpm --filter @toolnexus/demo build`, run by the launcher). */
const BUILT_DIR = new URL("../dist/web/", import.meta.url);
/** Before a build, the page's source: it says how to build it. */
const SOURCE_DIR = new URL("../web/", import.meta.url);
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
};
/** Only the built files' own names: no path can leave the folder. */
const ASSET_PATH = /^\/assets\/[\w-]+(\.[\w-]+)*\.(js|css|svg|png)$/;

/** Whether the page was built (the server serves the source page, which says how, otherwise). */
export function pageBuilt(): boolean {
  return existsSync(new URL("index.html", BUILT_DIR));
}

function asset(path: string): { file: URL; type: string } | undefined {
  if (path === "/") {
    return {
      file: new URL("index.html", pageBuilt() ? BUILT_DIR : SOURCE_DIR),
      type: TYPES.html!,
    };
  }
  if (!ASSET_PATH.test(path)) return undefined;
  const file = new URL(`.${path}`, BUILT_DIR);
  if (!existsSync(file)) return undefined;
  return { file, type: TYPES[path.slice(path.lastIndexOf(".") + 1)]! };
}

/**
 * Who is answering: the inbox serves one person on this machine, so everyone who reaches it
 * (through the Host check) is that person, recorded as who answered or cancelled.
 */
export function localIdentity(): string {
  let name = "you";
  try {
    name = userInfo().username || name;
  } catch {
    // No user name (some containers): "you" it is.
  }
  return `${name}@this-machine`.slice(0, 256);
}

/** The handler over the demo's store: one local person, allowed everything in it. */
export function inboxWebHandler(
  inbox: Inbox,
  store: SqliteStore,
  identity: string,
  log: (text: string) => void,
): WebHandler {
  return createWebHandler({
    store,
    basePath: API_BASE,
    identify: () => ({ id: identity }),
    // Everything, except answering inside a sub-agent's run: its question reaches the person
    // as the assistant's own request, and that is the one to answer.
    allow: (_caller, access) =>
      !(access.action === "answer" && "runId" in access && isSubAgentRun(access.runId)),
    start: ({ body }) => {
      if (typeof body !== "object" || body === null || Object.keys(body).length > 0) {
        throw new WebError(400, "bad_request", "start a run with an empty JSON object {}");
      }
      return { runId: inbox.start().runId };
    },
    // The page gets only the error's id; the terminal gets the message (printed as text).
    onError: (error, { errorId }) =>
      log(`✗ ${errorId}: ${error instanceof Error ? error.message : String(error)}`),
  });
}

/**
 * What the handler can do over this store: follow a run's events (`GET /api/runs/:id/events`)
 * and cancel it (`POST /api/runs/:id/cancel`) need a store that records events and cancels;
 * without them the handler answers 501, so the page does not offer them.
 */
export function storeFeatures(store: object): { events: boolean; cancel: boolean } {
  const members = store as { readEvents?: unknown; cancel?: unknown };
  return {
    events: typeof members.readEvents === "function",
    cancel: typeof members.cancel === "function",
  };
}

/** A JSON error in the handler's shape, so the page reads every refusal the same way. */
function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { error: { code, message } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(JSON.stringify(body));
}

const ANSWER_PATH = new RegExp(`^${API_BASE}/requests/([^/]+)/answer$`);

/**
 * A request this demo could not continue (another agent's run, or a sub-agent's own question)
 * is refused before the handler records anything, with what to do instead; undefined when the
 * answer may go on to the handler.
 */
function notContinuable(store: SqliteStore, encodedId: string): string | undefined {
  let id: string;
  try {
    id = decodeURIComponent(encodedId);
  } catch {
    return undefined; // the handler names the bad id
  }
  try {
    assertContinuable(findRequest(store, id));
    return undefined;
  } catch (thrown) {
    if (thrown instanceof CheckpointError) return thrown.message;
    if (thrown instanceof SuspensionNotFoundError) return undefined; // the handler's 404
    throw thrown;
  }
}

/**
 * Calls the handler; after an answer it recorded (or one to a request that had expired), this
 * server continues the run, as the demo's worker.
 */
function withContinuation(inbox: Inbox, web: WebHandler): WebHandler {
  return async (request) => {
    const response = await web(request);
    if (request.method !== "POST" || !ANSWER_PATH.test(new URL(request.url).pathname)) {
      return response;
    }
    if (response.status === 200 || response.status === 409) {
      const body = (await response.clone().json()) as {
        runId?: string;
        requestId?: string;
        duplicate?: boolean;
        error?: { reason?: string };
      };
      if (response.status === 200 && body.runId !== undefined) {
        inbox.continueAnswered(
          body.runId,
          `answer ${body.requestId}${body.duplicate === true ? " (duplicate)" : ""}`,
        );
      } else if (body.error?.reason === "expired") {
        const id = decodeURIComponent(ANSWER_PATH.exec(new URL(request.url).pathname)![1]!);
        const runId = inbox.runOf(id);
        if (runId !== undefined) inbox.continueAnswered(runId, `answer ${id} (expired)`);
      }
    }
    return response;
  };
}

/** The node:http listener: the page, the demo's reads under /inbox, the handler under /api. */
export function handler(
  inbox: Inbox,
  store: SqliteStore,
  /** The Host headers to accept; undefined when the server was bound beyond loopback on purpose. */
  allowedHosts: ReadonlySet<string> | undefined,
  log: (text: string) => void,
  identity: string = localIdentity(),
  /**
   * Whether this server continues answered runs itself; `demo serve` leaves them to its worker
   * process instead.
   */
  continueAnswers = true,
) {
  const web = inboxWebHandler(inbox, store, identity, log);
  const api = toNodeListener(continueAnswers ? withContinuation(inbox, web) : web);
  const chat = toNodeListener(chatHandler(inbox, store, identity, log));
  const agUi = toNodeListener(agUiHandler(inbox, store, identity, log));
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      // Only names this server was started on: a page on another site cannot reach it through
      // DNS tricks (the handler then refuses posts from other origins).
      const host = req.headers.host ?? "";
      if (allowedHosts !== undefined && !allowedHosts.has(host)) {
        sendError(res, 421, "misdirected_request", `unexpected Host header "${host}"`);
        return;
      }
      const url = new URL(req.url ?? "/", `http://${host}`);
      const path = url.pathname;

      const page = req.method === "GET" ? asset(path) : undefined;
      if (page !== undefined) {
        let body: string | Buffer = readFileSync(page.file);
        if (path === "/") {
          // The state goes into the page itself, so its first paint shows what waits (a JSON
          // data block, which the script reads; the policy below still runs no inline script).
          const initial = JSON.stringify({
            ...inbox.initial(),
            you: identity,
            features: storeFeatures(store),
          });
          body = body
            .toString("utf8")
            .replace(
              '<script id="initial-state" type="application/json"></script>',
              `<script id="initial-state" type="application/json">${initial.replace(/</g, "\\u003c")}</script>`,
            );
        }
        res.writeHead(200, {
          "content-type": page.type,
          "cache-control": "no-store",
          "content-security-policy":
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
          "x-content-type-options": "nosniff",
        });
        res.end(body);
        return;
      }
      if (req.method === "GET" && path === "/inbox/state") {
        send(res, 200, JSON.parse(inbox.snapshot()));
        return;
      }
      if (req.method === "GET" && path === "/inbox/events") {
        res.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          connection: "keep-alive",
        });
        res.write("retry: 1000\n\n");
        const unsubscribe = inbox.subscribe((snapshot) => {
          res.write(`event: state\ndata: ${snapshot}\n\n`);
        });
        const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
        req.on("close", () => {
          clearInterval(ping);
          unsubscribe();
        });
        return;
      }
      const sessionMatch = /^\/inbox\/sessions\/([\w.-]{1,100})$/.exec(path);
      if (req.method === "GET" && sessionMatch !== null) {
        send(res, 200, inbox.session(sessionMatch[1]!));
        return;
      }
      const answerMatch = ANSWER_PATH.exec(path);
      if (req.method === "POST" && answerMatch !== null) {
        const origin = req.headers.origin;
        // A cross-site post goes on to the handler, which refuses it; only this page is told why.
        const sameSite = origin === undefined || origin === `http://${host}`;
        const refused = sameSite ? notContinuable(store, answerMatch[1]!) : undefined;
        if (refused !== undefined) {
          log(`✗ refused ${path}: ${refused}`);
          sendError(res, 409, "not_continuable", refused);
          return;
        }
      }
      if (path === CHAT_API || path.startsWith(`${CHAT_API}/`)) {
        await chat(req, res);
        return;
      }
      if (path === AG_UI_PATH) {
        await agUi(req, res);
        return;
      }
      if (path === API_BASE || path.startsWith(`${API_BASE}/`)) {
        await api(req, res);
        return;
      }
      sendError(res, 404, "not_found", `nothing at ${req.method} ${path}`);
    } catch (thrown) {
      if (res.headersSent) {
        res.destroy();
      } else if (thrown instanceof SessionNotFoundError) {
        sendError(res, 404, "not_found", thrown.message);
      } else {
        log(
          `✗ ${req.method} ${req.url}: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
        );
        sendError(res, 500, "internal", "the inbox could not do that; see its terminal");
      }
    }
  };
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(
      `--port takes a number from 0 to 65535 (0 picks a free one), got "${text}"`,
    );
  }
  return port;
}

export async function serveCommand(options: ServeOptions): Promise<number> {
  const { printer } = options;
  const s = printer.style;
  const port = parsePort(options.port);
  const host = options.host ?? "127.0.0.1";
  const model = createModel(options.choice);
  const store = await openStore(options.dbPath);
  const client = demoClient({ model, store });
  // What a log line quotes (a request's prompt, a URL, an error) is shown, never obeyed.
  const log = (text: string) =>
    printer.line(`  ${s.dim(new Date().toISOString().slice(11, 19))} ${printable(text)}`);
  const inbox = new Inbox(store, client, log, {
    file: timelinePath(options.dbPath),
    clientFor: (onEvent) => demoClient({ model, store, onEvent }),
  });

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new UsageError(
              `port ${port} on ${host} is already in use (another inbox?); pick one with --port, or --port 0 for any free port`,
            )
          : error,
      );
    });
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  // Loopback: only this machine's own names, so no other site can reach the inbox through DNS
  // tricks. Bound wider on purpose (--host): any name.
  const loopback = LOOPBACK.has(host);
  const allowedHosts = loopback
    ? new Set([...LOOPBACK].map((name) => `${name.includes(":") ? `[${name}]` : name}:${actual}`))
    : undefined;
  let stopping = false;
  // The worker: another process on the same file continues what is answered here.
  const worker: ChildProcess = spawnWorker(options.dbPath, options.workerFlags ?? [], log);
  const workerReady = new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      if (chunk.toString("utf8").includes("worker ready")) resolve();
    };
    worker.stdout?.on("data", onData);
    worker.once("exit", () => resolve());
  });
  worker.once("exit", (code, signal) => {
    if (!stopping)
      log(`✗ the worker process ended (${code ?? signal}); answered runs wait for a new one`);
  });
  server.on("request", handler(inbox, store, allowedHosts, log, localIdentity(), false));
  await workerReady;

  const shownHost = host.includes(":") ? `[${host}]` : host;
  printer.heading("toolnexus demo · chat and inbox", "");
  printer.line(`  ${s.bold(`http://${shownHost}:${actual}/`)}`);
  if (!pageBuilt()) {
    printer.line(
      s.yellow("  the page is not built: run `npx -y pnpm@12.4.2 --filter @toolnexus/demo build`"),
    );
  }
  printer.line(s.dim(`  worker   process ${worker.pid} continues the answered runs`));
  printer.line(
    s.dim(
      `  store    ${shownPath(options.dbPath)} (shared with ${demoCommand()} --durable / resume / pending)`,
    ),
  );
  printer.line(s.dim(`  model    ${describeModel(options.choice, model)}`));
  if (!loopback) {
    printer.line(
      s.yellow(
        `  listening on ${host}: anyone who can reach this address can answer requests (there is no login)`,
      ),
    );
  }
  printer.line(s.dim("  Ctrl-C stops the server"));

  inbox.check();
  const poll = setInterval(() => inbox.check(), POLL_MS);

  await new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      worker.kill("SIGTERM");
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      clearInterval(poll);
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  if (worker.exitCode === null && worker.signalCode === null) {
    await new Promise((resolve) => worker.once("exit", resolve));
  }
  store.close();
  printer.line(s.dim("  stopped"));
  return 0;
}
