// The built `toolnexus` command, in child processes, over a real SQLite file holding real runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunSummary } from "@toolnexus/core";
import { type SqliteStore, sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killAll, start, toolnexus } from "./cli-process.js";
import { continueToEnd, failedRun, haltOnApproval, haltOnQuestion } from "./runs.js";

let dir: string;
let path: string;
let store: SqliteStore;
let question: { runId: string; requestId: string };
let approval: { runId: string; requestId: string };
let failed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolnexus-cli-"));
  path = join(dir, "runs.db");
  store = sqliteStore({ path });
  question = await haltOnQuestion(store, { agent: "support", sessionId: "s1" });
  approval = await haltOnApproval(store, { agent: "billing", sessionId: "s2" });
  failed = await failedRun(store, { agent: "support", sessionId: "s3" });
});
afterEach(() => killAll());
afterAll(() => {
  store?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const json = <T>(text: string): T => JSON.parse(text) as T;

describe("toolnexus over a SQLite file", () => {
  it("prints its help, and each command's", async () => {
    const main = await toolnexus(["--help"]);
    expect(main.code, main.stderr).toBe(0);
    for (const command of [
      "runs list",
      "runs show",
      "runs follow",
      "answer",
      "cancel",
      "retry",
      "prune",
    ]) {
      expect(main.stdout).toContain(command);
    }
    const list = await toolnexus(["runs", "list", "--help"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("--older-than <age>");
    expect((await toolnexus([])).code).toBe(2);
  });

  it("lists runs newest change first, filtered by state, agent and session", async () => {
    const all = await toolnexus(["runs", "list", "--store", path, "--json"]);
    expect(all.code, all.stderr).toBe(0);
    const runs = json<RunSummary[]>(all.stdout);
    expect(runs.map((r) => r.runId)).toEqual([failed, approval.runId, question.runId]);
    expect(runs.map((r) => r.state)).toEqual(["failed", "waiting", "waiting"]);

    const waiting = await toolnexus([
      "runs",
      "list",
      "--store",
      path,
      "--json",
      "--state",
      "waiting",
      "--agent",
      "support",
    ]);
    expect(json<RunSummary[]>(waiting.stdout).map((r) => r.runId)).toEqual([question.runId]);
    const bySession = await toolnexus([
      "runs",
      "list",
      "--store",
      path,
      "--json",
      "--session",
      "s2",
    ]);
    expect(json<RunSummary[]>(bySession.stdout).map((r) => r.runId)).toEqual([approval.runId]);
    const old = await toolnexus(["runs", "list", "--store", path, "--json", "--older-than", "1d"]);
    expect(json<RunSummary[]>(old.stdout)).toEqual([]);
    const limited = await toolnexus(["runs", "list", "--store", path, "--json", "--limit", "1"]);
    expect(json<RunSummary[]>(limited.stdout)).toHaveLength(1);
  });

  it("prints an aligned table for people, without colour when not on a terminal", async () => {
    const table = await toolnexus(["runs", "list", "--store", path]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RUN +STATE +AGENT +SESSION +CHANGED +FAILURES +LAST ERROR$/);
    expect(lines).toHaveLength(4);
    // Every row's STATE column starts where the header's does.
    const at = lines[0]!.indexOf("STATE");
    expect(lines.slice(1).map((line) => line.slice(at).split(" ")[0])).toEqual([
      "failed",
      "waiting",
      "waiting",
    ]);
    expect(table.stdout).toContain("model_failed: the model is down");
    expect(table.stdout).not.toContain("\u001b[");
  });

  it("shows a run: transcript, requests, events", async () => {
    const shown = await toolnexus(["runs", "show", question.runId, "--store", path]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Run ${question.runId}  waiting`);
    expect(shown.stdout).toContain("user: ship web");
    expect(shown.stdout).toContain("→ ask_env({})");
    expect(shown.stdout).toContain(question.requestId);
    expect(shown.stdout).toContain("Which environment?");
    expect(shown.stdout).toMatch(/suspended +input/);
    const asJson = json<{
      run: { runId: string; requests: unknown[] };
      journal: unknown[];
      events: { type: string }[];
    }>((await toolnexus(["runs", "show", question.runId, "--store", path, "--json"])).stdout);
    expect(asJson.run.runId).toBe(question.runId);
    expect(asJson.run.requests).toHaveLength(1);
    expect(asJson.events.map((e) => e.type)).toContain("suspended");

    const failedShown = await toolnexus(["runs", "show", failed, "--store", path]);
    expect(failedShown.stdout).toContain("last error model_failed: the model is down");
  });

  it("says what to fix for an unknown id, a missing file and a bad option", async () => {
    const unknown = await toolnexus(["runs", "show", "run_nope", "--store", path]);
    expect(unknown.code, unknown.stderr).toBe(3);
    expect(unknown.stderr).toContain('no durable run with id "run_nope"');
    expect(unknown.stderr).toContain("toolnexus runs list");
    const missing = await toolnexus(["runs", "list", "--store", join(dir, "nope.db")]);
    expect(missing.code, missing.stderr).toBe(4);
    expect(missing.stderr).toContain("check the path");
    const badState = await toolnexus(["runs", "list", "--store", path, "--state", "sleeping"]);
    expect(badState.code, badState.stderr).toBe(2);
    expect(badState.stderr).toContain("--state takes one of waiting, ready");
    const badOption = await toolnexus(["runs", "list", "--store", path, "--colour"]);
    expect(badOption.code, badOption.stderr).toBe(2);
    expect(badOption.stderr).toContain("--colour");
    const noStore = await toolnexus(["runs", "list"]);
    expect(noStore.code, noStore.stderr).toBe(2);
    expect(noStore.stderr).toContain("TOOLNEXUS_DATABASE_URL");
    const badAge = await toolnexus(["prune", "--store", path, "--older-than", "soon"]);
    expect(badAge.code, badAge.stderr).toBe(2);
    expect(badAge.stderr).toContain("30d");
  });

  it("checks an answer's data against the request's schema, listing every problem", async () => {
    const bad = await toolnexus([
      "answer",
      question.requestId,
      "--data",
      '{"env":"moon","extra":1}',
      "--by",
      "alice",
      "--store",
      path,
    ]);
    expect(bad.code, bad.stderr).toBe(5);
    expect(bad.stderr).toContain("does not match the request's schema");
    expect(bad.stderr).toContain("data.env: expected one of");
    expect(bad.stderr).toContain("data.extra: unknown field");
    const badJson = await toolnexus([
      "answer",
      question.requestId,
      "--data",
      "{env",
      "--by",
      "alice",
      "--store",
      path,
      "--json",
    ]);
    expect(badJson.code, badJson.stderr).toBe(2);
    expect(json<{ error: { code: string } }>(badJson.stderr).error.code).toBe("usage");
    const noBy = await toolnexus(["answer", question.requestId, "--approve", "--store", path]);
    expect(noBy.code, noBy.stderr).toBe(2);
    expect(noBy.stderr).toContain("--by <who> is required");
    const unknown = await toolnexus([
      "answer",
      "req_nope",
      "--approve",
      "--by",
      "alice",
      "--store",
      path,
    ]);
    expect(unknown.code, unknown.stderr).toBe(3);
    expect((await store.getRequest(question.requestId))?.state).toBe("waiting");
  });

  it("follows a run while it is answered from another process and continued, until it ends", async () => {
    const follow = start(["runs", "follow", question.runId, "--store", path, "--json"]);
    await follow.printed('"type":"suspended"');
    const answered = await toolnexus([
      "answer",
      question.requestId,
      "--data",
      '{"env":"staging"}',
      "--by",
      "alice@example.com",
      "--store",
      path,
    ]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain("ready");
    await follow.printed('"type":"answered"');
    const done = await continueToEnd(store, question.runId, "shipped to staging", "support");
    expect(done.status).toBe("done");
    const end = await follow.done;
    expect(end.code, end.stderr).toBe(0);
    const types = end.stdout
      .trimEnd()
      .split("\n")
      .map((line) => json<{ type: string }>(line).type);
    expect(types.slice(-1)).toEqual(["done"]);
    expect(types).toContain("tool_result");

    const shown = await toolnexus(["runs", "show", question.runId, "--store", path]);
    expect(shown.stdout).toContain("alice@example.com");
    expect(shown.stdout).toContain('ok {"env":"staging"}');
    expect(shown.stdout).toContain("result     shipped to staging");
    // The same answer again changes nothing; a different one is refused.
    const again = await toolnexus([
      "answer",
      question.requestId,
      "--decline",
      "--by",
      "bob",
      "--store",
      path,
    ]);
    expect(again.code, again.stderr).toBe(5);
  });

  it("stops following on Ctrl-C with exit code 130", async () => {
    const follow = start(["runs", "follow", approval.runId, "--store", path]);
    await follow.printed("suspended");
    follow.child.kill("SIGINT");
    const end = await follow.done;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stdout).toContain("Deploy web to production?");
  });

  it("declines an approval with a reason, and cancels a run", async () => {
    const declined = await toolnexus([
      "answer",
      approval.requestId,
      "--decline",
      "--reason",
      "not on a Friday",
      "--by",
      "carol",
      "--store",
      path,
      "--json",
    ]);
    expect(declined.code, declined.stderr).toBe(0);
    expect(json<{ state: string }>(declined.stdout).state).toBe("ready");
    const info = await store.getRequest(approval.requestId);
    expect(info?.answer).toEqual({
      id: approval.requestId,
      ok: false,
      reason: "declined",
      data: { reason: "not on a Friday" },
    });
    expect(info?.answeredBy).toBe("carol");

    const cancelled = await toolnexus([
      "cancel",
      approval.runId,
      "--reason",
      "Friday",
      "--by",
      "carol",
      "--store",
      path,
    ]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain("is cancelled");
    expect((await store.getRun(approval.runId))?.cancel).toMatchObject({
      by: "carol",
      reason: "Friday",
    });
    const again = await toolnexus(["cancel", approval.runId, "--by", "carol", "--store", path]);
    expect(again.stdout).toContain("already cancelled");
  });

  it("retries a failed run: a worker can claim it again", async () => {
    const waitingRetry = await toolnexus(["retry", question.runId, "--store", path]);
    expect(waitingRetry.code, waitingRetry.stderr).toBe(5);
    expect(waitingRetry.stderr).toContain("only a failed run can be retried");
    const retried = await toolnexus(["retry", failed, "--store", path]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain("is ready");
    const claimed = await store.claim({ owner: "worker-2", leaseMs: 60_000, agent: "support" });
    expect(claimed?.lease.runId).toBe(failed);
    await store.release(claimed!.lease);
  });

  it("prunes finished runs older than an age", async () => {
    const none = await toolnexus(["prune", "--older-than", "30d", "--store", path, "--json"]);
    expect(json<{ pruned: number }>(none.stdout)).toEqual({ pruned: 0 });
    const some = await toolnexus(["prune", "--older-than", "0s", "--store", path]);
    expect(some.code, some.stderr).toBe(0);
    // The done run and the cancelled one.
    expect(some.stdout).toContain("pruned 2 finished runs");
    expect(await store.getRun(question.runId)).toBeUndefined();
    const left = await toolnexus(["runs", "list", "--store", path, "--json"]);
    expect(json<RunSummary[]>(left.stdout).map((r) => r.runId)).toEqual([failed]);
  });
});
