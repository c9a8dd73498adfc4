// The demo's page in a real browser: Debian's Chromium driven by playwright-core (never a
// downloaded browser), against the Vite build `demo serve` serves. `demo serve` runs as a child
// process on a free port and starts its worker, a second process on the same SQLite file: the
// chat (useChat over the server's chat handler) starts a run that halts in the server, the
// answers go in through the page, and the worker continues the run while the chat follows it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DIR, type DemoProcess, runDemo, startDemo, tempDir } from "./processes.js";

const CHROMIUM = "/usr/bin/chromium";
const WAIT = { timeout: 60_000 };

let tmp: ReturnType<typeof tempDir>;
let serve: DemoProcess;
let context: BrowserContext;
let base: string;
let db: string;
let workerPid: string;

beforeAll(async () => {
  // Fail loudly rather than skip: the browser test is part of what the demo promises.
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: run .ci/browser-setup.sh as root (apt-get install chromium) before the demo's tests`,
    );
  }
  if (!existsSync(new URL("../dist/web/index.html", import.meta.url))) {
    throw new Error(
      "the page is not built: run `npx -y pnpm@12.4.2 --filter @toolnexus/demo build`",
    );
  }
  tmp = tempDir();
  db = tmp.file("demo.db");
  serve = startDemo(["serve", "--port", "0", "--db", db]);
  const match = await serve.waitFor(/http:\/\/127\.0\.0\.1:(\d+)\//);
  base = `http://127.0.0.1:${match[1]}`;
  workerPid = (await serve.waitFor(/worker +process (\d+)/))[1]!;
  expect(Number(workerPid)).not.toBe(serve.child.pid);
  context = await chromium.launchPersistentContext(tmp.file("profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
  });
});

afterAll(async () => {
  await context?.close();
  await serve?.stop();
  tmp?.cleanup();
});

/** A fresh chat (a new chat id) with the page's parts ready. */
async function openChat(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(base);
  await page.getByLabel("Ask the release assistant").waitFor(WAIT);
  return page;
}

function assistant(page: Page): Locator {
  return page.locator('#transcript li[data-role="assistant"]');
}

/** The chat's parts as the DOM shows them, e.g. "tool:deploy", "text", "request". */
async function partsOf(page: Page): Promise<string[]> {
  return assistant(page)
    .locator("[data-part]")
    .evaluateAll((nodes) =>
      nodes.map((node) => {
        const el = node as HTMLElement;
        return el.dataset.tool === undefined ? el.dataset.part! : `tool:${el.dataset.tool}`;
      }),
    );
}

function tool(page: Page, name: string, state?: string): Locator {
  return assistant(page).locator(
    `[data-part="tool"][data-tool="${name}"]${state === undefined ? "" : `[data-state="${state}"]`}`,
  );
}

/** The deploy question, waiting in the chat (its form made from the request's JSON Schema). */
function deployQuestion(page: Page): Locator {
  return assistant(page).locator('[data-part="request"][data-request-state="waiting"]', {
    hasText: "Which environment should 2.4.1 go to?",
  });
}

describe("the chat in Chromium, continued by the worker process", () => {
  it("asks, halts on the rollback approval, and on Approve the worker runs it: the tool's output and the final text", async () => {
    const page = await openChat();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page
      .locator('#transcript li[data-role="user"]', { hasText: "Please ship 2.4.1" })
      .waitFor(WAIT);
    // The run halts (in the server) on deploy's question, rendered from its schema.
    const question = deployQuestion(page);
    await question.waitFor(WAIT);
    await question.getByLabel("Environment", { exact: true }).selectOption("staging");
    await question.getByRole("button", { name: "Send answer" }).click();

    // The worker continues it: the deploy's output, then the rollback's approval.
    await tool(page, "deploy", "output-available").waitFor(WAIT);
    const approval = tool(page, "rollback", "approval-requested");
    await approval.waitFor(WAIT);
    await serve.waitFor(new RegExp(`\\[worker ${workerPid}\\].*waits for approval`));
    if (process.env.UPDATE_SCREENSHOT === "1") {
      // The README's picture: the chat halted on the approval, beside the inbox.
      await page.screenshot({ path: join(DEMO_DIR, "docs", "inbox.png"), fullPage: true });
    }

    await approval.getByRole("button", { name: "Approve" }).click();
    const done = tool(page, "rollback", "output-available");
    await done.waitFor(WAIT);
    await expect(done.locator(".tool-output").textContent()).resolves.toContain(
      "rolled staging back to 2.4.0",
    );
    await assistant(page)
      .locator('[data-part="text"]', { hasText: "is back on 2.4.0" })
      .waitFor(WAIT);
    await assistant(page).locator('[data-part="run"][data-run-state="done"]').waitFor(WAIT);
    await serve.waitFor(new RegExp(`\\[worker ${workerPid}\\].*✓ worker: \\S+ done`));
    // Each call shows once.
    const parts = await partsOf(page);
    for (const name of ["whoami", "deploy", "rollback"]) {
      expect(parts.filter((p) => p === `tool:${name}`)).toHaveLength(1);
    }
    expect(parts.filter((p) => p === "tool:fetch_status")).toHaveLength(2);
    await page.close();
  });

  it("resumes after a reload with every part once; the inbox answers; Decline records the person's reason", async () => {
    const page = await openChat();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const question = deployQuestion(page);
    await question.waitFor(WAIT);
    const before = await partsOf(page);
    expect(before).toContain("tool:deploy");
    expect(before).toContain("request");

    // Reload mid-run: the stream is still open on the question. The same chat (its id is in the
    // address) resumes: the same parts, none lost, none twice.
    const address = page.url();
    await page.reload();
    expect(page.url()).toBe(address);
    await deployQuestion(page).waitFor(WAIT);
    await expect.poll(() => partsOf(page), WAIT).toEqual(before);

    // Someone answers in the inbox (the same page's other half): the chat follows.
    const card = page.locator('article.request[data-kind="input"]', {
      hasText: "Which environment should 2.4.1 go to?",
    });
    await card.waitFor(WAIT);
    await card.getByLabel("Environment", { exact: true }).selectOption("production");
    await card.getByRole("button", { name: "Send answer" }).click();
    await card.waitFor({ state: "detached", ...WAIT });
    const approval = tool(page, "rollback", "approval-requested");
    await approval.waitFor(WAIT);
    await expect(tool(page, "deploy", "output-available").textContent()).resolves.toContain(
      "deployed 2.4.1 to production",
    );

    await approval.getByLabel(/Reason if you decline/).fill("the regression is a known flake");
    await approval.getByRole("button", { name: "Decline" }).click();
    await tool(page, "rollback", "output-denied").waitFor(WAIT);
    await assistant(page)
      .locator('[data-part="text"]', { hasText: "Rollback not done" })
      .waitFor(WAIT);
    await assistant(page).locator('[data-part="run"][data-run-state="done"]').waitFor(WAIT);
    const after = await partsOf(page);
    for (const name of ["whoami", "deploy", "rollback"]) {
      expect(after.filter((p) => p === `tool:${name}`)).toHaveLength(1);
    }

    // The decline went in with the person's words and who declined.
    const store = sqliteStore({ path: db });
    try {
      const declined = store
        .list({ kind: "approval", limit: 50 })
        .map((item) => store.getRequest(item.request.id))
        .find((info) => info?.answer?.ok === false);
      expect(declined?.answer?.data).toEqual({ reason: "the regression is a known flake" });
      expect(declined?.answeredBy).toMatch(/@this-machine$/);
    } finally {
      store.close();
    }
    await page.close();
  });
});

describe("the inbox in Chromium", () => {
  it("shows a question asked in another process live, reports a bad value on its field with the focus there, then takes a good one", async () => {
    const page = await openChat();
    // Another process (this test) halts a run in the same file on a question with a schema. Its
    // tool has a name the demo runs (the server refuses answers to runs it could not continue);
    // the worker then continues it with the demo's own deploy, which reports the odd answer.
    const store = sqliteStore({ path: db });
    try {
      const scale = nativeTool({
        name: "deploy",
        description: "Scales the api",
        run: () =>
          pending({
            kind: "input",
            prompt: "How many api replicas?",
            data: {
              schema: {
                type: "object",
                properties: {
                  replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 20 },
                },
                required: ["replicas"],
              },
            },
          }),
      });
      const client = createClient({
        model: scriptedModel([{ toolCalls: [{ name: "deploy" }] }]),
        tools: [scale],
        runs: store,
      });
      const halted = await client.run("Scale the api", { sessionId: "ops-1" });
      expect(halted.status).toBe("pending");
    } finally {
      store.close();
    }
    const card = page.locator('article.request[data-kind="input"]', {
      hasText: "How many api replicas?",
    });
    await card.waitFor(WAIT);
    const field = card.getByLabel("Replicas", { exact: true });
    await field.fill("0");
    await card.getByRole("button", { name: "Send answer" }).click();
    await card.getByText("Use 1 or more.").waitFor(WAIT);
    await expect(field.getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(field.evaluate((el) => el === document.activeElement)).resolves.toBe(true);

    // The keyboard path: Enter in the field sends the form.
    await field.fill("3");
    await field.press("Enter");
    // Answered, it no longer waits: it leaves the list.
    await card.waitFor({ state: "detached", ...WAIT });
    const check = sqliteStore({ path: db });
    try {
      const item = check
        .list({ limit: 50 })
        .find((i) => i.request.prompt === "How many api replicas?");
      expect(check.getRequest(item!.request.id)?.answer).toMatchObject({
        ok: true,
        data: { replicas: 3 },
      });
    } finally {
      check.close();
    }
    await page.close();
  });

  it("cancels a run halted in a terminal, from its card", async () => {
    const page = await openChat();
    const halted = await runDemo(["--durable", "--db", db]);
    expect(halted.code, halted.stderr).toBe(0);
    const id = /demo resume (pnd_\w+)/.exec(halted.stdout)?.[1];
    expect(id, halted.stdout).toBeDefined();
    const card = page.locator(`article.request[data-request="${id}"]`);
    await card.waitFor(WAIT);
    await card.getByRole("button", { name: "Cancel this run" }).click();
    // Its question no longer waits: it leaves the list.
    await card.waitFor({ state: "detached", ...WAIT });
    const store = sqliteStore({ path: db });
    try {
      const run = store.getRun(store.getRequest(id!)!.runId);
      expect(run?.state).toBe("cancelled");
      expect(run?.cancel?.by).toMatch(/@this-machine$/);
    } finally {
      store.close();
    }
    await page.close();
  });
});

describe("AG-UI's HttpAgent against the demo server", () => {
  it("sees the run's events in order through both questions, the worker continuing it", async () => {
    const agent = new HttpAgent({ url: `${base}/api/agent` });
    agent.addMessage({ id: "m1", role: "user", content: "Please ship 2.4.1." });
    const seen: string[][] = [];
    const record = () => {
      const run: string[] = [];
      seen.push(run);
      return { onEvent: ({ event }: { event: { type: string } }) => void run.push(event.type) };
    };
    await agent.runAgent({}, record());
    const question = agent.pendingInterrupts[0]!;
    expect(question.reason).toBe("input");
    expect(question.message).toBe("Which environment should 2.4.1 go to?");

    await agent.runAgent(
      { resume: [{ interruptId: question.id, status: "resolved", payload: { env: "staging" } }] },
      record(),
    );
    const approval = agent.pendingInterrupts[0]!;
    expect(approval.reason).toBe("approval");
    const result = await agent.runAgent(
      { resume: [{ interruptId: approval.id, status: "resolved", payload: { approved: true } }] },
      record(),
    );
    expect(String(result.result)).toContain("is back on 2.4.0");

    for (const run of seen) {
      expect(run[0]).toBe("RUN_STARTED");
      expect(run.at(-1)).toBe("RUN_FINISHED");
      // Every tool call opens, carries its arguments and closes, in that order.
      const calls = run.filter((t) => t.startsWith("TOOL_CALL_") && t !== "TOOL_CALL_RESULT");
      for (let i = 0; i < calls.length; i += 3) {
        expect(calls.slice(i, i + 3)).toEqual([
          "TOOL_CALL_START",
          "TOOL_CALL_ARGS",
          "TOOL_CALL_END",
        ]);
      }
    }
    // The first stream shows the first turn's calls; the later ones the answers and the results.
    expect(seen[0]).toContain("TEXT_MESSAGE_CONTENT");
    expect(seen[1]).toContain("TOOL_CALL_RESULT");
    expect(seen[2]).toEqual(
      expect.arrayContaining(["CUSTOM", "TOOL_CALL_RESULT", "TEXT_MESSAGE_END"]),
    );
    await serve.waitFor(new RegExp(`\\[worker ${workerPid}\\].*✓ worker: \\S+ done`));
  });
});
