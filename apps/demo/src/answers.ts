// Who answers a suspension in the terminal: the person at a TTY (a real prompt), or, off a TTY
// (CI, a pipe), the command-line flags or a stated default.
import { createInterface, type Interface } from "node:readline/promises";
import type { Answer, Request } from "@toolnexus/core";
import type { AnswerSource, Printer } from "./printer.js";
import { answerSchemaOf, checkAnswerData, coerce, type Field, fallbackValue } from "./schema.js";
import { guardLine, printable } from "./terminal-text.js";

/**
 * Answers given on the command line: `--answer key=value` (repeatable), `--approve`,
 * `--decline`, and `--defaults` (take a form's stated defaults for what no flag answers).
 */
export interface AnswerFlags {
  values: Record<string, string>;
  approve?: boolean;
  decline: boolean;
  defaults?: boolean;
}

export type { AnswerSource } from "./printer.js";

/** Resolves one Request into an Answer. */
export type Asker = (request: Request, signal?: AbortSignal) => Promise<Answer>;

/** A flag value that does not fit the request: the CLI reports it and exits with status 2. */
export class AnswerInputError extends Error {}

export function hasAnswerFlags(flags: AnswerFlags): boolean {
  return (
    Object.keys(flags.values).length > 0 ||
    flags.approve !== undefined ||
    flags.decline ||
    flags.defaults === true
  );
}

function formatData(data: Record<string, unknown>): string {
  return printable(
    Object.entries(data)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(", "),
  );
}

/** The continuation flags a person would type for this request, e.g. `--answer env=staging`. */
export function exampleFlags(request: Request): string {
  if (request.kind === "approval" || request.kind === "authorization") return "--approve yes";
  const schema = answerSchemaOf(request);
  const field = schema?.fields.find((f) => f.required) ?? schema?.fields[0];
  if (field === undefined) return "--answer text=...";
  return printable(`--answer ${field.name}=${String(fallbackValue(field) ?? "...")}`);
}

/**
 * Answers from the flags; says which, so a log read later shows that no person was asked.
 * Nothing is decided on a person's behalf unless a flag says so: an approval (or an
 * authorization) without `--approve` is declined, and so is an input no `--answer` fills,
 * unless `--defaults` says to take the form's stated defaults. Each answer is reported to the
 * printer with who gave it.
 */
export function flagAsker(flags: AnswerFlags, printer: Printer, why: string): Asker {
  const s = printer.style;
  const say = (text: string) => printer.line(`    ${s.magenta("↳")} ${text}`);
  const declined = (request: Request, by: AnswerSource): Answer => {
    printer.answeredBy(by);
    return { id: request.id, ok: false, reason: "declined" };
  };
  return async (request) => {
    if (flags.decline) {
      say(`declined by --decline`);
      return declined(request, "flag");
    }
    if (request.kind === "approval" || request.kind === "authorization") {
      // Nobody said yes: a permission is never granted on a person's behalf.
      if (flags.approve === undefined) {
        say(`${why}: declined, as nobody approved it (pass --approve yes to approve)`);
        return declined(request, "nobody");
      }
      say(flags.approve ? "approved by --approve yes" : "declined by --approve no");
      if (!flags.approve) return declined(request, "flag");
      printer.answeredBy("flag");
      return { id: request.id, ok: true };
    }
    const schema = answerSchemaOf(request);
    if (schema === undefined) {
      const data: Record<string, unknown> = { ...flags.values };
      if (Object.keys(data).length === 0) {
        say(`${why}: declined, as nobody answered it (pass --answer text=...)`);
        return declined(request, "nobody");
      }
      say(`answered from --answer ${formatData(data)}`);
      printer.answeredBy("flag");
      return { id: request.id, ok: true, data };
    }
    const data: Record<string, unknown> = {};
    const given: string[] = [];
    const defaulted: string[] = [];
    for (const field of schema.fields) {
      const text = flags.values[field.name];
      if (text !== undefined) {
        data[field.name] = coerce(field, text);
        given.push(field.name);
      }
    }
    // A person who answered with --answer (or asked for --defaults) has answered the request:
    // the fields they left out take the form's stated defaults.
    const answered = given.length > 0 || flags.defaults === true;
    for (const field of schema.fields) {
      if (answered && !given.includes(field.name)) {
        const fallback = fallbackValue(field);
        if (fallback !== undefined) {
          data[field.name] = fallback;
          defaulted.push(field.name);
        }
      }
    }
    if (!answered) {
      // No flag answered and defaults were not asked for: nobody decides the deploy.
      say(
        `${why}: declined, as nobody answered it (answer with ${exampleFlags(request)}, or pass --defaults to take the form's defaults)`,
      );
      return declined(request, "nobody");
    }
    const problems = checkAnswerData(schema, data);
    if (problems.length > 0) {
      throw new AnswerInputError(
        `the answer to "${printable(request.prompt)}" does not fit: ${printable(problems.join("; "))}. Nothing was answered.`,
      );
    }
    const pick = (names: string[]) =>
      formatData(Object.fromEntries(names.map((n) => [n, data[n]])));
    if (given.length > 0) say(`answered from --answer ${pick(given)}`);
    if (defaulted.length > 0) {
      const field = schema.fields.find((f) => f.name === defaulted[0]);
      const other = field?.choices?.find((c) => c !== data[defaulted[0]!]);
      const hint =
        other === undefined
          ? ""
          : printable(` (choose with --answer ${defaulted[0]}=${String(other)})`);
      say(
        given.length > 0
          ? `defaults for the rest: ${pick(defaulted)}`
          : `${why}: used the default ${pick(defaulted)}, as --defaults says${hint}`,
      );
    }
    printer.answeredBy(given.length > 0 ? "flag" : "default");
    return { id: request.id, ok: true, data };
  };
}

const STDIN_ENDED = "standard input ended before the question was answered; nothing was answered";

/**
 * Prompts the person at the terminal, one question per field of the request. Lines are queued
 * as they arrive, so answers typed ahead (or piped in with `--interactive`) are never lost.
 */
export class TerminalAsker {
  private readonly rl: Interface;
  private readonly lines: string[] = [];
  private waiting: ((line: string | Error) => void) | undefined;
  private closed = false;
  /** A terminal echoes what is typed; elsewhere the answer is written after its prompt. */
  private readonly echo: (line: string) => string;

  constructor(
    private readonly printer: Printer,
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    onInterrupt: () => void,
  ) {
    this.echo =
      (output as { isTTY?: boolean }).isTTY === true
        ? (line) => line.trim()
        : (line) => {
            output.write(`${line}\n`);
            return line.trim();
          };
    this.rl = createInterface({ input, output });
    this.rl.on("SIGINT", onInterrupt);
    this.rl.on("line", (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting === undefined) this.lines.push(line);
      else waiting(line);
    });
    this.rl.on("close", () => {
      this.closed = true;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.(new AnswerInputError(STDIN_ENDED));
    });
  }

  close(): void {
    this.rl.close();
  }

  private ask(query: string, signal: AbortSignal | undefined): Promise<string> {
    this.rl.setPrompt(guardLine(query));
    this.rl.prompt(true);
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(this.echo(queued));
    if (this.closed) {
      return Promise.reject(new AnswerInputError(STDIN_ENDED));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting = undefined;
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting = (line) => {
        signal?.removeEventListener("abort", onAbort);
        if (line instanceof Error) reject(line);
        else resolve(this.echo(line));
      };
    });
  }

  private async yesNo(query: string, signal: AbortSignal | undefined, fallback?: boolean) {
    const s = this.printer.style;
    const hint = fallback === undefined ? "[y/n]" : fallback ? "[Y/n]" : "[y/N]";
    for (;;) {
      const text = await this.ask(`${s.bold("?")} ${query} ${s.dim(hint)} `, signal);
      if (text === "" && fallback !== undefined) return fallback;
      if (/^(y|yes)$/i.test(text)) return true;
      if (/^(n|no)$/i.test(text)) return false;
      this.printer.line(`  ${s.yellow("please answer y or n")}`);
    }
  }

  private async field(field: Field, signal: AbortSignal | undefined): Promise<unknown> {
    const s = this.printer.style;
    const fallback = fallbackValue(field);
    const about =
      field.description === undefined ? "" : s.dim(` — ${printable(field.description)}`);
    const title = printable(field.title);
    if (field.type === "boolean") {
      return this.yesNo(
        `${title}${about}`,
        signal,
        fallback === true || fallback === false ? fallback : undefined,
      );
    }
    if (field.choices !== undefined && field.choices.length > 0) {
      const choices = field.choices;
      this.printer.line(`  ${s.bold(title)}${about}`);
      choices.forEach((choice, i) => {
        const mark = choice === fallback ? s.dim(" (default)") : "";
        this.printer.line(`    ${s.cyan(`${i + 1})`)} ${printable(String(choice))}${mark}`);
      });
      const def = fallback === undefined ? -1 : choices.indexOf(fallback as string | number);
      for (;;) {
        const text = await this.ask(
          `  choose 1-${choices.length}${def >= 0 ? s.dim(` [${def + 1}]`) : ""}: `,
          signal,
        );
        if (text === "" && def >= 0) return choices[def];
        const n = Number(text);
        if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1];
        const named = choices.find((c) => String(c) === text);
        if (named !== undefined) return named;
        this.printer.line(`  ${s.yellow(`type a number from 1 to ${choices.length}`)}`);
      }
    }
    const text = await this.ask(
      `  ${title}${about}${fallback === undefined ? "" : s.dim(` [${printable(String(fallback))}]`)}: `,
      signal,
    );
    return text === "" ? fallback : coerce(field, text);
  }

  /** The Asker: a real prompt, bounded by the wait's own signal (its expiry). */
  asker: Asker = async (request, signal) => {
    const answer = await this.askPerson(request, signal);
    this.printer.answeredBy("person");
    return answer;
  };

  private async askPerson(request: Request, signal: AbortSignal | undefined): Promise<Answer> {
    const s = this.printer.style;
    const prompt = printable(request.prompt);
    if (request.kind === "approval") {
      const ok = await this.yesNo(prompt, signal);
      return ok ? { id: request.id, ok: true } : { id: request.id, ok: false, reason: "declined" };
    }
    if (request.kind === "authorization") {
      if (request.url !== undefined) this.printer.line(`  open ${s.cyan(printable(request.url))}`);
      const ok = await this.yesNo(`${prompt} — done authorizing?`, signal);
      return ok ? { id: request.id, ok: true } : { id: request.id, ok: false, reason: "declined" };
    }
    const schema = answerSchemaOf(request);
    this.printer.line(`${s.bold("?")} ${prompt}`);
    if (schema === undefined) {
      const text = await this.ask(`  ${s.dim("answer:")} `, signal);
      return { id: request.id, ok: true, data: { text } };
    }
    for (;;) {
      const data: Record<string, unknown> = {};
      for (const field of schema.fields) {
        const value = await this.field(field, signal);
        if (value !== undefined) data[field.name] = value;
      }
      const problems = checkAnswerData(schema, data);
      if (problems.length === 0) return { id: request.id, ok: true, data };
      this.printer.line(`  ${s.yellow(printable(problems.join("; ")))}`);
    }
  }
}
