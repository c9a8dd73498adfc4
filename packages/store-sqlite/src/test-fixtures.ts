import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type FinishedResult,
  type JournalEntry,
  type PendingCall,
  type Request,
  randomId,
} from "@toolnexus/core";
import { afterEach, beforeEach } from "vitest";
import type { Db } from "./driver.js";
import { currentDriver } from "./driver-select.js";
import { type SqliteStore, sqliteStore } from "./store.js";

/** The database at `path` opened directly with the running Node's driver, to look inside. */
export function openRaw(path: string): Db {
  return currentDriver().open(path);
}

/** A throwaway folder for database files, removed by the returned `cleanup`. */
export function tempDir(): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-sqlite-"));
  return {
    dir,
    file: (name = "store.db") => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A pending call for `request`, as the client would record it. */
export function pendingCall(request: Request, slot: number, deadline?: string): PendingCall {
  const call: PendingCall = {
    request,
    callId: `call_${request.id}`,
    tool: "ask_user",
    args: { question: request.prompt },
    fingerprint: `ask_user:${request.prompt}`,
    approval: false,
    slot,
  };
  if (deadline !== undefined) call.deadline = deadline;
  return call;
}

/** A valid checkpoint halted on `requests` (one pending call each). */
export function checkpoint(
  requests: Request[],
  overrides: Partial<Checkpoint> & { deadlines?: (string | undefined)[] } = {},
): Checkpoint {
  const { deadlines = [], ...rest } = overrides;
  return {
    version: CHECKPOINT_VERSION,
    runId: randomId("run"),
    createdAt: new Date().toISOString(),
    messages: [
      { role: "user", content: "deploy it" },
      {
        role: "assistant",
        id: "msg_1",
        content: "",
        toolCalls: requests.map((r) => ({
          id: `call_${r.id}`,
          name: "ask_user",
          args: { question: r.prompt },
          rawArgs: JSON.stringify({ question: r.prompt }),
        })),
      },
      ...requests.map((r) => ({
        role: "tool" as const,
        callId: `call_${r.id}`,
        name: "ask_user",
        content: r.prompt,
        isError: true,
      })),
    ],
    pending: requests.map((r, i) => pendingCall(r, 2 + i, deadlines[i])),
    turns: 1,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    ...rest,
  };
}

/** A Request with a fresh id. */
export function request(init: Partial<Request> = {}): Request {
  return { id: randomId("pnd"), kind: "input", prompt: "Which environment?", ...init };
}

/** The journal entry of a finished call; `answered` marks the request it applied an answer to. */
export function journalEntry(callId: string, answered?: string): JournalEntry {
  const entry: JournalEntry = {
    callId,
    message: { role: "tool", callId, name: "ask_user", content: "staging", isError: false },
    record: {
      id: callId,
      name: "ask_user",
      args: {},
      result: { output: "staging", isError: false },
      status: "ok",
      timedOut: false,
      durationMs: 1,
    },
  };
  if (answered !== undefined) entry.answered = answered;
  return entry;
}

/** A finished run's result, as a worker hands it to `finish`. */
export function doneResult(runId: string): FinishedResult {
  return {
    status: "done",
    text: "Deployed.",
    messages: [
      { role: "user", content: "deploy it" },
      { role: "assistant", id: "msg_2", content: "Deployed." },
    ],
    toolCalls: [],
    turns: 2,
    usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
    model: "scripted",
    runId,
    sessionId: undefined,
  };
}

/** A checkpoint of a run between steps: nothing pending. */
export function stepCheckpoint(runId: string, turns = 1): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    runId,
    createdAt: new Date().toISOString(),
    messages: [{ role: "user", content: "deploy it" }],
    pending: [],
    turns,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  };
}

/**
 * A fresh store on a new file for each test of the calling file, closed and removed after it:
 * call at the top level of a test file; `use` receives each test's store and its file.
 */
export function storePerTest(use: (store: SqliteStore, path: string) => void): void {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let store: SqliteStore | undefined;
  beforeEach(() => {
    tmp = tempDir();
    const path = tmp.file();
    store = sqliteStore({ path });
    use(store, path);
  });
  afterEach(() => {
    store?.close();
    tmp?.cleanup();
  });
}

/** What `fn` throws; fails the test when it does not throw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** An ISO time `msFromNow` from now (negative: in the past). */
export function iso(msFromNow: number): string {
  return new Date(Date.now() + msFromNow).toISOString();
}
