import { memoryRunStore } from "@toolnexus/client";
import { describe, expect, it } from "vitest";
import { WebError } from "./errors.js";
import { recordAnswer } from "./record-answer.js";
import {
  authorizeRequest,
  authorizeRun,
  identifyCaller,
  MAX_CALLER_ID_CHARS,
} from "./run-access.js";
import { allowOwnSessions, ENV_SCHEMA, haltRun, identifyByToken, USERS } from "./test-kit.js";

const withToken = (token?: string) =>
  new Request("http://127.0.0.1/x", token ? { headers: { authorization: `Bearer ${token}` } } : {});

async function refusal(promise: Promise<unknown>): Promise<WebError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebError);
  return error as WebError;
}

describe("identifyCaller", () => {
  it("returns the caller identify finds, 401 for none, a TypeError for a caller without an id", async () => {
    expect(await identifyCaller(identifyByToken, withToken("token-alice"))).toBe(
      USERS["token-alice"],
    );
    const none = await refusal(identifyCaller(identifyByToken, withToken()));
    expect([none.status, none.code]).toEqual([401, "unauthenticated"]);
    const long = { id: "x".repeat(MAX_CALLER_ID_CHARS + 1) };
    await expect(identifyCaller(() => long, withToken())).rejects.toThrow(TypeError);
  });
});

describe("authorizeRun / authorizeRequest / recordAnswer", () => {
  it("lets in only whom allow says, with one 404 for unknown and not yours, and records who answered", async () => {
    const store = memoryRunStore();
    await haltRun(store, { runId: "r1", sessionId: "S", requests: ["q1"], schema: ENV_SCHEMA });
    const alice = { store, caller: USERS["token-alice"]!, allow: allowOwnSessions };
    const bob = { store, caller: USERS["token-bob"]!, allow: allowOwnSessions };
    expect((await authorizeRun(alice, "r1", "follow")).runId).toBe("r1");
    const notYours = await refusal(authorizeRun(bob, "r1", "follow"));
    const unknown = await refusal(authorizeRun(alice, "nope", "follow"));
    expect([notYours.status, notYours.message]).toEqual([unknown.status, unknown.message]);
    const noAllow = await refusal(
      authorizeRun({ store, caller: USERS["token-alice"]! }, "r1", "read"),
    );
    expect(noAllow.status).toBe(404);

    const { info } = await authorizeRequest(alice, "q1", "answer");
    expect(info.request.id).toBe("q1");
    expect((await refusal(authorizeRequest(bob, "q1", "answer"))).status).toBe(404);

    const bad = await refusal(
      recordAnswer(store, info.request, { id: "q1", ok: true, data: { env: "moon" } }, "alice"),
    );
    expect([bad.status, bad.code, bad.issues]).toEqual([
      400,
      "invalid_answer",
      ['data.env: expected one of "staging", "production"'],
    ]);
    const receipt = await recordAnswer(
      store,
      info.request,
      { id: "q1", ok: true, data: { env: "staging" } },
      "alice",
    );
    expect([receipt.state, receipt.duplicate]).toEqual(["ready", false]);
    expect((await store.getRequest("q1"))?.answeredBy).toBe("alice");
    const conflict = await refusal(
      recordAnswer(store, info.request, { id: "q1", ok: false, reason: "declined" }, "alice"),
    );
    expect([conflict.status, conflict.code, conflict.reason]).toEqual([
      409,
      "answer_conflict",
      "answered",
    ]);
  });
});
