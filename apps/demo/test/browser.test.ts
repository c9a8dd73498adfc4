// The inbox in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
// browser). `pnpm demo serve` runs as a child process on a free port; the test starts a run from
// the page, answers from it, and checks a second tab is refused when it answers the same request
// differently.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { authRequired } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DIR, type DemoProcess, startDemo, tempDir } from "./processes.js";

const CHROMIUM = "/usr/bin/chromium";
const OUTPUT = join(DEMO_DIR, "test-output");
const WAIT = { timeout: 30_000 };

let tmp: ReturnType<typeof tempDir>;
let serve: DemoProcess;
let context: BrowserContext;
let base: string;
let db: string;

beforeAll(async () => {
  // Fail loudly rather than skip: the browser test is part of what the demo promises.
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: run .ci/browser-setup.sh as root (apt-get install chromium) before the demo's tests`,
    );
  }
  tmp = tempDir();
  db = tmp.file("demo.db");
  serve = startDemo(["serve", "--port", "0", "--db", db]);
  const match = await serve.waitFor(/http:\/\/127\.0\.0\.1:(\d+)\//);
  base = `http://127.0.0.1:${match[1]}`;
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

async function open(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(base);
  // Live updates are connected (server-sent events).
  await page.locator("#live.on").waitFor(WAIT);
  return page;
}

describe("the inbox in Chromium", () => {
  it("starts a run, shows the request live, answers it, shows the transcript; a second tab's different answer is refused", async () => {
    const first = await open();
    const second = await open();
    await expect(first.locator("#empty").isVisible()).resolves.toBe(true);

    // Start a run from the page: the request appears in both tabs without a reload.
    await first.getByRole("button", { name: "Start a release run" }).click();
    const card = first.locator('article.request[data-kind="input"]');
    await card.waitFor(WAIT);
    const staleCard = second.locator('article.request[data-kind="input"]');
    await staleCard.waitFor(WAIT);
    await expect(card.locator(".prompt").textContent()).resolves.toBe(
      "Which environment should 2.4.1 go to?",
    );
    await expect(card.locator(".meta").textContent()).resolves.toMatch(
      /agent release-assistant.*session rel-\w+.*ago.*expires in \d+ min/,
    );
    // The form comes from data.schema: a list of environments and a checkbox.
    await expect(card.locator("select[name=env] option").allTextContents()).resolves.toEqual([
      "staging",
      "production",
    ]);
    await expect(card.locator("input[name=notify]").isChecked()).resolves.toBe(true);
    // The halted run's transcript is on the page, with the timed-out status call.
    await first.locator("#transcript-status.waiting").waitFor(WAIT);
    await first
      .locator("#transcript li.tool.error", { hasText: "timed out after 1000ms" })
      .waitFor(WAIT);

    mkdirSync(OUTPUT, { recursive: true });
    await first.screenshot({ path: join(OUTPUT, "inbox.png"), fullPage: true });

    // A bad answer (an environment the schema does not list) is refused by the server, shown on
    // the page, and changes nothing.
    await card.locator("select[name=env]").evaluate((select) => {
      const option = document.createElement("option");
      option.value = "moon";
      option.textContent = "moon";
      select.append(option);
      (select as HTMLSelectElement).value = "moon";
    });
    await card.getByRole("button", { name: "Submit" }).click();
    await card
      .locator(".error")
      .getByText('"env" must be one of staging, production')
      .waitFor(WAIT);
    const stillWaiting = (await (await fetch(`${base}/api/state`)).json()) as {
      requests: { kind: string }[];
    };
    expect(stillWaiting.requests.map((r) => r.kind)).toEqual(["input"]);

    // A good answer: the card goes, the resumed run's transcript shows the deploy, and the
    // rollback's approval arrives.
    await card.locator("select[name=env]").selectOption("staging");
    await card.getByRole("button", { name: "Submit" }).click();
    await card.waitFor({ state: "detached", ...WAIT });
    await first
      .locator("#transcript li.tool", { hasText: "deployed 2.4.1 to staging" })
      .waitFor(WAIT);
    const approval = first.locator('article.request[data-kind="approval"]');
    await approval.waitFor(WAIT);
    await expect(approval.locator(".prompt").textContent()).resolves.toBe(
      'Allow rollback to run with {"env":"staging","to":"2.4.0"}?',
    );

    // The second tab still has the input request on screen; a different answer is refused.
    await staleCard.locator("select[name=env]").selectOption("production");
    await staleCard.getByRole("button", { name: "Submit" }).click();
    await staleCard.locator(".error").getByText("already answered differently").waitFor(WAIT);

    // Approve the rollback: the finished transcript, and an empty inbox.
    await approval.getByRole("button", { name: "Approve" }).click();
    await first.locator("#transcript-status.done").waitFor(WAIT);
    await first
      .locator("#transcript li.tool", { hasText: "rolled staging back to 2.4.0" })
      .waitFor(WAIT);
    await first
      .locator("#transcript li.assistant", { hasText: "Done. 2.4.1 went to staging" })
      .waitFor(WAIT);
    await first.locator("#empty").waitFor({ state: "visible", ...WAIT });
    await first.locator('#runs li[data-status="done"]').waitFor(WAIT);
    await first.screenshot({ path: join(OUTPUT, "finished.png"), fullPage: true });
  });

  it("an authorization request gets a link, and requests from other processes show up live", async () => {
    const page = await open();
    // Another process (here: this test) halts a run in the same file, on a tool that needs a
    // login. The page picks it up without a reload.
    const store = sqliteStore({ path: db });
    try {
      const connect = nativeTool({
        name: "connect_calendar",
        description: "Needs a login first",
        run: () =>
          authRequired("https://auth.example/consent?client=demo", "Sign in to the calendar"),
      });
      const client = createClient({
        model: scriptedModel([{ toolCalls: [{ name: "connect_calendar" }] }]),
        tools: [connect],
        agent: "calendar-agent",
        runs: store,
      });
      const halted = await client.run("Book a slot", { sessionId: "cal-1" });
      expect(halted.status).toBe("pending");
    } finally {
      store.close();
    }
    const card = page.locator('article.request[data-kind="authorization"]');
    await card.waitFor(WAIT);
    await expect(card.locator("a.authorize").getAttribute("href")).resolves.toBe(
      "https://auth.example/consent?client=demo",
    );
    await expect(card.locator(".meta").textContent()).resolves.toContain("agent calendar-agent");
    // This server does not have that agent's tool: the answer is refused with the reason, and
    // the request stays.
    await card.getByRole("button", { name: "I have authorized" }).click();
    await card
      .locator(".error")
      .getByText('tool "connect_calendar" is not registered')
      .waitFor(WAIT);
    const after = (await (await fetch(`${base}/api/state`)).json()) as {
      requests: { kind: string; state: string }[];
    };
    expect(after.requests).toContainEqual(
      expect.objectContaining({ kind: "authorization", state: "waiting" }),
    );
  });
});

/** Keeps the README's screenshot in step with the page: `UPDATE_SCREENSHOT=1 vitest run`. */
afterAll(() => {
  if (process.env.UPDATE_SCREENSHOT === "1" && existsSync(join(OUTPUT, "inbox.png"))) {
    mkdirSync(join(DEMO_DIR, "docs"), { recursive: true });
    copyFileSync(join(OUTPUT, "inbox.png"), join(DEMO_DIR, "docs", "inbox.png"));
  }
});
