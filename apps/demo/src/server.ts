// `pnpm demo serve`: the inbox in a browser, over the same SQLite file as the terminal. Plain
// node:http and static files; the page gets live updates over server-sent events.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AnswerConflictError,
  CheckpointError,
  type Client,
  RunError,
  type RunEvent,
  type RunResult,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/client";
import {
  type Answer,
  type Message,
  parseAnswer,
  type Request,
  type RequestState,
  type RunInfo,
  type SuspensionSummary,
  ToolnexusError,
} from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { DEFAULT_PROMPT } from "./director.js";
import { demoCommand } from "./invocation.js";
import { createModel, describeModel, type ModelChoice } from "./models.js";
import type { Printer } from "./printer.js";
import { answerSchemaOf, checkAnswerData } from "./schema.js";
import {
  assertContinuable,
  demoClient,
  findRequest,
  isSubAgentRun,
  newSessionId,
  openStore,
  type Recorded,
  recordAnswer,
  type StoredRequest,
  shownPath,
  UsageError,
} from "./setup.js";
import { printable } from "./terminal-text.js";
import {
  type MessageTime,
  messageTimes,
  readTimeline,
  timelinePath,
  timelineRecorder,
} from "./timeline.js";

export const DEFAULT_PORT = 4173;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
const MAX_BODY = 64 * 1024;
/** How often the server looks at the file for changes made by other processes (the CLI). */
const POLL_MS = 700;

export interface ServeOptions {
  dbPath: string;
  port: string | undefined;
  host: string | undefined;
  choice: ModelChoice;
  printer: Printer;
}

/** A refusal the page shows next to the request: status code and a message for a person. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface RequestView {
  id: string;
  kind: string;
  prompt: string;
  url?: string;
  data?: Record<string, unknown>;
  /** A sub-agent's question: who asks, through which agent tools. */
  route?: { agent: string; path: string[] };
  agent?: string;
  sessionId?: string;
  createdAt: string;
  expiresAt?: string;
  state: string;
}

type SessionStatus = "running" | "waiting" | "done" | "stopped" | "failed";

interface SessionView {
  sessionId: string;
  status: SessionStatus;
  updatedAt: string;
  detail?: string;
}

interface ActiveRun {
  status: "running" | "failed";
  startedAt: string;
  detail?: string;
}

const WEB_DIR = new URL("./web/", import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

function requestView(item: SuspensionSummary): RequestView {
  const view: RequestView = {
    id: item.request.id,
    kind: item.request.kind,
    prompt: item.request.prompt,
    createdAt: item.createdAt,
    state: item.state,
  };
  if (item.request.url !== undefined) view.url = item.request.url;
  if (item.request.data !== undefined) view.data = item.request.data;
  if (item.request.route !== undefined) view.route = item.request.route;
  if (item.agent !== undefined) view.agent = item.agent;
  if (item.sessionId !== undefined) view.sessionId = item.sessionId;
  const expiresAt = item.expiresAt ?? item.request.expiresAt;
  if (expiresAt !== undefined) view.expiresAt = expiresAt;
  return view;
}

/** A request a person can still act on: waiting, or expired (its run goes on as declined). */
function open(state: RequestState): boolean {
  return state === "waiting" || state === "expired";
}

/** How the page shows a run the store knows, from its state. */
function runStatus(run: RunInfo): { status: SessionStatus; detail?: string } {
  switch (run.state) {
    case "waiting":
    case "expired":
      return { status: "waiting" };
    case "running":
      return { status: "running" };
    case "done":
      return { status: "done" };
    case "failed":
      return { status: "failed", detail: run.lastError?.message ?? "failed" };
    case "ready":
      // Answered but not continued: stopped (Ctrl-C, a crash), or given back after an error.
      return run.lastError === undefined
        ? { status: "stopped" }
        : { status: "failed", detail: run.lastError.message };
  }
}

function finished(messages: readonly Message[] | undefined): boolean {
  const last = messages?.at(-1);
  return (
    last?.role === "assistant" && (last.toolCalls === undefined || last.toolCalls.length === 0)
  );
}

/** Where the inbox keeps the times of what its runs did (see timeline.ts). */
export interface InboxTimeline {
  /** The timeline file beside the SQLite file. */
  file: string;
  /** A client like the inbox's own, whose events go to `onEvent` (one per run it starts). */
  clientFor(onEvent: (event: RunEvent) => void): Client;
}

/** A session's transcript as the page shows it. */
export interface SessionDetail {
  sessionId: string;
  status: SessionStatus;
  messages: Message[];
  /** When each message happened and how long each call took, where known (else null). */
  times: (MessageTime | null)[];
  pending: Request[];
  detail?: string;
}

/** The inbox over one store: what waits, what ran recently, and answering. */
export class Inbox {
  private readonly active = new Map<string, ActiveRun>();
  private readonly listeners = new Set<(snapshot: string) => void>();
  private last = "";

  constructor(
    private readonly store: SqliteStore,
    private readonly client: Client,
    private readonly log: (text: string) => void,
    private readonly timeline?: InboxTimeline,
  ) {}

  /** The client for one session's run (or continuation), recording its times when it can. */
  private runner(sessionId: string): { client: Client; started(): void } {
    if (this.timeline === undefined) return { client: this.client, started: () => {} };
    const recorder = timelineRecorder(this.timeline.file, sessionId);
    return { client: this.timeline.clientFor(recorder.onEvent), started: recorder.started };
  }

  /** Everything the page shows, as one JSON document. */
  snapshot(): string {
    // A sub-agent's own requests are not shown: the assistant's run passes each one on as its
    // own request (with `route`), and that is the one to answer.
    const all = this.store.list({ limit: 200 }).filter((i) => !isSubAgentRun(i.runId));
    const requests = all.filter((i) => open(i.state)).map(requestView);
    const sessions: SessionView[] = [];
    const seen = new Set<string>();
    for (const [sessionId, run] of this.active) {
      seen.add(sessionId);
      const view: SessionView = { sessionId, status: run.status, updatedAt: run.startedAt };
      if (run.detail !== undefined) view.detail = run.detail;
      sessions.push(view);
    }
    for (const item of all) {
      const id = item.sessionId;
      if (id === undefined || seen.has(id) || sessions.length >= 12) continue;
      seen.add(id);
      // The newest request of the session stands for its run and its last change; answered
      // requests of a finished run keep their time, so the list stays stable between polls.
      const run = this.run(item.runId);
      const status: SessionStatus =
        run !== undefined
          ? runStatus(run).status
          : all.some((i) => i.sessionId === id && open(i.state))
            ? "waiting"
            : finished(this.store.load(id))
              ? "done"
              : "stopped";
      sessions.push({ sessionId: id, status, updatedAt: item.createdAt });
    }
    // Newest first: the page opens the first one.
    sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return JSON.stringify({ requests, sessions });
  }

  /** Sends the snapshot to every open page when it changed (here or in another process). */
  check(): void {
    let next: string;
    try {
      next = this.snapshot();
    } catch (thrown) {
      this.log(`✗ could not read the store: ${(thrown as Error).message}`);
      return;
    }
    if (next === this.last) return;
    this.last = next;
    for (const listener of this.listeners) listener(next);
  }

  subscribe(listener: (snapshot: string) => void): () => void {
    this.listeners.add(listener);
    listener(this.last === "" ? this.snapshot() : this.last);
    return () => this.listeners.delete(listener);
  }

  /** A run by id; undefined when it is gone or unreadable (the page still lists its requests). */
  private run(runId: string): RunInfo | undefined {
    try {
      return this.store.getRun(runId);
    } catch {
      return undefined;
    }
  }

  /**
   * What the page shows on its first paint: the snapshot, the newest run's transcript (the page
   * opens it), and the command that starts the demo.
   */
  initial(): Record<string, unknown> {
    const state = JSON.parse(this.snapshot()) as { sessions: SessionView[] };
    const newest = state.sessions[0];
    let session: SessionDetail | undefined;
    if (newest !== undefined) {
      try {
        session = this.session(newest.sessionId);
      } catch {
        // The page fetches it instead.
      }
    }
    return { ...state, command: demoCommand(), ...(session === undefined ? {} : { session }) };
  }

  /** Which session a request belongs to, and where it stands (for a link to a request). */
  request(id: string): { id: string; sessionId: string; state: RequestState } {
    const info = this.store.getRequest(id);
    const run = info === undefined ? undefined : this.run(info.runId);
    const sessionId = run?.sessionId ?? run?.checkpoint?.sessionId;
    if (info === undefined || sessionId === undefined) {
      throw new HttpError(404, `no request ${id} in this file`);
    }
    return { id, sessionId, state: info.state };
  }

  /** The transcript of a session: the saved conversation, else the waiting run's checkpoint. */
  session(sessionId: string): SessionDetail {
    const all = this.store.list({ sessionId, limit: 50 }).filter((i) => !isSubAgentRun(i.runId));
    const pending = all.filter((i) => open(i.state)).map((i) => i.request);
    // The newest request's run is the session's latest run.
    const stored = all[0] === undefined ? undefined : this.run(all[0].runId);
    let messages = this.store.load(sessionId);
    if (messages === undefined && stored !== undefined) {
      messages = stored.checkpoint?.messages ?? stored.result?.messages;
    }
    const run = this.active.get(sessionId);
    if (run === undefined && all.length === 0 && messages === undefined) {
      throw new HttpError(404, `no run with session ${sessionId} in this file`);
    }
    const fromStore = stored === undefined ? undefined : runStatus(stored);
    const status: SessionStatus =
      run?.status ??
      fromStore?.status ??
      (pending.length > 0 ? "waiting" : finished(messages) ? "done" : "stopped");
    const transcript = messages ?? [];
    const times =
      this.timeline === undefined
        ? transcript.map(() => null)
        : messageTimes(transcript, readTimeline(this.timeline.file, sessionId));
    const view: SessionDetail = { sessionId, status, messages: transcript, times, pending };
    const detail = run === undefined ? fromStore?.detail : run.detail;
    if (detail !== undefined) view.detail = detail;
    return view;
  }

  /**
   * Follows a run or a continued run to its end: saves the transcript and updates the page. A
   * failure that is not the run's own (a run this client cannot continue) puts back the
   * session's earlier state.
   */
  private settle(
    sessionId: string,
    work: () => Promise<RunResult>,
    what: string,
  ): Promise<RunResult> {
    const before = this.active.get(sessionId);
    this.active.set(sessionId, { status: "running", startedAt: new Date().toISOString() });
    this.check();
    return work().then(
      (result) => {
        this.store.save(sessionId, result.messages);
        this.active.delete(sessionId);
        this.log(
          result.status === "pending"
            ? `⏸ ${sessionId} ${what}: waiting for ${result.pending.kind} (${result.pending.id})`
            : `✓ ${sessionId} ${what}: ${result.status}`,
        );
        this.check();
        return result;
      },
      (thrown: unknown) => {
        const message = thrown instanceof Error ? thrown.message : String(thrown);
        if (thrown instanceof RunError) {
          this.store.save(sessionId, thrown.messages);
          this.active.set(sessionId, {
            status: "failed",
            startedAt: new Date().toISOString(),
            detail: message,
          });
        } else if (before === undefined) {
          this.active.delete(sessionId);
        } else {
          this.active.set(sessionId, before);
        }
        this.log(`✗ ${sessionId} ${what}: ${message}`);
        this.check();
        throw thrown;
      },
    );
  }

  /** Starts a new run in the background; the page follows it through the live updates. */
  start(prompt = DEFAULT_PROMPT): string {
    const sessionId = newSessionId();
    this.log(`▸ ${sessionId} started from the page`);
    const runner = this.runner(sessionId);
    runner.started();
    this.settle(sessionId, () => runner.client.run(prompt, { sessionId }), "run").catch(() => {});
    return sessionId;
  }

  /**
   * Answers a request: the wire format with `parseAnswer`, then that this server can continue
   * the run, then the request's own schema; then the answer is recorded (`client.answer`) and
   * the run continued here (`client.continueRun`). Every refusal changes nothing. The same
   * answer twice is accepted once: the second time nothing is recorded or run again.
   */
  async answer(
    body: unknown,
  ): Promise<SessionDetail & { text: string; duplicate: boolean; note?: string }> {
    let answer: Answer;
    try {
      answer = parseAnswer(body);
    } catch (thrown) {
      if (thrown instanceof WireFormatError) throw new HttpError(400, thrown.message);
      throw thrown;
    }
    let found: StoredRequest;
    try {
      found = findRequest(this.store, answer.id);
      assertContinuable(found);
    } catch (thrown) {
      throw this.refusal(thrown);
    }
    // An answered request is the store's to judge: the same answer again, or a conflict.
    const schema = answerSchemaOf(found.request);
    if (found.state === "waiting" && answer.ok && schema !== undefined) {
      const problems = checkAnswerData(schema, answer.data);
      if (problems.length > 0) {
        throw new HttpError(422, `this answer does not fit the request: ${problems.join("; ")}`);
      }
    }
    let recorded: Recorded;
    try {
      recorded = await recordAnswer(this.client, answer);
    } catch (thrown) {
      throw this.refusal(thrown);
    }
    const sessionId = found.sessionId ?? found.runId;
    let result: RunResult;
    try {
      result = await this.settle(
        sessionId,
        () => this.runner(sessionId).client.continueRun(found.runId),
        `answer ${answer.id}${recorded === "recorded" ? "" : ` (${recorded})`}`,
      );
    } catch (thrown) {
      throw this.refusal(thrown);
    }
    const view: SessionDetail & { text: string; duplicate: boolean; note?: string } = {
      ...this.session(sessionId),
      text: result.text,
      duplicate: recorded === "duplicate",
    };
    if (recorded === "duplicate") {
      view.note =
        "this answer was already recorded (in another tab, or from the terminal); nothing was run twice";
    } else if (recorded === "expired") {
      view.note =
        "this request had expired, so the answer was not recorded; the run went on as if it were declined";
    }
    return view;
  }

  private refusal(thrown: unknown): unknown {
    if (thrown instanceof AnswerConflictError) {
      return new HttpError(
        409,
        thrown.reason === "answered"
          ? `this request was already answered differently (in another tab, or from the terminal); an answer cannot be changed once recorded, so nothing changed`
          : thrown.message,
      );
    }
    if (thrown instanceof SuspensionNotFoundError) {
      return new HttpError(404, `no request ${thrown.requestId} waits in this file`);
    }
    if (thrown instanceof WireFormatError) return new HttpError(400, thrown.message);
    if (thrown instanceof CheckpointError) return new HttpError(409, thrown.message);
    if (thrown instanceof ToolnexusError) return new HttpError(500, thrown.message);
    return thrown;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("application/json")) {
    throw new HttpError(415, "send the answer as application/json");
  }
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "the request body is too large");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "the request body is not valid JSON");
  }
}

/** The HTTP handler: static page, state, live events, new runs, answers. */
export function handler(
  inbox: Inbox,
  /** The Host headers to accept; undefined when the server was bound beyond loopback on purpose. */
  allowedHosts: ReadonlySet<string> | undefined,
  log: (text: string) => void,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      // Only names this server was started on: a page on another site cannot reach it through
      // DNS tricks, nor post answers from another origin.
      const host = req.headers.host ?? "";
      if (allowedHosts !== undefined && !allowedHosts.has(host)) {
        throw new HttpError(421, `unexpected Host header "${host}"`);
      }
      const origin = req.headers.origin;
      if (req.method !== "GET" && origin !== undefined && origin !== `http://${host}`) {
        throw new HttpError(403, "cross-origin requests are refused");
      }
      const url = new URL(req.url ?? "/", `http://${host}`);
      const path = url.pathname;

      if (req.method === "GET" && ASSETS[path] !== undefined) {
        const asset = ASSETS[path];
        let body: string | Buffer = readFileSync(new URL(asset.file, WEB_DIR));
        if (path === "/") {
          // The state goes into the page itself, so its first paint shows what waits (a JSON
          // data block, which the script reads; the policy below still runs no inline script).
          const initial = JSON.stringify(inbox.initial());
          body = body
            .toString("utf8")
            .replace(
              '<script id="initial-state" type="application/json"></script>',
              `<script id="initial-state" type="application/json">${initial.replace(/</g, "\\u003c")}</script>`,
            );
        }
        res.writeHead(200, {
          "content-type": asset.type,
          "cache-control": "no-store",
          "content-security-policy":
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
          "x-content-type-options": "nosniff",
        });
        res.end(body);
        return;
      }
      if (req.method === "GET" && path === "/api/state") {
        send(res, 200, JSON.parse(inbox.snapshot()));
        return;
      }
      if (req.method === "GET" && path === "/api/events") {
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
      const requestMatch = /^\/api\/requests\/([\w.:%-]{1,300})$/.exec(path);
      if (req.method === "GET" && requestMatch !== null) {
        send(res, 200, inbox.request(decodeURIComponent(requestMatch[1]!)));
        return;
      }
      const sessionMatch = /^\/api\/sessions\/([\w.-]{1,100})$/.exec(path);
      if (req.method === "GET" && sessionMatch !== null) {
        send(res, 200, inbox.session(sessionMatch[1]!));
        return;
      }
      if (req.method === "POST" && path === "/api/runs") {
        await readJson(req);
        send(res, 202, { sessionId: inbox.start() });
        return;
      }
      if (req.method === "POST" && path === "/api/answers") {
        send(res, 200, await inbox.answer(await readJson(req)));
        return;
      }
      throw new HttpError(404, `nothing at ${req.method} ${path}`);
    } catch (thrown) {
      if (thrown instanceof HttpError) {
        if (req.method === "POST") log(`✗ refused ${req.url}: ${thrown.message}`);
        send(res, thrown.status, { error: thrown.message });
      } else {
        send(res, 500, { error: thrown instanceof Error ? thrown.message : String(thrown) });
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
  server.on("request", handler(inbox, allowedHosts, log));

  const shownHost = host.includes(":") ? `[${host}]` : host;
  printer.heading("toolnexus demo · inbox", "");
  printer.line(`  ${s.bold(`http://${shownHost}:${actual}/`)}`);
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
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      clearInterval(poll);
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  store.close();
  printer.line(s.dim("  stopped"));
  return 0;
}
