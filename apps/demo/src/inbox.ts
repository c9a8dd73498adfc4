// The inbox's own view of the SQLite file: what waits, the recent sessions, one session's
// transcript with its times, and the runs this server starts or continues. Answers, requests
// and runs go over HTTP through @toolnexus/web (see server.ts); this is what that handler does
// not serve: sessions, transcripts and times.
import { type Client, RunError, type RunEvent, type RunResult } from "@toolnexus/client";
import {
  type Message,
  type Request,
  type RequestState,
  type RunInfo,
  randomId,
  type SuspensionSummary,
} from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { DEFAULT_PROMPT } from "./director.js";
import { demoCommand } from "./invocation.js";
import { isSubAgentRun, newSessionId } from "./setup.js";
import { type MessageTime, messageTimes, readTimeline, timelineRecorder } from "./timeline.js";

/** A session this file does not have: the page shows the message. */
export class SessionNotFoundError extends Error {}

interface RequestView {
  id: string;
  runId: string;
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

type SessionStatus = "running" | "waiting" | "done" | "stopped" | "failed" | "cancelled";

interface SessionView {
  sessionId: string;
  /** The session's latest run, when known (the page follows the run it started by its id). */
  runId?: string;
  status: SessionStatus;
  updatedAt: string;
  detail?: string;
}

interface ActiveRun {
  runId: string;
  status: "running" | "failed";
  startedAt: string;
  detail?: string;
}

function requestView(item: SuspensionSummary): RequestView {
  const view: RequestView = {
    id: item.request.id,
    runId: item.runId,
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
    case "cancelled":
      return {
        status: "cancelled",
        ...(run.cancel?.by === undefined ? {} : { detail: `by ${run.cancel.by}` }),
      };
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
  /** The session's latest run: the page follows its events and cancels it by this id. */
  runId?: string;
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
      const view: SessionView = {
        sessionId,
        runId: run.runId,
        status: run.status,
        updatedAt: run.startedAt,
      };
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
      sessions.push({ sessionId: id, runId: item.runId, status, updatedAt: item.createdAt });
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
      throw new SessionNotFoundError(`no run with session ${sessionId} in this file`);
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
    const runId = run?.runId ?? stored?.runId;
    if (runId !== undefined) view.runId = runId;
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
    runId: string,
    work: () => Promise<RunResult>,
    what: string,
  ): Promise<RunResult> {
    const before = this.active.get(sessionId);
    this.active.set(sessionId, { runId, status: "running", startedAt: new Date().toISOString() });
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
            runId,
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
  start(prompt = DEFAULT_PROMPT): { sessionId: string; runId: string } {
    const sessionId = newSessionId();
    // Chosen here, so the page that started the run can pick it out before it halts.
    const runId = randomId("run");
    this.log(`▸ ${sessionId} started from the page`);
    const runner = this.runner(sessionId);
    runner.started();
    this.settle(
      sessionId,
      runId,
      // Durable from the first turn: the page follows its tool calls as they happen, not only
      // from the first halt on.
      () => runner.client.run(prompt, { sessionId, runId, durable: true }),
      "run",
    ).catch(() => {});
    return { sessionId, runId };
  }

  /** The run a request belongs to, if this file has it. */
  runOf(requestId: string): string | undefined {
    return this.store.getRequest(requestId)?.runId;
  }

  /**
   * Continues a run that an answer made ready (or that expired: it goes on as declined). The
   * web handler only records answers; this server is the demo's worker. A run this server is
   * already running is left alone, so a repeated answer never runs anything twice.
   */
  continueAnswered(runId: string, what: string): void {
    const run = this.run(runId);
    const sessionId = run?.sessionId ?? run?.checkpoint?.sessionId ?? runId;
    if (run === undefined || (run.state !== "ready" && run.state !== "expired")) return;
    if (this.active.get(sessionId)?.status === "running") return;
    this.settle(
      sessionId,
      runId,
      () => this.runner(sessionId).client.continueRun(runId),
      what,
    ).catch(() => {});
  }
}
