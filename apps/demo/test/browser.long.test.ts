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
import { DEMO_DIR, type DemoProcess, runDemo, startDemo, tempDir } from "./processes.js";

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

    // A bad answer (an environment the schema does not list) is refused by the handler, its
    // problems shown on the page, and changes nothing.
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
      .getByText(
        'does not match the request\'s schema: data.env: expected one of "staging", "production"',
      )
      .waitFor(WAIT);
    const stillWaiting = (await (await fetch(`${base}/inbox/state`)).json()) as {
      requests: { kind: string }[];
    };
    expect(stillWaiting.requests.map((r) => r.kind)).toEqual(["input"]);

    // A good answer: the card goes, the resumed run's transcript shows the deploy, and the
    // rollback's approval arrives.
    await card.locator("select[name=env]").selectOption("staging");
    await card.getByRole("button", { name: "Submit" }).click();
    await card.waitFor({ state: "detached", ...WAIT });
    // Who answered: the inbox's one local person, as the handler recorded it.
    await first
      .locator("#transcript-note", { hasText: /^Answered by .+@this-machine\.$/ })
      .waitFor(WAIT);
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
    await staleCard
      .locator(".error")
      .getByText("this request already has a different answer")
      .waitFor(WAIT);

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
    // Each tab holds its live streams open; Chromium allows six connections to one host, so
    // tabs left open would starve the pages of later tests.
    await Promise.all([first.close(), second.close()]);
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
    const after = (await (await fetch(`${base}/inbox/state`)).json()) as {
      requests: { kind: string; state: string }[];
    };
    expect(after.requests).toContainEqual(
      expect.objectContaining({ kind: "authorization", state: "waiting" }),
    );
    await page.close();
  });
});

describe("following and cancelling a run in Chromium", () => {
  it("follows a halted run's events live, cancels it from the page, and shows who cancelled", async () => {
    const page = await open();
    // Chromium's own record of the server-sent events the page receives on a run's stream, so
    // the test sees what the follower got rather than guessing from the DOM.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    const streams = new Map<string, string>();
    const received: { run: string; event: string }[] = [];
    cdp.on("Network.requestWillBeSent", (sent) => {
      const run = /\/api\/runs\/([^/]+)\/events$/.exec(new URL(sent.request.url).pathname);
      if (run) streams.set(sent.requestId, decodeURIComponent(run[1]!));
    });
    cdp.on("Network.eventSourceMessageReceived", (message) => {
      const run = streams.get(message.requestId);
      if (run) received.push({ run, event: message.eventName });
    });

    await page.getByRole("button", { name: "Start a release run" }).click();
    // The halted run's question and the call before it reach the page without a reload.
    await page.locator("#transcript-status.waiting").waitFor(WAIT);
    await page
      .locator("#transcript li.tool.waiting", { hasText: "Which environment should 2.4.1 go to?" })
      .waitFor(WAIT);
    await page.locator("#transcript li.assistant .call").first().waitFor(WAIT);
    // Read the run only now: the first paint shows the newest waiting run, an earlier test's.
    const cancel = page.getByRole("button", { name: "Cancel this run" });
    await cancel.waitFor(WAIT);
    const runId = (await cancel.getAttribute("data-run"))!;
    expect(runId).toMatch(/\S/);
    await expect
      .poll(() => received.filter((r) => r.run === runId).map((r) => r.event), WAIT)
      .toEqual(expect.arrayContaining(["started", "suspended"]));

    await cancel.click();
    // The question no longer waits (its card is marked stale). The page says the run is cancelled and by whom: the store's record (the status line) and
    // the tab's own note both name the inbox's local person.
    const status = page.locator("#transcript-status.cancelled");
    await status.waitFor(WAIT);
    await expect(status.textContent()).resolves.toMatch(/^Cancelled \(by .+@this-machine\)$/);
    await page
      .locator("#transcript-note", { hasText: /^Cancelled by .+@this-machine\.$/ })
      .waitFor(WAIT);
    await cancel.waitFor({ state: "hidden", ...WAIT });
    await page.locator('article.request.stale[data-kind="input"]').waitFor(WAIT);
    await expect
      .poll(() => received.some((r) => r.run === runId && r.event === "cancelled"), WAIT)
      .toBe(true);

    const store = sqliteStore({ path: db });
    try {
      const run = store.getRun(runId);
      expect(run?.state).toBe("cancelled");
      expect(run?.cancel?.by).toMatch(/@this-machine$/);
      await expect(status.textContent()).resolves.toContain(run!.cancel!.by!);
    } finally {
      store.close();
    }
    await cdp.detach();
    await page.close();
  });
});

/** Halts a run into the server's file from another process; returns the printed request id. */
async function haltFromTerminal(args: readonly string[] = ["--durable"]): Promise<string> {
  const halted = await runDemo([...args, "--db", db]);
  expect(halted.code, halted.stderr).toBe(0);
  const id = /demo resume (pnd_\w+)/.exec(halted.stdout)?.[1];
  expect(id, halted.stdout).toBeDefined();
  return id!;
}

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

function intersects(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

describe("the inbox page, as a person sees it", () => {
  let input: string;
  let approval: string;
  let answered: string;
  let older: string;
  let newest: string;

  beforeAll(async () => {
    // A run halted at the deploy's question, answered from the terminal, now waiting for the
    // rollback's approval; then a newer run halted at its deploy question.
    answered = await haltFromTerminal();
    const resumed = await runDemo(["resume", answered, "--answer", "env=staging", "--db", db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    approval = /demo resume (pnd_\w+) --approve yes/.exec(resumed.stdout)![1]!;
    older = /session {2}(rel-\w+)/.exec(resumed.stdout)![1]!;
    input = await haltFromTerminal();
    const state = (await (await fetch(`${base}/inbox/state`)).json()) as {
      sessions: { sessionId: string }[];
    };
    newest = state.sessions[0]!.sessionId;
    expect(newest).not.toBe(older);
  });

  it("shows what waits and the newest run's transcript on its first paint, never 'nothing is waiting'", async () => {
    const page = await context.newPage();
    // Every frame from the very first: is "nothing is waiting" on screen, and how many cards.
    await page.addInitScript(() => {
      const seen: { empty: boolean; cards: number; transcript: number }[] = [];
      (window as unknown as { frames_: typeof seen }).frames_ = seen;
      const look = () => {
        const empty = document.getElementById("empty");
        seen.push({
          empty: empty !== null && !empty.hidden && empty.getClientRects().length > 0,
          cards: document.querySelectorAll("article.request").length,
          transcript: document.querySelectorAll("#transcript li").length,
        });
        if (seen.length < 120) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
      document.addEventListener("DOMContentLoaded", () => {
        (window as unknown as { loaded_: unknown }).loaded_ = {
          cards: document.querySelectorAll("article.request").length,
          session: document.getElementById("transcript-session")?.textContent,
          transcript: document.querySelectorAll("#transcript li").length,
          empty: !document.getElementById("empty")?.hidden,
        };
      });
    });
    await page.goto(base);
    await page.locator("#live.on").waitFor(WAIT);
    const open = ((await (await fetch(`${base}/inbox/state`)).json()) as { requests: unknown[] })
      .requests.length;
    expect(open).toBeGreaterThanOrEqual(2);
    // Before any script asked the server anything: the cards, and the newest run open.
    const loaded = await page.evaluate(() => (window as unknown as { loaded_: unknown }).loaded_);
    expect(loaded).toMatchObject({ cards: open, session: newest, empty: false });
    expect((loaded as { transcript: number }).transcript).toBeGreaterThan(3);
    const frames = await page.evaluate(
      () => (window as unknown as { frames_: { empty: boolean; cards: number }[] }).frames_,
    );
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.filter((f) => f.empty)).toEqual([]);
    expect(frames.find((f) => f.cards > 0)).toBe(frames.find((f) => f.cards === open));

    // The transcript gives times and durations: when each message came, how long each call took.
    const transcript = page.locator("#transcript");
    await expect(transcript.locator("li.user time").getAttribute("datetime")).resolves.toMatch(
      /^\d{4}-\d\d-\d\dT/,
    );
    expect(await transcript.locator("li.assistant time").count()).toBe(2);
    await expect(
      transcript
        .locator("li.tool", { hasText: "release-assistant@" })
        .locator(".duration")
        .textContent(),
    ).resolves.toMatch(/^\d+ ms$/);
    await expect(
      transcript
        .locator("li.tool.error", { hasText: "timed out" })
        .locator(".duration")
        .textContent(),
    ).resolves.toBe("stopped at 1.0 s");
    await expect(transcript.locator("li.tool.waiting .when").textContent()).resolves.toMatch(
      /^asked \d\d:\d\d:\d\d$/,
    );
    await page.close();
  });

  it("gives each request a link that opens it, scrolled to, with its run's transcript", async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.goto(`${base}/#request=${approval}`);
    const card = page.locator(`article.request[data-request-id="${approval}"]`);
    await card.and(page.locator(".targeted")).waitFor(WAIT);
    await expect(card.locator("a.permalink").getAttribute("href")).resolves.toBe(
      `#request=${approval}`,
    );
    await page.locator("#transcript-session", { hasText: older }).waitFor(WAIT);
    await expect(card.isVisible()).resolves.toBe(true);
    const box = (await card.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(500);
    // Its run waited for a person before the deploy ran: the transcript says how long.
    await expect(
      page
        .locator("#transcript li.tool", { hasText: "deployed 2.4.1 to staging" })
        .locator(".waited")
        .textContent(),
    ).resolves.toMatch(/^waited .+ for a person$/);

    // Following another request's link on the page moves to it.
    await page.locator(`article.request[data-request-id="${input}"] a.permalink`).click();
    await page.locator(`article.request[data-request-id="${input}"].targeted`).waitFor(WAIT);
    await expect(page.locator(".targeted").count()).resolves.toBe(1);
    await page.locator("#transcript-session", { hasText: newest }).waitFor(WAIT);

    // A link to a request that no longer waits still opens its run, and says so.
    await page.goto(`${base}/#request=${answered}`);
    await page.locator("#transcript-session", { hasText: older }).waitFor(WAIT);
    await page
      .locator("#transcript-note", { hasText: `Request ${answered} is no longer waiting` })
      .waitFor(WAIT);
    await page.close();
  });

  it("keeps the expiry line clear of the buttons, wide and narrow", async () => {
    const page = await context.newPage();
    for (const width of [1280, 820, 400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(base);
      await page.locator("article.request .buttons button").first().waitFor(WAIT);
      const cards = await page.locator("article.request").evaluateAll((nodes) =>
        nodes.map((card) => {
          const box = (el: Element) => {
            const r = el.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
          };
          return {
            id: (card as HTMLElement).dataset.requestId,
            meta: box(card.querySelector(".meta")!),
            spans: [...card.querySelectorAll(".meta span")].map(box),
            buttons: [...card.querySelectorAll(".buttons button, .buttons a")].map(box),
          };
        }),
      );
      expect(cards.length).toBeGreaterThanOrEqual(2);
      for (const card of cards) {
        expect(card.buttons.length, card.id).toBeGreaterThan(0);
        for (const button of card.buttons) {
          for (const span of card.spans) expect(intersects(span, button), card.id).toBe(false);
          // Clear space between the line and the controls under it.
          expect(button.top - card.meta.bottom, `${card.id} at ${width}px`).toBeGreaterThanOrEqual(
            4,
          );
        }
      }
    }
    await page.close();
  });
});

/** Keeps the README's screenshot in step with the page: `UPDATE_SCREENSHOT=1 vitest run`. */
afterAll(() => {
  if (process.env.UPDATE_SCREENSHOT === "1" && existsSync(join(OUTPUT, "inbox.png"))) {
    mkdirSync(join(DEMO_DIR, "docs"), { recursive: true });
    copyFileSync(join(OUTPUT, "inbox.png"), join(DEMO_DIR, "docs", "inbox.png"));
  }
});
