// The chat handler over a SQLite file while a worker in another process continues the runs: the
// handler starts a run (to its first halt), records the person's approval and only follows the
// file; the chat (ai 7's own) sees the whole run, and a reload mid-run resumes it.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { expect, it, onTestFinished } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { lastAssistant, type Part, serveChat, VERSIONS, visibleParts } from "./test-kit.js";

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-ai-sdk-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "runs.db");
}

/** A worker process on the file until the test ends; resolves once it works. */
async function workerProcess(path: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [new URL("./fixtures/worker.mjs", import.meta.url).pathname, path],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = once(child, "exit");
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  for await (const line of createInterface({ input: child.stdout! })) if (line === "ready") break;
  return child;
}

const outline = (parts: Part[]) =>
  parts
    .filter((p) => p.type !== "data-toolnexus-run")
    .map((p) =>
      `${p.type}${p.state ? `:${p.state}` : ""} ${String(p.text ?? p.output ?? "")}`.trim(),
    );

it("follows runs a worker in another process continues, and resumes one after a reload", async () => {
  const path = tempDb();
  const store = sqliteStore({ path });
  onTestFinished(() => store.close());
  await workerProcess(path);
  const served = await serveChat(store, agentClient(store), { pollMs: 20 });
  onTestFinished(() => served.close());
  const ai7 = VERSIONS[0];
  const chat = ai7.chat({ api: served.api, chatId: "a-sqlite", token: "token-alice" });

  // An approval: the stream ends on it; approving continues the run in the worker process.
  await chat.sendMessage("please roll back");
  const part = lastAssistant(chat.messages)!.parts.find((p) => p.type === "tool-rollback")!;
  expect(part.state).toBe("approval-requested");
  const finished = chat.nextFinish();
  await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
  expect(await finished).toEqual({ isError: false, isAbort: false });
  expect(outline(visibleParts(lastAssistant(chat.messages)))).toEqual([
    "text:done Rolling back.",
    "tool-rollback:output-available rolled back v2",
    "text:done Done: rolled back v2",
  ]);
  expect(store.getRequest(part.approval!.id)).toMatchObject({
    answeredBy: "alice",
    state: "applied",
  });

  // An input question; the page reloads while the run waits (the stream is cut), and a new
  // chat with the messages the app kept resumes it: the message is rebuilt, not doubled.
  const asked = chat.nextData("data-toolnexus-request");
  const sending = chat.sendMessage("now deploy");
  const question = (await asked).data as { requestId: string };
  await chat.stop();
  await sending;
  const kept = structuredClone(chat.messages);
  expect(outline(visibleParts(kept.at(-1)))).toEqual([
    "text:done Checking.",
    "tool-deploy:input-available",
    "data-toolnexus-request",
  ]);

  // ai 7 reloads and resumes, then the page is closed again; ai 6 reloads, resumes, and sees
  // the answer (given through the web handler) and the rest of the run.
  const reload = (version: (typeof VERSIONS)[number]) => {
    const reloaded = version.chat({
      api: served.api,
      chatId: "a-sqlite",
      token: "token-alice",
      messages: structuredClone(kept),
    });
    const again = reloaded.nextData("data-toolnexus-request");
    return { reloaded, resuming: reloaded.resumeStream(), again };
  };
  const first = reload(VERSIONS[0]);
  await first.again;
  expect(first.reloaded.status).toBe("streaming");
  expect(outline(visibleParts(first.reloaded.messages.at(-1)))).toEqual(
    outline(visibleParts(kept.at(-1))),
  );
  await first.reloaded.stop();
  await first.resuming;

  const second = reload(VERSIONS[1]);
  await second.again;
  const answered = await fetch(`${served.web}/requests/${question.requestId}/answer`, {
    method: "POST",
    headers: { authorization: "Bearer token-alice", "content-type": "application/json" },
    body: JSON.stringify({ ok: true, data: { env: "production" } }),
  });
  expect(answered.status).toBe(200);
  await second.resuming;
  expect(second.reloaded.error).toBeUndefined();
  const messages = second.reloaded.messages;
  expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  expect(messages[3]!.id).toBe(kept[3]!.id);
  expect(outline(visibleParts(messages[3]))).toEqual([
    "text:done Checking.",
    "tool-deploy:output-available deployed to production",
    "data-toolnexus-request",
    "text:done Done: deployed to production",
  ]);
  expect(messages.slice(0, 3)).toEqual(kept.slice(0, 3));

  // Reloaded after the run ended, there is nothing to resume (204): the messages stay as kept.
  const late = VERSIONS[1].chat({
    api: served.api,
    chatId: "a-sqlite",
    token: "token-alice",
    messages: structuredClone(messages),
  });
  await late.resumeStream();
  expect([late.status, late.messages]).toEqual(["ready", messages]);
});
