// The inbox server's HTTP contract, in-process over a real SQLite file: requests, answers and
// runs through @toolnexus/web's handler under /api; every refusal names the problem and changes
// nothing; an accepted answer is recorded with who answered, and this server continues the run.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type SqliteStore, sqliteStore } from "@toolnexus/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedReleaseModel } from "../src/director.js";
import { handler, Inbox } from "../src/server.js";
import { demoClient } from "../src/setup.js";
import { timelinePath } from "../src/timeline.js";
import { tempDir } from "./processes.js";

const YOU = "tester@this-machine";

interface RequestView {
  id: string;
  runId: string;
  kind: string;
  prompt: string;
  sessionId: string;
  data?: { schema?: unknown };
}
interface State {
  requests: RequestView[];
  sessions: { sessionId: string; runId?: string; status: string }[];
}
interface Session {
  sessionId: string;
  status: string;
  messages: { role: string; name?: string; isError?: boolean; content: string }[];
  pending: { id: string; kind: string }[];
}
interface ErrorBody {
  error: { code: string; message: string; issues?: string[]; reason?: string };
}

let tmp: ReturnType<typeof tempDir>;
let store: SqliteStore;
let server: Server;
let base: string;
let logs: string[];

beforeEach(async () => {
  tmp = tempDir();
  store = sqliteStore({ path: tmp.file("demo.db") });
  logs = [];
  const model = scriptedReleaseModel();
  const log = (line: string) => logs.push(line);
  const inbox = new Inbox(store, demoClient({ model, store }), log, {
    file: timelinePath(store.path),
    clientFor: (onEvent) => demoClient({ model, store, onEvent }),
  });
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  server.on("request", handler(inbox, store, new Set([`127.0.0.1:${port}`]), log, YOU));
  base = `http://127.0.0.1:${port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  store.close();
  tmp.cleanup();
});

async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: T }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, json: (await response.json()) as T };
}

const answerPath = (id: string) => `/api/requests/${encodeURIComponent(id)}/answer`;

async function state(): Promise<State> {
  return (await call<State>("GET", "/inbox/state")).json;
}

/** Polls (without a fixed delay) until `read` gives something `ready` accepts. */
async function until<T>(
  read: () => Promise<T>,
  ready: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await read();
    if (ready(current)) return current;
    if (Date.now() > deadline) throw new Error(`never got there: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const untilState = (ready: (s: State) => boolean) => until(state, ready);
const untilSession = (sessionId: string, ready: (s: Session) => boolean) =>
  until(async () => (await call<Session>("GET", `/inbox/sessions/${sessionId}`)).json, ready);

async function startedRun(): Promise<RequestView> {
  const started = await call("POST", "/api/runs", {});
  expect(started.status).toBe(201);
  const runId = started.json.runId as string;
  const s = await untilState((x) => x.requests.some((r) => r.runId === runId));
  return s.requests.find((r) => r.runId === runId)!;
}

describe("the inbox server", () => {
  it("starts a run through the handler that halts into the inbox with the request's schema", async () => {
    const request = await startedRun();
    expect(request).toMatchObject({
      kind: "input",
      prompt: "Which environment should 2.4.1 go to?",
      data: { schema: { required: ["env"] } },
    });
    const session = await call<Session>("GET", `/inbox/sessions/${request.sessionId}`);
    expect(session.json.status).toBe("waiting");
    expect(JSON.stringify(session.json.messages)).toContain("timed out after 1000ms");
    // The handler's own routes see the same run and request.
    const listed = await call<{ requests: { id: string }[] }>("GET", "/api/requests?state=waiting");
    expect(listed.json.requests.map((r) => r.id)).toEqual([request.id]);
    const run = await call("GET", `/api/runs/${encodeURIComponent(request.runId)}`);
    expect(run.json).toMatchObject({ state: "waiting", sessionId: request.sessionId });
    // A start takes nothing but {}: the page cannot choose the prompt or anything else.
    const refused = await call<ErrorBody>("POST", "/api/runs", { prompt: "rm -rf" });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain("empty JSON object");
  });

  it("writes the state, the newest transcript and who answers into the page, finds a request's run, and times each step", async () => {
    const request = await startedRun();
    const page = await (await fetch(`${base}/`)).text();
    const data = /<script id="initial-state" type="application\/json">(.*?)<\/script>/s.exec(page);
    expect(data).not.toBeNull();
    const initial = JSON.parse(data![1]!) as {
      requests: { id: string }[];
      sessions: { sessionId: string }[];
      session: { sessionId: string; messages: unknown[] };
      command: string;
      you: string;
    };
    expect(initial.requests.map((r) => r.id)).toEqual([request.id]);
    expect(initial.session.sessionId).toBe(request.sessionId);
    expect(initial.command).toMatch(/ demo$/);
    expect(initial.you).toBe(YOU);
    // Never a way out of the data block: "<" is escaped.
    expect(data![1]).not.toContain("<");

    const found = await call("GET", `/api/requests/${request.id}`);
    expect(found.json).toMatchObject({
      id: request.id,
      runId: request.runId,
      sessionId: request.sessionId,
      state: "waiting",
    });
    const missing = await call<ErrorBody>("GET", "/api/requests/pnd_nope");
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");

    const session = (await call("GET", `/inbox/sessions/${request.sessionId}`)).json as {
      messages: { role: string; name?: string; isError?: boolean; content: string }[];
      times: ({ at?: string; durationMs?: number; timedOut?: boolean } | null)[];
    };
    expect(session.times).toHaveLength(session.messages.length);
    session.messages.forEach((message, i) => {
      const time = session.times[i];
      if (message.role === "system") expect(time).toBeNull();
      else expect(time?.at, JSON.stringify(message)).toMatch(/^\d{4}-/);
      if (message.role === "tool" && message.content === "timed out after 1000ms") {
        expect(time).toMatchObject({ timedOut: true });
        // A duration, not a bound on it: Node's timers run on the loop's cached clock and may
        // fire a few ms before 1000 ms have passed by performance.now() on a busy machine.
        expect(time?.durationMs).toBeGreaterThan(0);
      }
    });
  });

  it("refuses bad answers with the handler's reasons and changes nothing; the old routes are gone", async () => {
    const request = await startedRun();
    const path = answerPath(request.id);
    const refusals: [string, unknown, number, string, string, Record<string, string>?][] = [
      [path, "{not json", 400, "bad_request", "not valid JSON"],
      [path, { ok: "yes" }, 400, "bad_request", "ok"],
      [path, { id: request.id, ok: true }, 400, "bad_request", "id"],
      [
        path,
        { ok: true, data: { env: "moon" } },
        400,
        "invalid_answer",
        "data.env: expected one of",
      ],
      [
        path,
        { ok: true, data: { env: "staging", color: "red" } },
        400,
        "invalid_answer",
        "data.color: unknown field",
      ],
      [answerPath("pnd_unknown"), { ok: true }, 404, "not_found", "no request"],
      [
        path,
        { ok: true },
        415,
        "unsupported_media_type",
        "application/json",
        { "content-type": "text/plain" },
      ],
      [
        path,
        { ok: true },
        403,
        "forbidden_origin",
        "may not post here",
        { origin: "http://evil.example" },
      ],
      ["/api/answers", { id: request.id, ok: true }, 404, "not_found", "no such route"],
    ];
    for (const [target, body, status, code, text, headers] of refusals) {
      const answered = await call<ErrorBody>("POST", target, body, headers);
      expect(answered.status, JSON.stringify(body)).toBe(status);
      expect(answered.json.error.code, JSON.stringify(body)).toBe(code);
      expect(
        [answered.json.error.message, ...(answered.json.error.issues ?? [])].join("; "),
        JSON.stringify(body),
      ).toContain(text);
    }
    const after = await state();
    expect(after.requests.map((r) => r.id)).toEqual([request.id]);
    expect(store.getRequest(request.id)).toMatchObject({ state: "waiting" });
    expect(store.getRequest(request.id)?.answer).toBeUndefined();
  });

  it("answers once: the server continues the run; a changed answer is a 409, the same one a no-op", async () => {
    const request = await startedRun();
    const answered = await call("POST", answerPath(request.id), {
      ok: true,
      data: { env: "production", notify: false },
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({
      requestId: request.id,
      runId: request.runId,
      duplicate: false,
    });
    const halted = await untilSession(request.sessionId, (s) =>
      s.pending.some((p) => p.kind === "approval"),
    );
    expect(halted.status).toBe("waiting");
    expect(JSON.stringify(halted.messages)).toContain("deployed 2.4.1 to production");
    const approval = halted.pending[0]!;

    const repeated = await call<ErrorBody>("POST", answerPath(request.id), {
      ok: true,
      data: { env: "staging" },
    });
    expect(repeated.status).toBe(409);
    expect(repeated.json.error).toMatchObject({ code: "answer_conflict", reason: "answered" });
    expect(repeated.json.error.message).toContain("already has a different answer");
    expect((await state()).requests.map((r) => r.id)).toEqual([approval.id]);
    expect(store.getRequest(request.id)?.answer).toMatchObject({ data: { env: "production" } });

    // The same answer again (a double click, a second tab): accepted, nothing runs twice.
    const duplicate = await call("POST", answerPath(request.id), {
      ok: true,
      data: { env: "production", notify: false },
    });
    expect(duplicate.status).toBe(200);
    expect(duplicate.json).toMatchObject({ duplicate: true });
    expect((await state()).requests.map((r) => r.id)).toEqual([approval.id]);
    const again = (await call<Session>("GET", `/inbox/sessions/${request.sessionId}`)).json;
    expect(again.messages.filter((m) => m.content.includes("deployed 2.4.1"))).toHaveLength(1);

    const approved = await call("POST", answerPath(approval.id), { ok: true });
    expect(approved.status).toBe(200);
    const done = await untilSession(request.sessionId, (s) => s.status === "done");
    expect(JSON.stringify(done.messages)).toContain("production is back on 2.4.0");
    expect((await state()).requests).toEqual([]);
    const run = await call("GET", `/api/runs/${encodeURIComponent(request.runId)}`);
    expect(run.json).toMatchObject({ state: "done" });
    expect(run.json.text).toContain("production is back on 2.4.0");
  });

  it("shows a sub-agent's question once, as the assistant's request, and answers it there", async () => {
    // A run that asks for the notes to be published halts on the changelog writer's approval.
    const client = demoClient({ model: scriptedReleaseModel(), store });
    const halted = await client.run("Please ship 2.4.1 and publish the release notes.", {
      sessionId: "rel-notes",
    });
    if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
    const id = halted.pending.id;
    const inner = id.replace(/:write_release_notes$/, "");
    expect(store.list({ state: "waiting" })).toHaveLength(2);
    const shown = await untilState((x) => x.requests.length > 0);
    expect(shown.requests).toEqual([
      expect.objectContaining({
        id,
        kind: "approval",
        sessionId: "rel-notes",
        route: { agent: "changelog-writer", path: ["write_release_notes"] },
      }),
    ]);
    const session = await call<Session>("GET", "/inbox/sessions/rel-notes");
    expect(session.json.pending.map((p) => p.id)).toEqual([id]);

    // The sub-agent's own request is not the one to answer: refused, nothing recorded.
    const refused = await call<ErrorBody>("POST", answerPath(inner), { ok: true });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("not_continuable");
    expect(refused.json.error.message).toContain(`as request ${id}: answer that one`);
    expect(store.getRequest(inner)).toMatchObject({ state: "waiting" });

    const approved = await call("POST", answerPath(id), { ok: true });
    expect(approved.status).toBe(200);
    const next = await untilSession("rel-notes", (s) => s.pending.some((p) => p.kind === "input"));
    expect(next.status).toBe("waiting");
    expect(JSON.stringify(next.messages)).toContain(
      "Published at https://shop.example/changelog/2.4.1.",
    );
    // Both the sub-agent's request and the assistant's were applied; only the deploy waits.
    expect(store.getRequest(inner)?.state).toBe("applied");
    expect(store.list({ state: "waiting" }).map((i) => i.request.kind)).toEqual(["input"]);
  });

  it("follows and cancels a run through the handler where the store can, and tells the page which it can", async () => {
    const request = await startedRun();
    const features = {
      events: typeof (store as { readEvents?: unknown }).readEvents === "function",
      cancel: typeof (store as { cancel?: unknown }).cancel === "function",
    };
    const page = await (await fetch(`${base}/`)).text();
    const data = /<script id="initial-state" type="application\/json">(.*?)<\/script>/s.exec(page);
    expect(JSON.parse(data![1]!).features).toEqual(features);
    const run = encodeURIComponent(request.runId);

    const controller = new AbortController();
    const events = await fetch(`${base}/api/runs/${run}/events`, { signal: controller.signal });
    if (features.events) {
      // The halted run's history, from its first event: it ends suspended on the question.
      expect(events.headers.get("content-type")).toContain("text/event-stream");
      const reader = events.body!.getReader();
      let text = "";
      while (!text.includes("event: suspended")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text).toContain("event: suspended");
    } else {
      // The SQLite store records no run events yet: the handler says so, and the page keeps
      // to the live state stream.
      expect(events.status).toBe(501);
      expect(((await events.json()) as ErrorBody).error.code).toBe("not_implemented");
    }
    controller.abort();

    const cancelled = await call("POST", `/api/runs/${run}/cancel`, { reason: "not today" });
    if (features.cancel) {
      expect(cancelled.status).toBe(200);
      expect(cancelled.json).toMatchObject({ outcome: "cancelled", state: "cancelled" });
      await untilSession(request.sessionId, (s) => s.status === "cancelled");
      const late = await call<ErrorBody>("POST", answerPath(request.id), {
        ok: true,
        data: { env: "staging" },
      });
      expect(late.json.error).toMatchObject({ code: "answer_conflict", reason: "cancelled" });
    } else {
      expect(cancelled.status).toBe(501);
      expect(store.getRequest(request.id)).toMatchObject({ state: "waiting" });
    }
  });

  it("serves the page only to its own host names, and live state over SSE", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(await page.text()).toContain("Release assistant");

    // fetch() may not set Host, so this one goes through node:http.
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(base);
      request(
        {
          host: url.hostname,
          port: url.port,
          path: "/api/requests",
          headers: { host: "attacker.example" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on("error", reject)
        .end();
    });
    expect(rebound).toBe(421);

    const controller = new AbortController();
    const events = await fetch(`${base}/inbox/events`, { signal: controller.signal });
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const reader = events.body!.getReader();
    let text = "";
    while (!text.includes("event: state")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text).toContain('data: {"requests":[]');
  });
});
