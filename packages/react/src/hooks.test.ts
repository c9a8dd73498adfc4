// @vitest-environment jsdom
// The hooks over real HTTP: a real @toolnexus/web handler on 127.0.0.1, runs halted by a real
// client loop, a worker continuing them. Components here are what a page would write.

import {
  act,
  cleanup,
  configure,
  fireEvent,
  render,
  screen,
  waitFor,
} from "@testing-library/react";
import type { RequestView } from "@toolnexus/web";
import { createElement as h, type ReactNode, StrictMode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolnexusProvider } from "./config.js";
import type { ToolnexusHttpError } from "./errors.js";
import { type Fixture, PRODUCTION_SCHEMA, startFixture } from "./testing/fixture.js";
import { renderForm } from "./testing/render-form.js";
import { useAnswer } from "./use-answer.js";
import { useCancel } from "./use-cancel.js";
import { useRequest } from "./use-request.js";
import { useRequests } from "./use-requests.js";
import { useRun } from "./use-run.js";
import { useSchemaForm } from "./use-schema-form.js";

configure({ asyncUtilTimeout: 20_000 });

let fixture: Fixture;
beforeEach(async () => {
  fixture = await startFixture();
});
afterEach(async () => {
  cleanup();
  await fixture.close();
});

function app(children: ReactNode, token = "token-alice") {
  return h(
    ToolnexusProvider,
    { baseUrl: fixture.base, headers: { authorization: `Bearer ${token}` } },
    children,
  );
}

const text = (testId: string) => screen.getByTestId(testId).textContent;

/** A question answered through the form: the inbox's card. */
function Card(props: { request: RequestView }): ReactNode {
  const { request } = props;
  const answer = useAnswer();
  const form = useSchemaForm(request.data?.schema, {
    serverErrors: answer.fieldErrors,
    onSubmit: (data) => answer.approve(request.id, data),
  });
  return h(
    "article",
    { "aria-label": request.prompt, "data-run": request.runId },
    h("p", { "data-testid": `status-${request.runId}` }, answer.status),
    renderForm(form),
  );
}

function Inbox(): ReactNode {
  // A long poll: what refreshes the list here is the answer itself.
  const { requests, loading, error } = useRequests({}, { pollMs: 60_000 });
  return h(
    "section",
    null,
    h(
      "p",
      { "data-testid": "count" },
      loading && requests.length === 0 ? "…" : String(requests.length),
    ),
    error && h("p", { "data-testid": "error" }, (error as ToolnexusHttpError).code),
    requests.map((request) => h(Card, { key: request.id, request })),
  );
}

function Polled(): ReactNode {
  const { requests } = useRequests({}, { pollMs: 20 });
  return h("p", { "data-testid": "polled" }, String(requests.length));
}

describe("useRequests and useAnswer", () => {
  it("lists the caller's waiting requests; an answer shrinks the list and records who answered", async () => {
    const first = await fixture.halt("S1");
    const second = await fixture.halt("S2");
    await fixture.halt("T1"); // bob's: alice never sees it
    render(app(h(Inbox)));
    await waitFor(() => expect(text("count")).toBe("2"));

    const card = document.querySelector(`[data-run="${first}"]`) as HTMLElement;
    fireEvent.change(card.querySelector("select")!, { target: { value: "0" } }); // staging
    fireEvent.click(card.querySelector("button[type=submit]")!);
    await waitFor(() => expect(text("count")).toBe("1"));
    expect(document.querySelector(`[data-run="${second}"]`)).not.toBeNull();

    const run = await (
      await fetch(`${fixture.base}/runs/${first}`, {
        headers: { authorization: "Bearer token-alice" },
      })
    ).json();
    expect(run.requests[0]).toMatchObject({ state: "answered", answeredBy: "alice" });
  });

  it("polls: a question asked elsewhere appears, one answered elsewhere goes", async () => {
    render(app(h(Polled)));
    await waitFor(() => expect(text("polled")).toBe("0"));
    const runId = await fixture.halt("S1"); // another process's run
    await waitFor(() => expect(text("polled")).toBe("1"));
    await answerStaging(runId); // another tab's answer
    await waitFor(() => expect(text("polled")).toBe("0"));
  });

  it("refetches when the tab becomes visible again, without waiting out the poll", async () => {
    render(app(h(Inbox))); // polls once a minute
    await waitFor(() => expect(text("count")).toBe("0"));
    await fixture.halt("S1");
    act(() => {
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await waitFor(() => expect(text("count")).toBe("1"));
  });

  it("useRequest shows one request, then who answered it; another's is a 404", async () => {
    const runId = await fixture.halt("S1");
    const run = await (
      await fetch(`${fixture.base}/runs/${runId}`, {
        headers: { authorization: "Bearer token-alice" },
      })
    ).json();
    const id = run.requests[0].id as string;
    const view = render(app(h(OneRequest, { id })));
    await waitFor(() => expect(text("one")).toBe("waiting -"));
    await answerStaging(runId);
    view.unmount();
    render(app(h(OneRequest, { id })));
    await waitFor(() => expect(text("one")).toBe("answered alice"));
    cleanup();
    render(app(h(OneRequest, { id }), "token-bob"));
    await waitFor(() => expect(text("one")).toBe("not_found"));
  });

  it("shows bob only bob's requests, and an unknown token the refusal's code", async () => {
    await fixture.halt("S1");
    await fixture.halt("T1");
    render(app(h(Inbox), "token-bob"));
    await waitFor(() => expect(text("count")).toBe("1"));
    cleanup();
    render(app(h(Inbox), "token-nobody"));
    await waitFor(() => expect(text("error")).toBe("unauthenticated"));
  });

  it("a problem only the server finds shows on its field and takes the focus; a good answer then goes through", async () => {
    const runId = await fixture.halt("S1", PRODUCTION_SCHEMA);
    render(app(h(Inbox)));
    await waitFor(() => expect(text("count")).toBe("1"));
    const env = screen.getByLabelText("Environment") as HTMLSelectElement;
    const replicas = screen.getByLabelText("Replicas") as HTMLInputElement;
    expect(replicas.value).toBe("2"); // the schema's default

    fireEvent.change(env, { target: { value: "1" } }); // production, which needs 3 replicas
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(text(`status-${runId}`)).toBe("error"));
    await waitFor(() => expect(replicas.getAttribute("aria-invalid")).toBe("true"));
    const message = document.getElementById(replicas.getAttribute("aria-describedby")!)!;
    expect(message.textContent).toBe("must be >= 3");
    expect(document.activeElement).toBe(replicas);
    expect(screen.getByRole("alert").textContent).toContain("then");

    fireEvent.change(replicas, { target: { value: "3" } });
    expect(replicas.getAttribute("aria-invalid")).toBe("false"); // fixing it clears the server's word
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(text("count")).toBe("0"));
  });
});

/** A run followed live: its state, its events and the stream's status. */
function Follow(props: { runId: string }): ReactNode {
  const { run, events, stream } = useRun(props.runId);
  const { cancel, receipt } = useCancel();
  return h(
    "div",
    null,
    h("p", { "data-testid": "state" }, run?.state ?? "…"),
    h("p", { "data-testid": "text" }, run?.text ?? ""),
    h("p", { "data-testid": "stream" }, stream),
    h("p", { "data-testid": "events" }, events.map((e) => `${e.offset}:${e.type}`).join(" ")),
    h("p", { "data-testid": "cancelled" }, receipt?.outcome ?? ""),
    h("button", { type: "button", onClick: () => cancel(props.runId, "not today") }, "Cancel"),
  );
}

async function answerStaging(runId: string) {
  const headers = { authorization: "Bearer token-alice", "content-type": "application/json" };
  const run = await (await fetch(`${fixture.base}/runs/${runId}`, { headers })).json();
  const response = await fetch(`${fixture.base}/requests/${run.requests[0].id}/answer`, {
    method: "POST",
    headers,
    body: JSON.stringify({ ok: true, data: { env: "staging" } }),
  });
  expect(response.status).toBe(200);
}

const offsets = () =>
  (text("events") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((part) => Number(part.split(":")[0]));

function OneRequest(props: { id: string }): ReactNode {
  const { request, error } = useRequest(props.id);
  const code = (error as ToolnexusHttpError | undefined)?.code;
  return h(
    "p",
    { "data-testid": "one" },
    request ? `${request.state} ${request.answeredBy ?? "-"}` : `${code}`,
  );
}

function Refused(props: { runId: string }): ReactNode {
  const { error, stream } = useRun(props.runId);
  const code = (error as ToolnexusHttpError | undefined)?.code;
  return h("p", { "data-testid": "refused" }, `${stream} ${code}`);
}

describe("useRun and useRunEvents", () => {
  it("follows a run until done: the events in order, then the final state and text", async () => {
    const runId = await fixture.halt("S1");
    render(app(h(Follow, { runId })));
    await waitFor(() => expect(text("events")).toContain("suspended"));
    await waitFor(() => expect(text("state")).toBe("waiting"));

    await answerStaging(runId);
    await fixture.continueRun(runId); // a worker, elsewhere
    await waitFor(() => expect(text("stream")).toBe("ended"));
    await waitFor(() => expect(text("state")).toBe("done"));
    expect(text("text")).toBe("shipped");
    const types = (text("events") ?? "").split(" ").map((part) => part.split(":")[1]);
    expect(types.slice(-1)).toEqual(["done"]);
    expect(types).toContain("answered");
    expect(offsets()).toEqual(offsets().map((_, i) => i + 1));
    await fixture.streamsReach(0); // the terminal event ended the stream
  });

  it("resumes after a dropped connection from the last offset: no event lost or repeated", async () => {
    const runId = await fixture.halt("S1");
    render(app(h(Follow, { runId })));
    await waitFor(() => expect(text("events")).toContain("suspended"));
    await waitFor(() => expect(text("stream")).toBe("open"));
    const seen = offsets().length;

    fixture.dropStreams();
    await waitFor(() => expect(fixture.streamStarts()).toHaveLength(2));
    expect(fixture.streamStarts()).toEqual([0, seen]);
    await answerStaging(runId);
    await fixture.continueRun(runId);
    await waitFor(() => expect(text("stream")).toBe("ended"));
    expect(offsets()).toEqual(offsets().map((_, i) => i + 1));
    expect(offsets().length).toBeGreaterThan(seen);
  });

  it("closes the stream on unmount: the server's open streams go back to none", async () => {
    const runId = await fixture.halt("S1");
    const view = render(app(h(Follow, { runId })));
    await waitFor(() => expect(text("stream")).toBe("open"));
    await fixture.streamsReach(1);
    view.unmount();
    await fixture.streamsReach(0);
    expect(fixture.openStreams()).toBe(0);
  });

  it("under StrictMode's double effects, one stream stays open and unmount closes it", async () => {
    const runId = await fixture.halt("S1");
    const view = render(h(StrictMode, null, app(h(Follow, { runId }))));
    await waitFor(() => expect(text("stream")).toBe("open"));
    await waitFor(() => expect(text("events")).toContain("suspended"));
    await fixture.streamsReach(1);
    expect(offsets()).toEqual(offsets().map((_, i) => i + 1)); // no event twice
    view.unmount();
    await fixture.streamsReach(0);
  });

  it("cancels a halted run: the receipt, the cancelled state, the stream's end", async () => {
    const runId = await fixture.halt("S1");
    render(app(h(Follow, { runId })));
    await waitFor(() => expect(text("stream")).toBe("open"));
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    });
    await waitFor(() => expect(text("cancelled")).toBe("cancelled"));
    await waitFor(() => expect(text("state")).toBe("cancelled"));
    await waitFor(() => expect(text("stream")).toBe("ended"));
    expect(text("events")).toMatch(/cancelled$/);
  });

  it("a run the caller may not see ends following with the 404's code", async () => {
    const runId = await fixture.halt("S1");
    render(app(h(Refused, { runId }), "token-bob"));
    await waitFor(() => expect(text("refused")).toBe("error not_found"));
    expect(fixture.openStreams()).toBe(0);
  });
});
