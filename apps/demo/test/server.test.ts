// The inbox server's HTTP contract, in-process over a real SQLite file: every refusal names the
// problem and changes nothing; an accepted answer resumes the run.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type SqliteStore, sqliteStore } from "@toolnexus/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedReleaseModel } from "../src/director.js";
import { handler, Inbox } from "../src/server.js";
import { demoClient } from "../src/setup.js";
import { timelinePath } from "../src/timeline.js";
import { tempDir } from "./processes.js";

interface RequestView {
  id: string;
  kind: string;
  prompt: string;
  sessionId: string;
  data?: { schema?: unknown };
}
interface State {
  requests: RequestView[];
  sessions: { sessionId: string; status: string }[];
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
  const inbox = new Inbox(store, demoClient({ model, store }), (line) => logs.push(line), {
    file: timelinePath(store.path),
    clientFor: (onEvent) => demoClient({ model, store, onEvent }),
  });
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  server.on(
    "request",
    handler(inbox, new Set([`127.0.0.1:${port}`]), (line) => logs.push(line)),
  );
  base = `http://127.0.0.1:${port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  store.close();
  tmp.cleanup();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function state(): Promise<State> {
  return (await call("GET", "/api/state")).json as unknown as State;
}

/** Waits (without a fixed delay) until the state satisfies `ready`. */
async function until(ready: (s: State) => boolean, timeoutMs = 30_000): Promise<State> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await state();
    if (ready(current)) return current;
    if (Date.now() > deadline) throw new Error(`state never got there: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startedRun(): Promise<RequestView> {
  const started = await call("POST", "/api/runs", {});
  expect(started.status).toBe(202);
  const sessionId = started.json.sessionId as string;
  const s = await until((x) => x.requests.some((r) => r.sessionId === sessionId));
  return s.requests.find((r) => r.sessionId === sessionId)!;
}

describe("the inbox server", () => {
  it("starts a run that halts into the inbox with the request's schema", async () => {
    const request = await startedRun();
    expect(request).toMatchObject({
      kind: "input",
      prompt: "Which environment should 2.4.1 go to?",
      data: { schema: { required: ["env"] } },
    });
    const session = await call("GET", `/api/sessions/${request.sessionId}`);
    expect(session.json.status).toBe("waiting");
    expect(JSON.stringify(session.json.messages)).toContain("timed out after 1000ms");
  });

  it("writes the state and the newest transcript into the page, finds a request's run, and times each step", async () => {
    const request = await startedRun();
    const page = await (await fetch(`${base}/`)).text();
    const data = /<script id="initial-state" type="application\/json">(.*?)<\/script>/s.exec(page);
    expect(data).not.toBeNull();
    const initial = JSON.parse(data![1]!) as {
      requests: { id: string }[];
      sessions: { sessionId: string }[];
      session: { sessionId: string; messages: unknown[] };
      command: string;
    };
    expect(initial.requests.map((r) => r.id)).toEqual([request.id]);
    expect(initial.session.sessionId).toBe(request.sessionId);
    expect(initial.command).toMatch(/ demo$/);
    // Never a way out of the data block: "<" is escaped.
    expect(data![1]).not.toContain("<");

    const found = await call("GET", `/api/requests/${request.id}`);
    expect(found.json).toEqual({ id: request.id, sessionId: request.sessionId, state: "waiting" });
    expect((await call("GET", "/api/requests/pnd_nope")).status).toBe(404);

    const session = (await call("GET", `/api/sessions/${request.sessionId}`)).json as {
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
        expect(time?.durationMs).toBeGreaterThanOrEqual(1000);
      }
    });
  });

  it("refuses bad answers with a reason and changes nothing", async () => {
    const request = await startedRun();
    const refusals: [unknown, number, string, Record<string, string>?][] = [
      ["{not json", 400, "not valid JSON"],
      [{ id: request.id, ok: "yes" }, 400, '"ok" must be a boolean'],
      [{ id: request.id, ok: true, data: { env: "moon" } }, 422, '"env" must be one of staging'],
      [{ id: request.id, ok: true, data: { env: "staging", color: "red" } }, 422, '"color" is not'],
      [{ id: "pnd_unknown", ok: true }, 404, "no request pnd_unknown"],
      [{ id: request.id, ok: true }, 415, "application/json", { "content-type": "text/plain" }],
      [{ id: request.id, ok: true }, 403, "cross-origin", { origin: "http://evil.example" }],
    ];
    for (const [body, status, message, headers] of refusals) {
      const answered = await call("POST", "/api/answers", body, headers);
      expect(answered.status, JSON.stringify(body)).toBe(status);
      expect(answered.json.error).toContain(message);
    }
    const after = await state();
    expect(after.requests.map((r) => r.id)).toEqual([request.id]);
    expect(store.getRequest(request.id)).toMatchObject({ state: "waiting" });
    expect(store.getRequest(request.id)?.answer).toBeUndefined();
  });

  it("answers once: the run goes on; a changed answer is a 409, the same one a no-op", async () => {
    const request = await startedRun();
    const answered = await call("POST", "/api/answers", {
      id: request.id,
      ok: true,
      data: { env: "production", notify: false },
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ sessionId: request.sessionId, status: "waiting" });
    expect(JSON.stringify(answered.json.messages)).toContain("deployed 2.4.1 to production");
    const approval = (answered.json.pending as { id: string; kind: string }[])[0]!;
    expect(approval.kind).toBe("approval");

    const repeated = await call("POST", "/api/answers", {
      id: request.id,
      ok: true,
      data: { env: "staging" },
    });
    expect(repeated.status).toBe(409);
    expect(repeated.json.error).toContain(
      "this request was already answered differently (in another tab, or from the terminal)",
    );
    expect((await state()).requests.map((r) => r.id)).toEqual([approval.id]);
    expect(store.getRequest(request.id)?.answer).toMatchObject({ data: { env: "production" } });

    // The same answer again (a double click, a second tab): accepted, nothing runs twice.
    const duplicate = await call("POST", "/api/answers", {
      id: request.id,
      ok: true,
      data: { env: "production", notify: false },
    });
    expect(duplicate.status).toBe(200);
    expect(duplicate.json).toMatchObject({ duplicate: true, status: "waiting" });
    expect(duplicate.json.note).toContain("this answer was already recorded");
    expect((duplicate.json.pending as { id: string }[]).map((p) => p.id)).toEqual([approval.id]);
    expect(answered.json.duplicate).toBe(false);
    expect((await state()).requests.map((r) => r.id)).toEqual([approval.id]);

    const approved = await call("POST", "/api/answers", { id: approval.id, ok: true });
    expect(approved.status).toBe(200);
    expect(approved.json.status).toBe("done");
    expect(approved.json.text).toContain("production is back on 2.4.0");
    expect((await state()).requests).toEqual([]);
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
    const shown = await until((x) => x.requests.length > 0);
    expect(shown.requests).toEqual([
      expect.objectContaining({
        id,
        kind: "approval",
        sessionId: "rel-notes",
        route: { agent: "changelog-writer", path: ["write_release_notes"] },
      }),
    ]);
    const session = await call("GET", "/api/sessions/rel-notes");
    expect((session.json.pending as { id: string }[]).map((p) => p.id)).toEqual([id]);

    // The sub-agent's own request is not the one to answer: refused, nothing recorded.
    const refused = await call("POST", "/api/answers", { id: inner, ok: true });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toContain(`as request ${id}: answer that one`);
    expect(store.getRequest(inner)).toMatchObject({ state: "waiting" });

    const approved = await call("POST", "/api/answers", { id, ok: true });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ sessionId: "rel-notes", status: "waiting" });
    expect(JSON.stringify(approved.json.messages)).toContain(
      "Published at https://shop.example/changelog/2.4.1.",
    );
    expect((approved.json.pending as { kind: string }[]).map((p) => p.kind)).toEqual(["input"]);
    // Both the sub-agent's request and the assistant's were applied; only the deploy waits.
    expect(store.getRequest(inner)?.state).toBe("applied");
    expect(store.list({ state: "waiting" }).map((i) => i.request.kind)).toEqual(["input"]);
  });

  it("serves the page only to its own host names, and live state over SSE", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(await page.text()).toContain("Start a release run");

    // fetch() may not set Host, so this one goes through node:http.
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(base);
      request(
        {
          host: url.hostname,
          port: url.port,
          path: "/api/state",
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
    const events = await fetch(`${base}/api/events`, { signal: controller.signal });
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
