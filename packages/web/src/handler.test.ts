import type { RunStore } from "@toolnexus/core";
import { isoIn } from "@toolnexus/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WebHandlerOptions } from "./options.js";
import {
  allowOwnSessions,
  auth,
  ENV_SCHEMA,
  haltRun,
  identifyByToken,
  newStore,
  postJson,
  SERVERS,
  type Served,
  type User,
} from "./test-kit.js";

describe.each(SERVERS)("served on 127.0.0.1 (%s)", (_name, serveWith) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function setUp(
    extra: Partial<WebHandlerOptions<User>> = {},
  ): Promise<{ store: RunStore; served: Served }> {
    const store = extra.store ?? newStore();
    await haltRun(store, {
      runId: "run_s",
      sessionId: "S",
      agent: "ops",
      requests: ["req_s"],
      schema: ENV_SCHEMA,
    });
    await haltRun(store, { runId: "run_t", sessionId: "T", agent: "ops", requests: ["req_t"] });
    served = await serveWith({
      store,
      identify: identifyByToken,
      allow: allowOwnSessions,
      ...extra,
    });
    return { store, served };
  }

  const get = (path: string, token = "token-alice", headers: Record<string, string> = {}) =>
    fetch(`${served!.base}${path}`, { headers: { ...auth(token), ...headers } });

  it("a caller allowed only session S never sees, answers, follows or cancels T's run: each is the 404 of an unknown id", async () => {
    const { store } = await setUp();
    const list = await (await get("/requests")).json();
    expect(list.requests.map((r: { id: string }) => r.id)).toEqual(["req_s"]);

    const unknownRequest = await get("/requests/req_nope");
    const unknownBody = await unknownRequest.json();
    expect(unknownRequest.status).toBe(404);
    const unknownRun = await (await get("/runs/run_nope")).json();

    const reads = [
      await get("/requests/req_t"),
      await postJson(served!, "/requests/req_t/answer", { ok: true }, auth("token-alice")),
    ];
    for (const response of reads) {
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(unknownBody);
    }
    const runRoutes = [
      await get("/runs/run_t"),
      await get("/runs/run_t/events"),
      await postJson(served!, "/runs/run_t/cancel", {}, auth("token-alice")),
    ];
    for (const response of runRoutes) {
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(unknownRun);
    }
    // Nothing happened to T's run, and bob still sees and answers it.
    expect((await store.getRun("run_t"))?.state).toBe("waiting");
    expect((await store.getRequest("req_t"))?.state).toBe("waiting");
    const bobs = await (await get("/requests", "token-bob")).json();
    expect(bobs.requests.map((r: { id: string }) => r.id)).toEqual(["req_t"]);
    const answered = await postJson(
      served!,
      "/requests/req_t/answer",
      { ok: true },
      auth("token-bob"),
    );
    expect(answered.status).toBe(200);
    expect((await store.getRequest("req_t"))?.answeredBy).toBe("bob");
  });

  it("without allow nothing is allowed (default-deny), and without a caller everything is 401", async () => {
    await setUp({ allow: undefined });
    expect((await (await get("/requests")).json()).requests).toEqual([]);
    expect((await get("/requests/req_s")).status).toBe(404);
    expect((await get("/runs/run_s")).status).toBe(404);
    const noCaller = await fetch(`${served!.base}/requests`);
    expect(noCaller.status).toBe(401);
    expect((await noCaller.json()).error.code).toBe("unauthenticated");
    expect((await get("/runs/run_s", "token-mallory")).status).toBe(401);
  });

  it("an allowed caller reads a request with its JSON Schema, and the run as a view (no checkpoint)", async () => {
    await setUp();
    const request = await (await get("/requests/req_s")).json();
    expect(request).toMatchObject({
      id: "req_s",
      runId: "run_s",
      kind: "input",
      state: "waiting",
      sessionId: "S",
      agent: "ops",
      data: { schema: ENV_SCHEMA },
    });
    const run = await (await get("/runs/run_s")).json();
    expect(run).toMatchObject({ runId: "run_s", state: "waiting", sessionId: "S", agent: "ops" });
    expect(run.requests.map((r: { id: string }) => r.id)).toEqual(["req_s"]);
    expect(run).not.toHaveProperty("checkpoint");
    expect(JSON.stringify(run)).not.toContain("messages");
  });

  it("records who answered from the caller, never from the body, and repeats are duplicates; a different answer is 409", async () => {
    const { store } = await setUp();
    const forged = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "staging" }, by: "admin" },
      auth("token-alice"),
    );
    expect(forged.status).toBe(400);
    expect((await forged.json()).error.issues).toEqual(["by: unknown field"]);

    const answer = { ok: true, data: { env: "staging" } };
    const first = await postJson(served!, "/requests/req_s/answer", answer, auth("token-alice"));
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      requestId: "req_s",
      runId: "run_s",
      duplicate: false,
    });
    const info = await store.getRequest("req_s");
    expect(info).toMatchObject({ state: "answered", answeredBy: "alice" });

    const again = await postJson(served!, "/requests/req_s/answer", answer, auth("token-alice"));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });

    const other = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "production" } },
      auth("token-alice"),
    );
    expect(other.status).toBe(409);
    expect((await other.json()).error).toMatchObject({
      code: "answer_conflict",
      reason: "answered",
    });
    const view = await (await get("/requests/req_s")).json();
    expect(view).toMatchObject({ state: "answered", answeredBy: "alice", answer: { ok: true } });
    expect(view.answer).not.toHaveProperty("data");
  });

  it("an answer against the request's schema lists every problem (400), unknown fields included", async () => {
    const { store } = await setUp();
    const bad = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "moon", replicas: 0, extra: 1 } },
      auth("token-alice"),
    );
    expect(bad.status).toBe(400);
    const { error } = await bad.json();
    expect(error.code).toBe("invalid_answer");
    expect(error.issues).toEqual(
      expect.arrayContaining([
        'data.env: expected one of "staging", "production"',
        "data.replicas: must be >= 1",
        "data.extra: unknown field",
      ]),
    );
    const missing = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true },
      auth("token-alice"),
    );
    expect((await missing.json()).error.issues).toEqual(["data.env: required"]);
    // A declined answer carries no data to check.
    expect((await store.getRequest("req_s"))?.state).toBe("waiting");
    const declined = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: false, reason: "declined" },
      auth("token-alice"),
    );
    expect(declined.status).toBe(200);
  });

  it("refuses a malformed answer body with each problem (400), non-JSON (415), over the cap (413)", async () => {
    await setUp({ maxBodyBytes: 200 });
    const shapes = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: "yes", data: [1], reason: "because" },
      auth("token-alice"),
    );
    expect(shapes.status).toBe(400);
    expect((await shapes.json()).error.issues).toEqual([
      "ok: required, true or false",
      "data: must be an object",
      "reason: one of declined, cancelled, expired",
    ]);
    const notJson = await postJson(served!, "/requests/req_s/answer", "{ok:", auth("token-alice"));
    expect(notJson.status).toBe(400);
    const form = await fetch(`${served!.base}/requests/req_s/answer`, {
      method: "POST",
      headers: { ...auth("token-alice"), "content-type": "application/x-www-form-urlencoded" },
      body: "ok=true",
    });
    expect(form.status).toBe(415);
    expect((await form.json()).error.code).toBe("unsupported_media_type");
    const big = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "x".repeat(500) } },
      auth("token-alice"),
    );
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe("payload_too_large");
  });

  it("refuses a cross-site POST (another Origin, or Sec-Fetch-Site: cross-site) and accepts allowedOrigins", async () => {
    const { store } = await setUp({ allowedOrigins: ["https://app.example.com"] });
    const evil = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "staging" } },
      {
        ...auth("token-alice"),
        origin: "https://evil.example",
      },
    );
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.code).toBe("forbidden_origin");
    const nullOrigin = await postJson(
      served!,
      "/runs/run_s/cancel",
      {},
      { ...auth("token-alice"), origin: "null" },
    );
    expect(nullOrigin.status).toBe(403);
    const crossSite = await fetch(`${served!.base}/runs/run_s/cancel`, {
      method: "POST",
      headers: {
        ...auth("token-alice"),
        "content-type": "application/json",
        "sec-fetch-site": "cross-site",
      },
      body: "{}",
    });
    expect(crossSite.status).toBe(403);
    expect((await store.getRun("run_s"))?.state).toBe("waiting");
    expect((await store.getRequest("req_s"))?.state).toBe("waiting");

    const listed = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "staging" } },
      {
        ...auth("token-alice"),
        origin: "https://app.example.com",
      },
    );
    expect(listed.status).toBe(200);
    // A client without Origin (curl, a server) is not a browser: it passes the origin check.
    const noOrigin = await fetch(`${served!.base}/runs/run_s/cancel`, {
      method: "POST",
      headers: { ...auth("token-alice"), "content-type": "application/json" },
      body: JSON.stringify({ reason: "done testing" }),
    });
    expect(noOrigin.status).toBe(200);
  });

  it("answers to an expired request and to a cancelled run are 409 with the reason", async () => {
    const { store } = await setUp();
    await haltRun(store, {
      runId: "run_old",
      sessionId: "S",
      requests: ["req_old"],
      expiresAt: isoIn(-60_000),
    });
    const expired = await postJson(
      served!,
      "/requests/req_old/answer",
      { ok: true },
      auth("token-alice"),
    );
    expect(expired.status).toBe(409);
    expect((await expired.json()).error).toMatchObject({
      code: "answer_conflict",
      reason: "expired",
    });

    const cancelled = await postJson(
      served!,
      "/runs/run_s/cancel",
      { reason: "wrong ticket" },
      auth("token-alice"),
    );
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({
      runId: "run_s",
      outcome: "cancelled",
      state: "cancelled",
    });
    const late = await postJson(
      served!,
      "/requests/req_s/answer",
      { ok: true, data: { env: "staging" } },
      auth("token-alice"),
    );
    expect(late.status).toBe(409);
    expect((await late.json()).error).toMatchObject({
      code: "answer_conflict",
      reason: "cancelled",
    });
    const run = await (await get("/runs/run_s")).json();
    expect(run).toMatchObject({
      state: "cancelled",
      cancel: { by: "alice", reason: "wrong ticket" },
    });
  });

  it("lists with filters and a cap, and refuses a bad query with each problem", async () => {
    const { store } = await setUp();
    await haltRun(store, {
      runId: "run_s2",
      sessionId: "S",
      agent: "billing",
      requests: ["req_s2", "req_s3"],
    });
    const all = await (await get("/requests")).json();
    expect(all.requests.map((r: { id: string }) => r.id).sort()).toEqual([
      "req_s",
      "req_s2",
      "req_s3",
    ]);
    const billing = await (await get("/requests?agent=billing")).json();
    expect(billing.requests.map((r: { id: string }) => r.id).sort()).toEqual(["req_s2", "req_s3"]);
    const capped = await (await get("/requests?limit=2")).json();
    expect(capped.requests).toHaveLength(2);
    expect(capped.more).toBe(true);
    expect((await (await get("/requests?session=T")).json()).requests).toEqual([]);
    const bad = await get("/requests?state=lost&limit=0&colour=red");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues).toEqual([
      "colour: unknown parameter (known: session, agent, kind, state, limit)",
      "state: one of waiting, answered, applied, expired, cancelled",
      "limit: a whole number from 1 to 100",
    ]);
  });

  it("validates ids, routes and methods before looking anything up", async () => {
    await setUp();
    const long = await get(`/requests/${"x".repeat(300)}`);
    expect(long.status).toBe(400);
    expect((await get("/requests/a%00b")).status).toBe(400);
    expect((await get("/nothing")).status).toBe(404);
    const wrongMethod = await fetch(`${served!.base}/requests/req_s/answer`, {
      headers: auth("token-alice"),
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect((await get("/runs")).status).toBe(404); // no start: no POST /runs either
  });

  it("serves a sub-agent's run, whose id has a slash, by its percent-encoded id", async () => {
    const { store } = await setUp();
    await haltRun(store, { runId: "run_s/deployer", sessionId: "S", requests: ["req_sub"] });
    const run = await get(`/runs/${encodeURIComponent("run_s/deployer")}`);
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ runId: "run_s/deployer", state: "waiting" });
    expect((await get(`/runs/${encodeURIComponent("run_t/deployer")}`)).status).toBe(404);
  });

  it("a request whose schema does not compile is a 500 for the host's log, and nothing is recorded", async () => {
    const onError = vi.fn();
    const { store } = await setUp({ onError });
    await haltRun(store, {
      runId: "run_bad",
      sessionId: "S",
      requests: ["req_bad"],
      schema: { type: "object", properties: { n: { type: "no-such-type" } } },
    });
    const response = await postJson(
      served!,
      "/requests/req_bad/answer",
      { ok: true, data: { n: 1 } },
      auth("token-alice"),
    );
    expect(response.status).toBe(500);
    expect((await response.json()).error.code).toBe("internal");
    expect(onError).toHaveBeenCalledTimes(1);
    expect((await store.getRequest("req_bad"))?.state).toBe("waiting");
  });

  it("an unexpected error is a 500 naming an id (given to onError), never its message", async () => {
    const store = newStore();
    const onError = vi.fn();
    const broken: RunStore = {
      ...store,
      halt: store.halt.bind(store),
      getRun: () => {
        throw new Error("connection string postgres://admin:hunter2@db failed");
      },
    } as RunStore;
    await setUp({ store: broken, onError });
    const response = await get("/runs/run_s");
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("hunter2");
    const { error } = JSON.parse(text);
    expect(error.code).toBe("internal");
    expect(error.errorId).toMatch(/^err_/);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![1].errorId).toBe(error.errorId);
  });

  it("POST /runs calls start when given and allowed, and is 403 for a caller allow refuses", async () => {
    const started: unknown[] = [];
    await setUp({
      allow: (caller, access) => access.action === "start" && caller.id === "alice",
      start: ({ caller, body }) => {
        started.push({ by: caller.id, body });
        return { runId: "run_new" };
      },
    });
    const ok = await postJson(served!, "/runs", { topic: "deploy" }, auth("token-alice"));
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ runId: "run_new" });
    const refused = await postJson(served!, "/runs", { topic: "deploy" }, auth("token-bob"));
    expect(refused.status).toBe(403);
    expect(started).toEqual([{ by: "alice", body: { topic: "deploy" } }]);
  });
});
