// The terminal side of the demo: prints the conversation as the loop reports it, with colour on
// a TTY (unless NO_COLOR is set) and plain text everywhere else.
import type { RunEvent, RunResult } from "@toolnexus/client";
import type { Request, ToolCall, ToolContext } from "@toolnexus/core";
import { guardLine, printable } from "./terminal-text.js";
import type { ToolNote } from "./tools.js";

/** Who answered a question (see answers.ts). */
export type AnswerSource = "person" | "flag" | "default" | "nobody";

const SOURCE_TEXT: Record<AnswerSource, string> = {
  person: "answered by a person",
  flag: "answered by a flag",
  default: "answered with the form's defaults (--defaults)",
  nobody: "declined with nobody to ask",
};

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const ansi =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const plain = (text: string): string => text;

export function makeStyle(colour: boolean): Style {
  if (!colour) {
    return {
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    };
  }
  return {
    bold: ansi(1, 22),
    dim: ansi(2, 22),
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    cyan: ansi(36, 39),
    magenta: ansi(35, 39),
  };
}

/** Colour when writing to a terminal, never when NO_COLOR is set (https://no-color.org). */
export function wantsColour(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  flag?: boolean,
): boolean {
  if (flag !== undefined) return flag;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

/** A call's short name for the transcript: `fetch_status[billing]`, `deploy[2.4.1]`, `whoami`. */
export function callLabel(call: Pick<ToolCall, "name" | "args">): string {
  const values = Object.values(call.args ?? {});
  const first = values[0];
  const name = printable(call.name);
  return values.length > 0 && (typeof first === "string" || typeof first === "number")
    ? `${name}[${printable(first)}]`
    : name;
}

function describeContext(ctx: ToolContext): string {
  const parts: string[] = [];
  if (ctx.agent !== undefined) parts.push(`agent=${ctx.agent}`);
  if (ctx.sessionId !== undefined) parts.push(`session=${ctx.sessionId}`);
  if (ctx.messageId !== undefined) parts.push(`message=${ctx.messageId}`);
  if (ctx.callId !== undefined) parts.push(`call=${ctx.callId}`);
  return printable(parts.join(" "));
}

function describeBudget(ctx: ToolContext): string {
  const parts = [ctx.timeout === undefined ? "timeout=unset" : `timeout=${ctx.timeout}ms`];
  if (ctx.signal !== undefined) parts.push(`signal=${ctx.signal.aborted ? "aborted" : "live"}`);
  if (ctx.answer !== undefined) parts.push(`answer=${JSON.stringify(ctx.answer.data ?? {})}`);
  return printable(parts.join(" "));
}

/** A model's text: its own line breaks kept, each line indented under the speaker, made printable. */
function paragraph(text: string, indent: string): string {
  return text.split(/\r?\n/).map(printable).join(`\n${indent}`);
}

function oneLine(text: string, max = 400): string {
  const flat = printable(text.replace(/\s*\n\s*/g, " ⏎ "));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function describeExpiry(iso: string | undefined, now = Date.now()): string {
  if (iso === undefined) return "no expiry";
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return "expired";
  const minutes = Math.round(ms / 60_000);
  return minutes >= 1 ? `expires in ${minutes} min` : `expires in ${Math.ceil(ms / 1000)}s`;
}

export function describeAge(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 100;

/** Seconds with one decimal: `0.6s`, `12.3s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * The line at the bottom of a terminal that shows the tool calls still running, with a spinner
 * and how long each has been at it, redrawn every 100 ms (a call that ends sooner never shows).
 * Only on a terminal: the line is erased before anything else is written, so the transcript
 * above it reads as it would in a log.
 */
export class LiveStatus {
  private readonly running = new Map<string, { label: string; started: number }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private shown = false;
  private frame = 0;
  private held = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly columns: () => number | undefined = () => undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  start(key: string, label: string): void {
    this.running.set(key, { label, started: this.now() });
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), FRAME_MS);
      this.timer.unref?.();
    }
  }

  stop(key: string): void {
    this.running.delete(key);
    if (this.running.size === 0) {
      this.clear();
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Erases the line (before a transcript line, or a prompt). */
  clear(): void {
    if (!this.shown) return;
    this.write("\r\u001b[2K");
    this.shown = false;
  }

  /** Stops drawing while a person is asked something; `release` goes back to it. */
  hold(): void {
    this.held = true;
    this.clear();
  }

  release(): void {
    this.held = false;
    this.draw();
  }

  private tick(): void {
    this.frame = (this.frame + 1) % SPINNER.length;
    this.draw();
  }

  /** What the line says now, e.g. `⠹ running fetch_status[billing] 0.6s`. */
  text(): string {
    const now = this.now();
    const calls = [...this.running.values()].map(
      (call) => `${call.label} ${seconds(now - call.started)}`,
    );
    return `  ${SPINNER[this.frame]} running ${calls.join(" · ")}`;
  }

  draw(): void {
    if (this.held || this.running.size === 0) return;
    let text = this.text();
    // One line only: a wrapped line could not be erased with a carriage return.
    const width = this.columns();
    if (width !== undefined && width > 1 && text.length >= width) {
      text = `${text.slice(0, width - 2)}…`;
    }
    this.write(`\r\u001b[2K${this.style.cyan(text)}`);
    this.shown = true;
  }
}

/** Writes the run's events as a readable transcript. */
export class Printer {
  private readonly labels = new Map<string, string>();
  private timedOut = 0;
  private calls = 0;
  private waited = 0;
  private readonly answers: Record<AnswerSource, number> = {
    person: 0,
    flag: 0,
    default: 0,
    nobody: 0,
  };
  /** The assistant's calls that ran a sub-agent (by call id), and what the sub-agents did. */
  private readonly agentCalls = new Map<string, string>();
  private agentTurns = 0;
  private agentResults = 0;

  constructor(
    private readonly write: (text: string) => void,
    readonly style: Style,
    /** The client's wait limit, shown for requests that set no expiry of their own. */
    private readonly waitLimitMs?: number,
    /** The running calls' line at the bottom of a terminal; none in a pipe or a log. */
    readonly live?: LiveStatus,
  ) {}

  line(text = ""): void {
    // The status line comes back at its next frame, under this one.
    this.live?.clear();
    this.write(`${guardLine(text)}\n`);
  }

  heading(title: string, detail: string): void {
    const s = this.style;
    this.line(`${s.bold(s.magenta(title))} ${s.dim(detail)}`);
  }

  user(prompt: string): void {
    this.line();
    this.line(`${this.style.bold("you ›")} ${prompt}`);
  }

  private label(callId: string | undefined, fallback: string): string {
    return (callId === undefined ? undefined : this.labels.get(callId)) ?? fallback;
  }

  /** A note from inside a tool: what it saw in its context, what it did, when it was cancelled. */
  note = (note: ToolNote): void => {
    const s = this.style;
    const who = this.label(note.callId, note.tool);
    if (note.kind === "context" && note.ctx !== undefined) {
      this.line(`    ${s.dim(`${who} sees ctx: ${describeBudget(note.ctx)}`)}`);
    } else if (note.kind === "cancelled") {
      this.line(`    ${s.yellow(`✂ ${who}: ${oneLine(note.text)}`)}`);
    } else {
      this.line(`    ${s.dim(`${who}: ${oneLine(note.text)}`)}`);
    }
  };

  /** One event of the loop. */
  event = (event: RunEvent): void => {
    const s = this.style;
    switch (event.type) {
      case "message": {
        this.line();
        const text = paragraph(event.message.content.trim(), "    ");
        this.line(
          `${s.bold(s.cyan("assistant ›"))} ${text === "" ? s.dim("(no text)") : text} ${s.dim(`(turn ${event.turn})`)}`,
        );
        break;
      }
      case "tool_call": {
        const label = callLabel(event.call);
        this.labels.set(event.call.id, label);
        this.live?.start(event.call.id, label);
        this.line(
          `  ${s.bold("→")} ${s.bold(label)} ${s.dim(oneLine(event.call.rawArgs || "{}", 4000))}`,
        );
        this.line(`    ${s.dim(`ctx: ${describeContext(event.ctx)}`)}`);
        break;
      }
      case "pending":
        // Suspended: the tool is not working, a person is asked.
        this.live?.stop(event.call.id);
        this.pendingLine(event.request, this.label(event.call.id, callLabel(event.call)));
        break;
      case "agent":
        this.agentCalls.set(event.callId, event.agent);
        this.agentEvent(event.agent, event.event);
        break;
      case "tool_result": {
        const label = this.label(event.call.id, callLabel(event.call));
        const { record } = event;
        this.live?.stop(event.call.id);
        if (event.pending) {
          this.line(`  ${s.yellow("⏸")} ${label} ${s.dim("suspended (pending, not an error)")}`);
          break;
        }
        // A sub-agent's call is counted as such in the summary, not as one of the tool results.
        if (!this.agentCalls.has(event.call.id)) this.calls++;
        const ms = s.dim(`(${Math.round(record.durationMs)}ms)`);
        if (record.timedOut) {
          this.timedOut++;
          this.line(
            `  ${s.red("✗")} ${s.bold(label)} ${s.red(oneLine(record.result.output))} ${s.dim("— stopped by the loop at its budget")}`,
          );
        } else if (event.isError) {
          this.line(
            `  ${s.red("✗")} ${s.bold(label)} ${s.red(oneLine(record.result.output))} ${ms}`,
          );
        } else {
          this.line(`  ${s.green("✓")} ${s.bold(label)} ${oneLine(record.result.output)} ${ms}`);
        }
        break;
      }
      default:
        break;
    }
  };

  /**
   * One event of a sub-agent's run, as it reaches the assistant's stream: indented under the
   * assistant's call, marked with the agent. Its question is shown where the assistant passes
   * it on to the person (the assistant's own `pending`), so it is not counted here.
   */
  private agentEvent(agent: string, event: RunEvent): void {
    const s = this.style;
    if (event.type === "agent") {
      this.agentEvent(`${agent} › ${printable(event.agent)}`, event.event);
      return;
    }
    const at = `    ${s.magenta("┊")} ${s.magenta(printable(agent))}`;
    switch (event.type) {
      case "message": {
        this.agentTurns++;
        const text = paragraph(event.message.content.trim(), "    ┊   ");
        this.line(
          `${at} › ${text === "" ? s.dim("(no text)") : text} ${s.dim(`(turn ${event.turn})`)}`,
        );
        break;
      }
      case "tool_call":
        this.live?.start(`${agent}/${event.call.id}`, `${agent} › ${callLabel(event.call)}`);
        this.line(
          `${at} ${s.bold("→")} ${s.bold(callLabel(event.call))} ${s.dim(oneLine(event.call.rawArgs || "{}", 4000))}`,
        );
        this.line(`    ${s.magenta("┊")}   ${s.dim(`ctx: ${describeContext(event.ctx)}`)}`);
        break;
      case "pending":
        this.live?.stop(`${agent}/${event.call.id}`);
        this.line(
          `${at} ${s.yellow("⏸")} ${s.bold(callLabel(event.call))} ${s.yellow(`asks (${printable(event.request.kind)}):`)} ${oneLine(event.request.prompt, 4000)} ${s.dim("— passed up to the assistant")}`,
        );
        break;
      case "tool_result": {
        this.live?.stop(`${agent}/${event.call.id}`);
        if (event.pending) break;
        this.agentResults++;
        const mark = event.isError ? s.red("✗") : s.green("✓");
        const output = oneLine(event.record.result.output);
        this.line(
          `${at} ${mark} ${s.bold(callLabel(event.call))} ${event.isError ? s.red(output) : output} ${s.dim(`(${Math.round(event.record.durationMs)}ms)`)}`,
        );
        break;
      }
      default:
        break;
    }
  }

  pendingLine(request: Request, label: string): void {
    const s = this.style;
    this.waited++;
    this.line(
      `  ${s.yellow("⏸")} ${s.bold(label)} ${s.yellow(`needs a person (${printable(request.kind)}):`)} ${oneLine(request.prompt, 4000)}`,
    );
    const expiry =
      request.expiresAt === undefined && this.waitLimitMs !== undefined
        ? `waits up to ${Math.round(this.waitLimitMs / 60_000)} min (the client's waitTimeoutMs)`
        : describeExpiry(request.expiresAt);
    this.line(`    ${s.dim(`request ${printable(request.id)}, ${expiry}`)}`);
    if (request.route !== undefined) {
      const path = printable(request.route.path.join(" › "));
      this.line(
        `    ${s.magenta(`asked by ${printable(request.route.agent)}`)}${s.dim(`, a sub-agent${path === "" ? "" : ` (through ${path})`}: the answer goes back to it`)}`,
      );
    }
  }

  /** Records who answered a question, for the summary. */
  answeredBy(source: AnswerSource): void {
    this.answers[source]++;
  }

  /** `2 questions (1 answered by a person, 1 declined with nobody to ask)`. */
  private questions(): string {
    if (this.waited === 0) return "no questions for a person";
    const parts = (Object.keys(SOURCE_TEXT) as AnswerSource[])
      .filter((source) => this.answers[source] > 0)
      .map((source) => `${this.answers[source]} ${SOURCE_TEXT[source]}`);
    const answered = Object.values(this.answers).reduce((a, b) => a + b, 0);
    if (answered < this.waited) parts.push(`${this.waited - answered} not answered here`);
    return `${this.waited} question${this.waited === 1 ? "" : "s"} (${parts.join(", ")})`;
  }

  /** The closing lines of a finished run. */
  summary(result: RunResult): void {
    const s = this.style;
    const usage =
      result.usage.totalTokens > 0 ? `, ${result.usage.totalTokens} tokens` : ", no tokens billed";
    const parts = [
      `${result.turns} model turns`,
      `${this.calls} tool results`,
      `${this.timedOut} timed out`,
      this.questions(),
    ];
    if (this.agentCalls.size > 0) {
      const agents = [...new Set(this.agentCalls.values())].join(", ");
      const n = this.agentCalls.size;
      parts.push(
        `${n} sub-agent call${n === 1 ? "" : "s"} (${agents}: ${this.agentTurns} model turn${this.agentTurns === 1 ? "" : "s"}, ${this.agentResults} tool result${this.agentResults === 1 ? "" : "s"})`,
      );
    }
    this.line();
    if (result.status === "done") {
      this.line(`${s.green(s.bold("✓ done"))} ${s.dim(`${parts.join(", ")}${usage}`)}`);
    } else if (result.status === "incomplete") {
      this.line(
        `${s.red(s.bold(`✗ stopped: ${result.limit} limit reached`))} ${s.dim(parts.join(", "))}`,
      );
    }
  }
}
