// Redeploys across processes: process A (release 1 of the `deploy` tool) halts a run in a SQLite
// file and exits; process B (release 2: the schema changed, the tool renamed, gone, or migrating)
// continues it. Both run the built client in their own Node process (fixtures/redeploy-agent.mjs).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../src/store.js";
import { tempDir } from "../src/test-fixtures.js";
import { startFixture } from "./processes.js";

interface Outcome {
  status?: string;
  text?: string;
  runId?: string;
  requestId?: string;
  calls?: { name: string; args: Record<string, unknown> }[];
  error?: {
    name: string;
    code: string;
    message: string;
    change?: string;
    tool?: string;
    current?: string;
    before?: string;
    after?: string;
    isCheckpointError: boolean;
  };
}

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir();
  db = tmp.file("runs.db");
});
afterEach(() => tmp.cleanup());

/** Runs one release in its own process to its one output line. */
async function release(build: string, ...args: string[]): Promise<Outcome> {
  const fixture = startFixture("redeploy-agent.mjs", [db, build, ...args]);
  const [line, exit] = await Promise.all([fixture.line<Outcome>(), fixture.exited]);
  expect(exit, fixture.stderr()).toBe(0);
  return line;
}

/** Release 1 halts a run in process A; a web process records the human's answer. */
async function haltedUnderRelease1() {
  const halted = await release("1", "halt");
  expect(halted.status).toBe("pending");
  const store = sqliteStore({ path: db });
  try {
    const run = store.getRun(halted.runId!)!;
    expect(run.checkpoint?.pending[0]).toMatchObject({
      tool: "deploy",
      schema: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    store.answer({ id: halted.requestId!, ok: true, data: { by: "ops" } });
    return { ...halted, schema: run.checkpoint!.pending[0]!.schema! };
  } finally {
    store.close();
  }
}

function stateOf(runId: string) {
  const store = sqliteStore({ path: db });
  try {
    const run = store.getRun(runId)!;
    return { state: run.state, lastError: run.lastError, request: run.requests[0]?.state };
  } finally {
    store.close();
  }
}

describe("a run halted under release 1, continued by release 2 in another process", () => {
  it("schema changed, no migration: ToolChangedError with both fingerprints; nothing changes", async () => {
    const halted = await haltedUnderRelease1();
    const { error } = await release("changed", "continue", halted.runId!);
    expect(error).toMatchObject({
      name: "ToolChangedError",
      code: "tool_changed",
      change: "schema_changed",
      tool: "deploy",
      before: halted.schema,
      isCheckpointError: true,
    });
    expect(error?.after).toMatch(/^[0-9a-f]{16}$/);
    expect(error?.after).not.toBe(halted.schema);
    expect(stateOf(halted.runId!)).toEqual({
      state: "ready",
      lastError: undefined,
      request: "answered",
    });
  });

  it("tool gone: ToolChangedError, change removed", async () => {
    const halted = await haltedUnderRelease1();
    const { error } = await release("gone", "continue", halted.runId!);
    expect(error).toMatchObject({ code: "tool_changed", change: "removed", tool: "deploy" });
    expect(error?.message).toContain('list "deploy" in the new tool\'s previousNames');
  });

  it("renamed with previousNames: continues under the new name with the same arguments", async () => {
    const halted = await haltedUnderRelease1();
    const done = await release("renamed", "continue", halted.runId!);
    expect(done.error).toBeUndefined();
    expect(done.status).toBe("done");
    expect(done.text).toBe('finished: release ran with {"env":"prod"}, signed by ops');
    expect(done.calls).toMatchObject([{ name: "release", args: { env: "prod" } }]);
  });

  it("a migration listing the fingerprint from the error: the recorded answer, the migrated arguments", async () => {
    const halted = await haltedUnderRelease1();
    const refused = await release("changed", "continue", halted.runId!);
    const from = refused.error!.before!;
    const done = await release("migrated", "continue", halted.runId!, from);
    expect(done.status).toBe("done");
    expect(done.text).toBe(
      'finished: deploy ran with {"target":"prod","dryRun":false}, signed by ops',
    );
    expect(done.calls).toMatchObject([{ name: "deploy", args: { target: "prod", dryRun: false } }]);
  });

  it("a worker of release 2 gives the run back with the error; release 3 (migrating) finishes it", async () => {
    const halted = await haltedUnderRelease1();
    const { error } = await release("changed", "work");
    expect(error).toMatchObject({ code: "tool_changed", change: "schema_changed" });
    const refused = stateOf(halted.runId!);
    expect(refused).toMatchObject({
      state: "ready",
      request: "answered",
      lastError: { code: "tool_changed" },
    });
    expect(refused.lastError?.message).toContain(`fingerprint ${halted.schema} then`);
    const done = await release("migrated", "continue", halted.runId!, halted.schema);
    expect(done.text).toBe(
      'finished: deploy ran with {"target":"prod","dryRun":false}, signed by ops',
    );
    expect(stateOf(halted.runId!).state).toBe("done");
  });
});
