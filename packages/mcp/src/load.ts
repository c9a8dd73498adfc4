// Connecting to MCP servers and turning their tools into toolnexus tools.
import {
  BAGGAGE_META_KEY,
  Client,
  isInputRequiredResult,
  ProtocolError,
  StreamableHTTPClientTransport,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type Answer,
  error,
  type JSONSchema,
  pending,
  type Request,
  randomId,
  type Tool,
  type ToolCall,
  type ToolContext,
  type ToolResult,
} from "@toolnexus/core";
import {
  allowedTools,
  type McpServerSpec,
  mcpToolName,
  parseMcpConfig,
  readConfig,
  redact,
} from "./config.js";
import {
  combinedRequest,
  type Elicitation,
  type ElicitResult,
  elicitationKey,
  elicitationRequest,
  type McpCallResult,
  toElicitResult,
  toElicitResults,
  toToolResult,
} from "./mapping.js";

/** A server's state: the contract's three. */
export type McpServerStatus = "connected" | "failed" | "disabled";

/** What a host's `waitFor` learns besides the Request (the client's `WaitForInfo` shape). */
export interface McpWaitInfo {
  call: ToolCall;
  tool: string;
  signal: AbortSignal;
  sessionId: string | undefined;
  agent: string | undefined;
}

/** Answers a server's question in-process (the same function as the client's `waitFor` fits). */
export type McpWaitFor = (request: Request, info: McpWaitInfo) => Answer | Promise<Answer>;

/** A server's `sampling/createMessage` request, answered by the host (by a model, never a human). */
export type McpSampling = (
  params: Record<string, unknown>,
  info: { server: string; signal: AbortSignal },
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A root the host exposes to servers (`roots/list`). */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** Options of {@link loadMcp}. */
export interface LoadMcpOptions {
  /** Aborts the load: servers still starting are stopped and `loadMcp` rejects. */
  signal?: AbortSignal;
  /**
   * Answers push-style elicitations (servers of the 2025 protocol, which ask in the middle of a
   * call) in-process, while the call waits. Without it, such a question halts the call and the
   * call is replayed after the answer (see the README). 2026 servers' questions (`input_required`)
   * always go to the client loop, which asks its own `waitFor` or halts the run durably.
   */
  waitFor?: McpWaitFor;
  /** Limit on a human's wait for one push-style elicitation answered by `waitFor`, in ms. */
  waitTimeoutMs?: number;
  /** Answers servers' sampling requests (with a model of the host's choice). Not advertised without it. */
  sampling?: McpSampling;
  /** The roots servers may list. Not advertised without it. */
  roots?: readonly McpRoot[] | (() => readonly McpRoot[] | Promise<readonly McpRoot[]>);
  /** Set false to not advertise elicitation at all (servers then do not ask). Default true. */
  elicitation?: boolean;
  /**
   * How many questions one call may ask one after another (rounds of `input_required`, or of a
   * replayed push-style call): each tool's `maxSuspensions`. Default 8.
   */
  maxRounds?: number;
  /** The environment for `${ENV}` in headers and for local servers. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The name and version this client gives servers. Default `toolnexus`. */
  clientInfo?: { name: string; version: string };
  /** Where a local server's stderr goes: `"pipe"` (default: kept for failure reasons) or `"inherit"`. */
  stderr?: "pipe" | "inherit";
}

/** One server's state, with the reason when it failed. */
export interface McpServerInfo {
  name: string;
  status: McpServerStatus;
  /** Why it failed (header values from the environment never appear in it). */
  reason?: string;
  transport?: "stdio" | "streamable-http";
  /** The protocol generation it speaks: `"2025"` or `"2026-07-28"`. */
  protocol?: string;
  /** Its tools' toolnexus names. */
  tools: string[];
}

/**
 * The loaded MCP servers: their tools, their states, and `close()`. It is an `McpSource` for
 * `createToolkit({ mcp })` of `@toolnexus/toolkit`.
 */
export interface McpToolset {
  /** Every connected server's tools, named `sanitize(server)_sanitize(tool)`, `source: "mcp"`. */
  tools(): Tool[];
  /** Each configured server's state by name: `connected`, `failed` or `disabled`. */
  status(): Record<string, McpServerStatus>;
  /** Each configured server's state with details (the failure reason, transport, protocol). */
  servers(): McpServerInfo[];
  /** Disconnects every server and stops local server processes. */
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "toolnexus", version: "0.1.0" };
/** Longest a timer may be set for; the SDK's own request timeout is set to it (we keep time). */
const FOREVER = 2_147_483_647;
const STATE_VERSION = 1;

/** What a suspended MCP call keeps in the checkpoint (as `ctx.resumeState` on the retry). */
type McpState =
  | {
      mcp: typeof STATE_VERSION;
      kind: "input_required";
      /** The server's `requestState`, byte for byte. */
      requestState?: string;
      /** The elicitations waiting for the human, by the server's keys. */
      elicitations: Record<string, Elicitation>;
      /** Responses the host gave already (sampling, roots), by the server's keys. */
      responses: Record<string, unknown>;
    }
  | {
      mcp: typeof STATE_VERSION;
      kind: "replay";
      /** The answers to give a replayed push-style call, in order, with what they answered. */
      answers: { key: string; result: ElicitResult }[];
      /** The question being asked now. */
      asking: Elicitation;
    }
  | { mcp: typeof STATE_VERSION; kind: "url_required" };

function ownState(value: unknown): McpState | undefined {
  return typeof value === "object" &&
    value !== null &&
    (value as { mcp?: unknown }).mcp === STATE_VERSION
    ? (value as McpState)
    : undefined;
}

function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  return String(thrown);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Races `work` against `ms` and `signal`; the loser is left to settle on its own. */
function bounded<T>(work: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms}ms`)), ms);
    const onAbort = () => reject(signal?.reason ?? new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

/**
 * One tools/call in flight: its clocks (an idle limit reset by progress, under a hard limit),
 * paused while a human answers, and what a push-style question asked of it.
 */
class CallState {
  readonly controller = new AbortController();
  readonly signal: AbortSignal;
  timedOut: string | undefined;
  /** Set when a push-style question must halt the call (no `waitFor`). */
  suspendWith: Elicitation | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private hardTimer: ReturnType<typeof setTimeout> | undefined;
  private hardLeft: number;
  private hardStarted = 0;
  private paused = 0;

  constructor(
    readonly ctx: ToolContext | undefined,
    readonly toolName: string,
    readonly args: Record<string, unknown>,
    private readonly idleMs: number,
    hardMs: number,
    /** Answers for a replayed push-style call, in the order the server asks. */
    readonly replay: { key: string; result: ElicitResult }[],
  ) {
    this.hardLeft = hardMs;
    this.signal =
      ctx?.signal === undefined
        ? this.controller.signal
        : AbortSignal.any([ctx.signal, this.controller.signal]);
    this.startHard();
    this.resetIdle();
  }

  private startHard(): void {
    this.hardStarted = Date.now();
    this.hardTimer = setTimeout(
      () => this.stop(`timed out after ${this.hardLeftTotal}ms`),
      this.hardLeft,
    );
  }

  private get hardLeftTotal(): number {
    return Math.round(this.hardLeft);
  }

  /** Progress (or the start): the idle limit starts again, within the hard limit. */
  resetIdle(): void {
    if (this.paused > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.stop(`timed out after ${this.idleMs}ms without a result or progress`),
      this.idleMs,
    );
  }

  /** A human is being asked: neither clock runs until `resume`. */
  pause(): () => void {
    if (this.paused++ === 0) {
      clearTimeout(this.idleTimer);
      clearTimeout(this.hardTimer);
      this.hardLeft -= Date.now() - this.hardStarted;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.paused === 0 && !this.controller.signal.aborted) {
        this.startHard();
        this.resetIdle();
      }
    };
  }

  stop(why: string): void {
    if (this.controller.signal.aborted) return;
    this.timedOut = why;
    this.controller.abort(new DOMException(why, "TimeoutError"));
  }

  /** Halts the call for a push-style question nobody can answer now. */
  halt(elicitation: Elicitation): void {
    this.suspendWith = elicitation;
    this.controller.abort(new DOMException("the call halts for a question", "AbortError"));
  }

  end(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.hardTimer);
  }
}

/** One configured server: its spec, its state, its client and its tools. */
class Server {
  status: McpServerStatus = "failed";
  reason: string | undefined;
  client: Client | undefined;
  protocol: string | undefined;
  tools: Tool[] = [];
  /** Calls in flight, newest last: a push-style question belongs to one of them. */
  private readonly calls: CallState[] = [];
  private stderrTail = "";

  constructor(
    readonly spec: McpServerSpec,
    private readonly options: LoadMcpOptions,
  ) {
    if (spec.kind === "disabled") this.status = "disabled";
    if (spec.kind === "invalid") this.reason = spec.reason;
  }

  get name(): string {
    return this.spec.name;
  }

  private get secrets(): string[] {
    return this.spec.kind === "remote" ? this.spec.secrets : [];
  }

  info(): McpServerInfo {
    const info: McpServerInfo = {
      name: this.name,
      status: this.status,
      tools: this.tools.map((tool) => tool.name),
    };
    if (this.reason !== undefined) info.reason = this.reason;
    if (this.spec.kind === "local") info.transport = "stdio";
    if (this.spec.kind === "remote") info.transport = "streamable-http";
    if (this.protocol !== undefined) info.protocol = this.protocol;
    return info;
  }

  async start(signal: AbortSignal | undefined): Promise<void> {
    const { spec } = this;
    if (spec.kind !== "local" && spec.kind !== "remote") return;
    try {
      const client = this.makeClient();
      this.client = client;
      const transport =
        spec.kind === "local"
          ? this.stdio(spec)
          : this.http(spec as Extract<McpServerSpec, { kind: "remote" }>);
      await bounded(
        client.connect(transport, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
        spec.timeout,
        "connecting",
        signal,
      );
      this.protocol =
        client.getProtocolEra() === "modern" ? client.getNegotiatedProtocolVersion() : "2025";
      const listed = await bounded(
        client.listTools(undefined, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
        spec.timeout,
        "listing tools",
        signal,
      );
      const byName = new Map(listed.tools.map((tool) => [tool.name, tool]));
      this.tools = allowedTools([...byName.keys()], spec.tools).map((name) =>
        this.tool(byName.get(name)!),
      );
      this.status = "connected";
    } catch (thrown) {
      if (signal?.aborted) throw thrown;
      this.status = "failed";
      const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
      this.reason = redact(
        `${messageOf(thrown)}${tail === "" ? "" : ` (stderr: ${tail.slice(-300)})`}`,
        this.secrets,
      );
      await this.close();
    }
  }

  private makeClient(): Client {
    const { options } = this;
    const capabilities: Record<string, unknown> = {};
    if (options.elicitation !== false) capabilities.elicitation = { form: {}, url: {} };
    if (options.sampling !== undefined) capabilities.sampling = {};
    if (options.roots !== undefined) capabilities.roots = { listChanged: false };
    const protocol =
      this.spec.kind === "local" || this.spec.kind === "remote" ? this.spec.protocol : "auto";
    const client = new Client(options.clientInfo ?? CLIENT_INFO, {
      capabilities,
      // 2026 servers' questions come back to us as data, to suspend on (never fulfilled inside the call).
      inputRequired: { autoFulfill: false },
      ...(protocol === "2025"
        ? {}
        : {
            versionNegotiation: {
              mode: protocol === "auto" ? ("auto" as const) : { pin: protocol },
            },
          }),
    } as ConstructorParameters<typeof Client>[1]);
    if (options.elicitation !== false) {
      client.setRequestHandler(
        "elicitation/create",
        (request, ctx) => this.onElicit(request.params as Elicitation, ctx.mcpReq.signal) as never,
      );
    }
    const { sampling, roots } = options;
    if (sampling !== undefined) {
      client.setRequestHandler(
        "sampling/createMessage",
        async (request, ctx) =>
          (await sampling(request.params as Record<string, unknown>, {
            server: this.name,
            signal: ctx.mcpReq.signal,
          })) as never,
      );
    }
    if (roots !== undefined) {
      client.setRequestHandler("roots/list", async () => ({ roots: [...(await this.roots())] }));
    }
    return client;
  }

  private async roots(): Promise<readonly McpRoot[]> {
    const { roots } = this.options;
    if (roots === undefined) return [];
    return typeof roots === "function" ? await roots() : roots;
  }

  private stdio(spec: Extract<McpServerSpec, { kind: "local" }>): StdioClientTransport {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.options.env ?? process.env)) {
      if (typeof value === "string") env[key] = value;
    }
    const transport = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: { ...env, ...spec.env },
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stderr: this.options.stderr ?? "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    return transport;
  }

  private http(spec: Extract<McpServerSpec, { kind: "remote" }>): StreamableHTTPClientTransport {
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await client.close().catch(() => {});
  }

  /** A push-style question in the middle of a call (2025 servers). */
  private async onElicit(elicitation: Elicitation, signal: AbortSignal): Promise<ElicitResult> {
    const call = this.calls[this.calls.length - 1];
    const key = elicitationKey(elicitation);
    // A replayed call asks again what was answered before it halted: answer from the record.
    if (call !== undefined && call.replay.length > 0 && call.replay[0]!.key === key) {
      return call.replay.shift()!.result;
    }
    const { waitFor } = this.options;
    if (waitFor === undefined) {
      // Nobody can answer while the call waits: halt it, and replay it after the answer.
      if (call !== undefined) call.halt(elicitation);
      return { action: "cancel" };
    }
    const request: Request = { id: randomId("mcp"), ...elicitationRequest(elicitation, this.name) };
    const { waitTimeoutMs } = this.options;
    if (waitTimeoutMs !== undefined) {
      request.expiresAt = new Date(Date.now() + waitTimeoutMs).toISOString();
    }
    const resume = call?.pause();
    const waitSignal = call === undefined ? signal : AbortSignal.any([signal, call.signal]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        if (waitTimeoutMs !== undefined) {
          timer = setTimeout(
            () => resolve({ id: request.id, ok: false, reason: "expired" }),
            waitTimeoutMs,
          );
        }
        waitSignal.addEventListener(
          "abort",
          () => resolve({ id: request.id, ok: false, reason: "cancelled" }),
          { once: true },
        );
        const ctx = call?.ctx;
        Promise.resolve()
          .then(() =>
            waitFor(request, {
              call: {
                id: ctx?.callId ?? "",
                name: call?.toolName ?? "",
                args: call?.args ?? {},
                rawArgs: JSON.stringify(call?.args ?? {}),
              },
              tool: call?.toolName ?? "",
              signal: waitSignal,
              sessionId: ctx?.sessionId,
              agent: ctx?.agent,
            }),
          )
          .then(resolve, reject);
      });
      if (!isObject(answer) || typeof answer.ok !== "boolean") return { action: "cancel" };
      return toElicitResult(answer, elicitation);
    } catch {
      return { action: "cancel" };
    } finally {
      clearTimeout(timer);
      resume?.();
    }
  }

  private tool(def: {
    name: string;
    description?: string;
    inputSchema?: unknown;
    title?: string;
  }): Tool {
    const name = mcpToolName(this.name, def.name);
    const inputSchema = (
      isObject(def.inputSchema) ? def.inputSchema : { type: "object" }
    ) as JSONSchema;
    return {
      name,
      description: def.description ?? def.title ?? def.name,
      inputSchema,
      source: "mcp",
      // A declined question is the server's to hear (decline/cancel), not the loop's to answer.
      handlesRefusals: true,
      maxSuspensions: this.options.maxRounds ?? 8,
      execute: (args, ctx) => this.call(def.name, name, args ?? {}, ctx),
    };
  }

  /** One execution of a tool: a first call, or a retry with the human's answer. */
  async call(
    tool: string,
    exposed: string,
    args: Record<string, unknown>,
    ctx: ToolContext | undefined,
  ): Promise<ToolResult> {
    const meta = { server: this.name, tool };
    if (this.client === undefined || this.status !== "connected") {
      return error(`MCP server ${this.name} is not connected`, meta);
    }
    const answer = ctx?.answer;
    const state = ownState(ctx?.resumeState);
    if (answer !== undefined && state === undefined && !answer.ok) {
      // Someone else's question (an approval) was refused: nothing to tell the server.
      return error(`declined/expired: ${exposed}`, { ...meta, answer });
    }
    let params: Record<string, unknown> = { name: tool, arguments: args };
    let replay: { key: string; result: ElicitResult }[] = [];
    if (state !== undefined && answer !== undefined) {
      if (state.kind === "input_required") {
        params = {
          ...params,
          inputResponses: { ...state.responses, ...toElicitResults(answer, state.elicitations) },
          ...(state.requestState === undefined ? {} : { requestState: state.requestState }),
        };
      } else if (state.kind === "replay") {
        replay = [
          ...state.answers,
          { key: elicitationKey(state.asking), result: toElicitResult(answer, state.asking) },
        ];
      } else if (!answer.ok) {
        return error(`declined/expired: the server's authorization was not completed`, meta);
      }
    }
    const spec = this.spec as Extract<McpServerSpec, { kind: "local" | "remote" }>;
    const hard = Math.min(spec.maxTimeout, ctx?.timeout ?? Number.POSITIVE_INFINITY);
    const maxRounds = this.options.maxRounds ?? 8;
    for (let round = 0; ; round++) {
      const outcome = await this.send(params, exposed, args, ctx, spec.timeout, hard, replay);
      if (!("inputRequired" in outcome)) return outcome;
      const { inputRequests, requestState } = outcome.inputRequired;
      // Sampling and roots are the host's to answer, now; elicitations are the human's.
      const responses: Record<string, unknown> = {};
      const elicitations: Record<string, Elicitation> = {};
      for (const [key, entry] of Object.entries(inputRequests ?? {})) {
        const method = isObject(entry) ? entry.method : undefined;
        const p = (isObject(entry) && isObject(entry.params) ? entry.params : {}) as Record<
          string,
          unknown
        >;
        if (method === "elicitation/create") elicitations[key] = p as Elicitation;
        else if (method === "roots/list" && this.options.roots !== undefined) {
          responses[key] = { roots: [...(await this.roots())] };
        } else if (method === "sampling/createMessage" && this.options.sampling !== undefined) {
          try {
            responses[key] = await this.options.sampling(p, {
              server: this.name,
              signal: ctx?.signal ?? new AbortController().signal,
            });
          } catch (thrown) {
            return error(
              `MCP server ${this.name}: sampling for ${tool} failed: ${messageOf(thrown)}`,
              meta,
            );
          }
        } else {
          return error(
            `MCP server ${this.name} asked ${tool} for ${String(method)}, which this client does not provide`,
            meta,
          );
        }
      }
      if (Object.keys(elicitations).length === 0) {
        if (round + 1 >= maxRounds) {
          return error(
            `MCP server ${this.name}: ${tool} asked for input more than ${maxRounds} times`,
            meta,
          );
        }
        params = {
          name: tool,
          arguments: args,
          inputResponses: responses,
          ...(requestState === undefined ? {} : { requestState }),
        };
        continue;
      }
      const mcpState: McpState = {
        mcp: STATE_VERSION,
        kind: "input_required",
        elicitations,
        responses,
      };
      if (requestState !== undefined) mcpState.requestState = requestState;
      return pending({ ...combinedRequest(elicitations, this.name), state: mcpState });
    }
  }

  /** Sends one tools/call within the call's clocks. */
  private async send(
    params: Record<string, unknown>,
    exposed: string,
    args: Record<string, unknown>,
    ctx: ToolContext | undefined,
    idleMs: number,
    hardMs: number,
    replay: { key: string; result: ElicitResult }[],
  ): Promise<
    | ToolResult
    | { inputRequired: { inputRequests?: Record<string, unknown>; requestState?: string } }
  > {
    const tool = params.name as string;
    const meta = { server: this.name, tool };
    const client = this.client!;
    const call = new CallState(ctx, exposed, args, idleMs, hardMs, [...replay]);
    const answered = replay.length;
    this.calls.push(call);
    const carrier = traceMeta(ctx);
    const sent = carrier === undefined ? params : { ...params, _meta: carrier };
    try {
      const result = (await client.callTool(sent as never, {
        signal: call.signal,
        timeout: FOREVER,
        allowInputRequired: true,
        onprogress: (progress) => {
          call.resetIdle();
          const update: { progress: number; total?: number; message?: string } = {
            progress: progress.progress,
          };
          if (typeof progress.total === "number") update.total = progress.total;
          if (typeof progress.message === "string") update.message = progress.message;
          ctx?.progress?.(update);
        },
      })) as unknown;
      if (call.suspendWith !== undefined) return this.halted(call, replay, answered);
      if (isInputRequiredResult(result)) {
        const r = result as { inputRequests?: Record<string, unknown>; requestState?: string };
        const out: { inputRequests?: Record<string, unknown>; requestState?: string } = {};
        if (r.inputRequests !== undefined) out.inputRequests = r.inputRequests;
        if (r.requestState !== undefined) out.requestState = r.requestState;
        return { inputRequired: out };
      }
      return toToolResult(result as McpCallResult, meta);
    } catch (thrown) {
      if (call.suspendWith !== undefined) return this.halted(call, replay, answered);
      if (call.timedOut !== undefined) {
        return error(`MCP server ${this.name}: ${tool} ${call.timedOut}`, {
          ...meta,
          timedOut: true,
        });
      }
      if (ctx?.signal?.aborted) {
        return error(`MCP server ${this.name}: ${tool} was cancelled`, {
          ...meta,
          cancelled: true,
        });
      }
      // A 2025 server needs the human at a link first (-32042): that is a suspension too.
      if (thrown instanceof ProtocolError && thrown.code === -32042) {
        const list = (thrown.data as { elicitations?: Elicitation[] } | undefined)?.elicitations;
        const first = Array.isArray(list) ? list[0] : undefined;
        if (first !== undefined) {
          return pending({
            ...elicitationRequest({ ...first, mode: "url" }, this.name),
            state: { mcp: STATE_VERSION, kind: "url_required" } satisfies McpState,
          });
        }
      }
      return error(
        redact(`MCP server ${this.name}: ${tool} failed: ${messageOf(thrown)}`, this.secrets),
        meta,
      );
    } finally {
      call.end();
      this.calls.splice(this.calls.indexOf(call), 1);
    }
  }

  /** A push-style call halted on a question: suspend, to be replayed with the answers so far. */
  private halted(
    call: CallState,
    replay: { key: string; result: ElicitResult }[],
    answered: number,
  ): ToolResult {
    const asking = call.suspendWith!;
    // The answers the replay used before this new question (all of them, normally).
    const used = replay.slice(0, answered - call.replay.length);
    const state: McpState = { mcp: STATE_VERSION, kind: "replay", answers: used, asking };
    return pending({ ...elicitationRequest(asking, this.name), state });
  }
}

/** The trace context for `_meta`, when the run's instrumentation provides one. */
function traceMeta(ctx: ToolContext | undefined): Record<string, string> | undefined {
  const carrier = ctx?.traceCarrier?.();
  if (carrier === undefined) return undefined;
  const meta: Record<string, string> = {};
  for (const key of [TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY]) {
    const value = carrier[key];
    if (typeof value === "string" && value !== "") meta[key] = value;
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/**
 * Connects to every server of an MCP config (a path to a JSON file or the parsed object) and
 * gives their tools. A server that cannot start, connect or list its tools within its `timeout`
 * is isolated: status `failed` with the reason, no tools, and the others load as usual. Has the
 * shape of the toolkit's MCP loader: `createToolkit({ mcpConfig, mcp: loadMcp })`.
 *
 * @example
 * const mcp = await loadMcp({ mcpServers: { everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] } } });
 * const client = createClient({ model, tools: mcp.tools() });
 */
export async function loadMcp(
  config: string | Readonly<Record<string, unknown>>,
  options: LoadMcpOptions = {},
): Promise<McpToolset> {
  const { signal } = options;
  signal?.throwIfAborted();
  const specs = parseMcpConfig(
    readConfig(config) as Record<string, unknown>,
    options.env ?? process.env,
  );
  const servers = specs.map((spec) => new Server(spec, options));
  try {
    await Promise.all(servers.map((server) => server.start(signal)));
  } catch (thrown) {
    await Promise.all(servers.map((server) => server.close()));
    throw thrown;
  }
  let closing: Promise<void> | undefined;
  return {
    tools: () => servers.flatMap((server) => (server.status === "connected" ? server.tools : [])),
    status: () => Object.fromEntries(servers.map((server) => [server.name, server.status])),
    servers: () => servers.map((server) => server.info()),
    close: () => {
      closing ??= Promise.all(servers.map((server) => server.close())).then(() => {});
      return closing;
    },
  };
}
