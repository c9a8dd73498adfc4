// The inbox page: plain JavaScript, no build step. Every value from the server goes into the
// page as text (never as HTML).

const $ = (id) => document.getElementById(id);

/** Creates an element with attributes, properties (`on*` handlers) and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key in node && key !== "list") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

/** A clock time in the reader's time zone: `14:03:05`. */
function clock(iso) {
  return new Date(iso).toLocaleTimeString([], {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
}

/** A duration for a person: `63 ms`, `1.0 s`, `2 min 5 s`. */
function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

function until(iso) {
  if (!iso) return "no expiry";
  const ms = Date.parse(iso) - Date.now();
  if (ms <= 0) return "expired";
  const minutes = Math.round(ms / 60000);
  return minutes >= 1 ? `expires in ${minutes} min` : `expires in ${Math.ceil(ms / 1000)}s`;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = { error: `the server answered ${response.status} without a readable body` };
  }
  if (!response.ok) throw new Error(refusal(data, response.status));
  return data;
}

/** A refusal for a person: the handler's message, then each problem it lists. */
function refusal(data, status) {
  const error = data && typeof data.error === "object" && data.error !== null ? data.error : {};
  const message = typeof error.message === "string" ? error.message : `request failed (${status})`;
  const issues = Array.isArray(error.issues) ? error.issues.map(String) : [];
  return issues.length > 0 ? `${message}: ${issues.join("; ")}` : message;
}

/** Who this inbox records as answering (the server's local identity). */
let you = "";
/** What the server's store lets the handler do: follow a run's events, cancel a run. */
let features = { events: false, cancel: false };

// --- the inbox ---------------------------------------------------------------------------

/** Cards on the page by request id. A card stays (marked stale) when the request goes away. */
const cards = new Map();
/** Requests this tab answered: a live update that raced the answer must not bring them back. */
const answered = new Set();
/** What the server said about this tab's last answer to a session, shown with its transcript. */
const notes = new Map();

function timeLine(request) {
  const line = el("div", { class: "meta" });
  const render = () => {
    line.replaceChildren(
      el(
        "span",
        {},
        `agent ${request.agent || "-"}${typeof request.route?.agent === "string" ? `, asked by ${request.route.agent}` : ""}`,
      ),
      el("span", {}, `session ${request.sessionId || "-"}`),
      el("span", { class: "age" }, ago(request.createdAt)),
      el(
        "span",
        { class: "expiry" },
        request.state === "expired" ? "expired" : until(request.expiresAt),
      ),
    );
  };
  render();
  line.refresh = render;
  return line;
}

/** The form fields for an input request, generated from `data.schema`. */
function schemaFields(schema) {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields = [];
  for (const [name, spec] of Object.entries(schema.properties || {})) {
    const title = spec.title || name;
    const hint = spec.description ? el("span", { class: "hint" }, spec.description) : null;
    const id = `f-${Math.random().toString(36).slice(2)}`;
    if (spec.type === "boolean") {
      const input = el("input", {
        type: "checkbox",
        id,
        name,
        checked: spec.default === true,
      });
      input.dataset.type = "boolean";
      fields.push(el("label", { class: "field checkbox", for: id }, input, title, hint));
    } else if (Array.isArray(spec.enum)) {
      const select = el(
        "select",
        { id, name, required: required.includes(name) },
        spec.enum.map((value) =>
          el("option", { value: String(value), selected: value === spec.default }, String(value)),
        ),
      );
      select.dataset.type = spec.type || "string";
      fields.push(el("label", { class: "field", for: id }, title, hint, select));
    } else {
      const numeric = spec.type === "number" || spec.type === "integer";
      const input = el("input", {
        type: numeric ? "number" : "text",
        id,
        name,
        required: required.includes(name),
        value: spec.default === undefined ? "" : String(spec.default),
      });
      input.dataset.type = spec.type || "string";
      fields.push(el("label", { class: "field", for: id }, title, hint, input));
    }
  }
  return fields;
}

/** Reads the form back into the Answer's `data`, typed as the schema says. */
function formData(form) {
  const data = {};
  for (const input of form.querySelectorAll("[name]")) {
    const type = input.dataset.type;
    if (type === "boolean") data[input.name] = input.checked;
    else if (input.value === "") continue;
    else if (type === "number" || type === "integer") data[input.name] = Number(input.value);
    else data[input.name] = input.value;
  }
  return data;
}

function requestCard(request) {
  const error = el("div", { class: "error", role: "alert", hidden: true });
  const note = el("div", { class: "note", hidden: true });
  const card = el("article", {
    class: "request",
    "data-request-id": request.id,
    "data-kind": request.kind,
  });
  const buttons = [];

  const send = async (answer) => {
    for (const button of buttons) button.disabled = true;
    error.hidden = true;
    try {
      const result = await api(
        "POST",
        `/api/requests/${encodeURIComponent(request.id)}/answer`,
        answer,
      );
      answered.add(request.id);
      const session = request.sessionId || result.runId;
      // Who answered, and whether the same answer was already recorded (another tab, the
      // terminal): then nothing ran twice.
      notes.set(
        session,
        result.duplicate
          ? "This answer was already recorded (in another tab, or from the terminal); nothing was run twice."
          : `Answered by ${you || "you"}.`,
      );
      card.remove();
      cards.delete(request.id);
      renderCount();
      selectedStamp = "";
      showSession(session);
    } catch (problem) {
      error.textContent = problem.message;
      error.hidden = false;
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  };
  const button = (label, cls, onclick, type = "button") => {
    const b = el("button", { type, class: cls, onclick }, label);
    buttons.push(b);
    return b;
  };
  const decline = () => button("Decline", "danger", () => send({ ok: false, reason: "declined" }));

  let control;
  if (request.kind === "approval") {
    control = el(
      "div",
      { class: "buttons" },
      button("Approve", "primary", () => send({ ok: true })),
      decline(),
    );
  } else if (request.kind === "authorization") {
    const safe = /^https?:\/\//i.test(request.url || "");
    control = el(
      "div",
      {},
      safe
        ? el(
            "a",
            { class: "authorize", href: request.url, target: "_blank", rel: "noopener noreferrer" },
            "Open the authorization page ↗",
          )
        : el("p", { class: "note" }, `authorization address: ${request.url || "(none given)"}`),
      el(
        "div",
        { class: "buttons" },
        button("I have authorized", "primary", () => send({ ok: true })),
        decline(),
      ),
    );
  } else {
    const schema = request.data?.schema;
    const fields =
      schema && typeof schema === "object" && schema.properties
        ? schemaFields(schema)
        : [
            el(
              "label",
              { class: "field" },
              "Your answer",
              el("textarea", { name: "text", rows: 2 }),
            ),
          ];
    const form = el(
      "form",
      {
        onsubmit: (event) => {
          event.preventDefault();
          send({ ok: true, data: formData(form) });
        },
      },
      fields,
      el("div", { class: "buttons" }, button("Submit", "primary", undefined, "submit"), decline()),
    );
    control = form;
  }

  control.classList.add("control");
  const meta = timeLine(request);
  const link = el(
    "a",
    {
      class: "permalink",
      href: `#request=${encodeURIComponent(request.id)}`,
      title: "A link to this request",
    },
    "link",
  );
  card.id = `request-${request.id}`;
  card.dataset.session = request.sessionId || "";
  card.append(
    el("div", { class: "card-head" }, el("span", { class: "kind" }, request.kind), link),
    el("div", { class: "prompt" }, request.prompt),
    meta,
    control,
    note,
    error,
  );
  card.refresh = meta.refresh;
  card.markStale = () => {
    card.classList.add("stale");
    note.textContent =
      "No longer waiting: answered elsewhere, or gone. Answering now will be refused.";
    note.hidden = false;
  };
  return card;
}

function renderCount() {
  const waiting = [...cards.values()].filter((c) => !c.classList.contains("stale")).length;
  $("count").textContent = String(waiting);
  $("empty").hidden = waiting > 0;
}

function renderInbox(requests) {
  const ids = new Set(requests.map((r) => r.id));
  for (const [id, card] of cards) {
    if (!ids.has(id) && !card.classList.contains("stale")) card.markStale();
  }
  const inbox = $("inbox");
  // Newest first, as the server sends them; new cards go in at their place.
  let previous = null;
  for (const request of requests) {
    if (answered.has(request.id)) continue;
    let card = cards.get(request.id);
    if (card === undefined) {
      card = requestCard(request);
      cards.set(request.id, card);
      if (previous === null) inbox.prepend(card);
      else previous.after(card);
    }
    previous = card;
  }
  renderCount();
}

// --- runs and transcripts -----------------------------------------------------------------

let selected = null;
let selectedStamp = "";
/** The run this tab started: opened as soon as it shows under Recent runs. */
let startedRun = null;

const STATUS_TEXT = {
  running: "Running…",
  waiting: "Waiting for a person",
  done: "Finished",
  stopped: "Stopped",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** When a message happened, and for a tool call how long it took (or waited for a person). */
function whenLine(message, time, waiting) {
  if (!time?.at) return null;
  const parts = [el("time", { datetime: time.at }, clock(time.at))];
  if (waiting) {
    parts.unshift("asked ");
  } else if (message.role === "tool" && typeof time.durationMs === "number") {
    parts.push(
      " · ",
      el(
        "span",
        { class: "duration" },
        time.timedOut ? `stopped at ${duration(time.durationMs)}` : duration(time.durationMs),
      ),
    );
    if (typeof time.waitedMs === "number") {
      parts.push(
        " · ",
        el("span", { class: "waited" }, `waited ${duration(time.waitedMs)} for a person`),
      );
    }
  }
  return el("span", { class: "when" }, parts);
}

function messageItem(message, waitingPrompts, time) {
  if (message.role === "system") {
    return el(
      "li",
      { class: "system" },
      el("details", {}, el("summary", {}, "system prompt"), message.content),
    );
  }
  if (message.role === "user") {
    return el(
      "li",
      { class: "user" },
      el("span", { class: "who" }, "you", whenLine(message, time, false)),
      message.content,
    );
  }
  if (message.role === "assistant") {
    const calls = (message.toolCalls || []).map((call) =>
      el("span", { class: "call" }, `→ ${call.name} ${call.rawArgs || JSON.stringify(call.args)}`),
    );
    return el(
      "li",
      { class: "assistant" },
      el("span", { class: "who" }, "assistant", whenLine(message, time, false)),
      message.content,
      calls,
    );
  }
  // A suspended call's slot holds the request's prompt until the person answers.
  const waiting = message.isError && waitingPrompts.has(message.content);
  const mark = waiting ? "…" : message.isError ? "✗" : "✓";
  return el(
    "li",
    { class: waiting ? "tool waiting" : message.isError ? "tool error" : "tool" },
    el(
      "span",
      { class: "tool-name" },
      `${mark} ${message.name}${waiting ? " · waiting for a person" : ""}`,
      whenLine(message, time, waiting),
    ),
    message.content,
  );
}

/** A run's event types after which nothing more comes. */
const TERMINAL = new Set(["done", "failed", "cancelled"]);
const RUN_EVENTS = [
  "started",
  "suspended",
  "answered",
  "turn",
  "text",
  "tool_call",
  "tool_result",
  "progress",
  "continued",
  "cancel_requested",
  ...TERMINAL,
];
/** The run whose events this tab follows (the open transcript's), through the handler. */
let follower = null;

/**
 * Follows the open transcript's run through the handler's event stream: each event the run
 * records (here or in another process) brings its transcript up to date. Only where the store
 * records events; the live state stream covers the rest.
 */
function followRun(view) {
  const live = view.runId && (view.status === "running" || view.status === "waiting");
  if (follower && (!live || follower.runId !== view.runId)) {
    follower.source.close();
    follower = null;
  }
  if (!features.events || !live || follower) return;
  const runId = view.runId;
  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
  follower = { runId, source };
  let queued = false;
  for (const type of RUN_EVENTS) {
    source.addEventListener(type, () => {
      if (TERMINAL.has(type)) source.close();
      if (queued) return;
      queued = true;
      // One refresh for a burst of events.
      setTimeout(() => {
        queued = false;
        if (follower?.runId === runId && selected === view.sessionId) showSession(selected);
      }, 150);
    });
  }
}

/** The Cancel button for the open run, where the store can cancel and the run has not ended. */
function renderCancel(view) {
  const button = $("cancel");
  const open = ["running", "waiting", "stopped", "failed"].includes(view.status);
  button.hidden = !(features.cancel && view.runId && open);
  button.dataset.run = view.runId || "";
  button.dataset.session = view.sessionId;
}

function renderTranscript(view) {
  followRun(view);
  renderCancel(view);
  $("transcript-session").textContent = view.sessionId;
  const status = $("transcript-status");
  status.className = `status ${view.status}`;
  let text = STATUS_TEXT[view.status] || view.status;
  if (view.status === "waiting" && view.pending.length > 0) {
    text += `: ${view.pending.map((p) => p.prompt).join(" · ")}`;
  }
  if (view.detail) text += ` (${view.detail})`;
  status.textContent = text;
  const note = $("transcript-note");
  note.textContent = notes.get(view.sessionId) || "";
  note.hidden = !notes.has(view.sessionId);
  const waitingPrompts = new Set(view.pending.map((p) => p.prompt));
  const times = view.times || [];
  $("transcript").replaceChildren(
    ...view.messages.map((m, i) => messageItem(m, waitingPrompts, times[i])),
  );
}

async function showSession(sessionId, view) {
  selected = sessionId;
  if (view) {
    renderTranscript(view);
    return;
  }
  try {
    renderTranscript(await api("GET", `/inbox/sessions/${encodeURIComponent(sessionId)}`));
  } catch (problem) {
    $("transcript-status").textContent = problem.message;
  }
}

/**
 * Opens the request a link points at (`#request=<id>`): its card scrolled into view and marked,
 * its run's transcript beside it. A request no longer waiting still opens its run.
 */
async function openRequest(id) {
  for (const card of cards.values()) card.classList.remove("targeted");
  const card = cards.get(id);
  if (card && !card.classList.contains("stale")) {
    card.classList.add("targeted");
    card.scrollIntoView({ block: "center" });
    if (card.dataset.session) await showSession(card.dataset.session);
    return;
  }
  try {
    const found = await api("GET", `/api/requests/${encodeURIComponent(id)}`);
    const by = found.answeredBy ? `, answered by ${found.answeredBy}` : "";
    notes.set(found.sessionId, `Request ${id} is no longer waiting (${found.state}${by}).`);
    await showSession(found.sessionId);
  } catch (problem) {
    $("transcript-status").textContent = problem.message;
  }
}

function linkedRequest() {
  const match = /^#request=(.+)$/.exec(window.location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

function renderRuns(sessions) {
  $("runs").replaceChildren(
    ...sessions.map((s) =>
      el(
        "li",
        { "data-session": s.sessionId, "data-status": s.status },
        el("button", { type: "button", onclick: () => showSession(s.sessionId) }, s.sessionId),
        el("span", { class: "muted" }, STATUS_TEXT[s.status] || s.status),
      ),
    ),
  );
  const started = startedRun && sessions.find((s) => s.runId === startedRun);
  if (started) {
    startedRun = null;
    selected = started.sessionId;
    selectedStamp = "";
  }
  if (selected !== null) {
    const current = sessions.find((s) => s.sessionId === selected);
    const stamp = current ? `${current.status}|${current.updatedAt}` : "";
    if (current && stamp !== selectedStamp) {
      selectedStamp = stamp;
      if (current.status === "running") {
        $("transcript-session").textContent = selected;
        $("transcript-status").className = "status running";
        $("transcript-status").textContent = STATUS_TEXT.running;
      } else {
        showSession(selected);
      }
    }
  }
}

function applyState(state) {
  renderInbox(state.requests);
  renderRuns(state.sessions);
  // Nothing picked yet: the newest run's transcript.
  if (selected === null && !linkedRequest() && state.sessions.length > 0) {
    showSession(state.sessions[0].sessionId);
  }
}

// --- wiring -------------------------------------------------------------------------------

$("start").addEventListener("click", async () => {
  const button = $("start");
  button.disabled = true;
  try {
    const { runId } = await api("POST", "/api/runs", {});
    startedRun = runId;
    $("transcript-session").textContent = runId;
    $("transcript-status").className = "status running";
    $("transcript-status").textContent = STATUS_TEXT.running;
    $("transcript").replaceChildren();
  } catch (problem) {
    $("transcript-status").textContent = problem.message;
  } finally {
    button.disabled = false;
  }
});

$("cancel").addEventListener("click", async () => {
  const button = $("cancel");
  const { run, session } = button.dataset;
  if (!run) return;
  button.disabled = true;
  try {
    const result = await api("POST", `/api/runs/${encodeURIComponent(run)}/cancel`, {
      reason: "cancelled from the inbox",
    });
    notes.set(
      session,
      result.outcome === "requested"
        ? `Asked the run to stop (by ${you || "you"}); it stops at its next step.`
        : `Cancelled by ${you || "you"}.`,
    );
    selectedStamp = "";
    showSession(session);
  } catch (problem) {
    $("transcript-status").textContent = problem.message;
  } finally {
    button.disabled = false;
  }
});

function connect() {
  const live = $("live");
  const events = new EventSource("/inbox/events");
  events.addEventListener("open", () => {
    live.textContent = "live";
    live.classList.add("on");
  });
  events.addEventListener("error", () => {
    live.textContent = "reconnecting…";
    live.classList.remove("on");
  });
  events.addEventListener("state", (event) => applyState(JSON.parse(event.data)));
}

setInterval(() => {
  for (const card of cards.values()) card.refresh();
}, 1000);

window.addEventListener("hashchange", () => {
  const id = linkedRequest();
  if (id) openRequest(id);
});

/** The command that starts the demo, as this person started it (the server knows). */
function showCommand(command) {
  if (!command) return;
  for (const code of document.querySelectorAll(".demo-command")) {
    code.textContent = `${command} ${code.dataset.args || ""}`.trim();
  }
}

/** The state the server wrote into the page: shown before any request or live update. */
function initialState() {
  try {
    return JSON.parse($("initial-state").textContent || "null");
  } catch {
    return null;
  }
}

const initial = initialState();
if (initial) {
  showCommand(initial.command);
  you = typeof initial.you === "string" ? initial.you : "";
  if (initial.features) {
    features = {
      events: initial.features.events === true,
      cancel: initial.features.cancel === true,
    };
  }
  if (initial.session && !linkedRequest()) {
    selected = initial.session.sessionId;
    renderTranscript(initial.session);
  }
  applyState(initial);
} else {
  api("GET", "/inbox/state").then(applyState, () => {});
}
const linked = linkedRequest();
if (linked) openRequest(linked);

connect();
