// One configured MCP server: starting it (once), its tools, and stopping it.
import type { Client, Transport } from "@modelcontextprotocol/client";
import { type Tool, textHead } from "@toolnexus/core";
import type { CallState } from "./call-state.js";
import { bounded } from "./call-state.js";
import { makeClient } from "./capabilities.js";
import type { McpServerSpec } from "./config.js";
import { type ActiveSpec, messageOf, type ServerConnection } from "./connection.js";
import type { McpLimits } from "./limits.js";
import { TokenScrubber } from "./oauth/scrub.js";
import { type AuthSession, authSession } from "./oauth/session.js";

import type { McpServerFingerprint } from "./pinning.js";
import { checkPins } from "./pinning-policy.js";
import { negotiatedProtocol, probeKilled } from "./probe.js";
import type { Scrubber } from "./scrub.js";
import { StderrTail } from "./stderr-tail.js";
import { interceptTasks } from "./task-intercept.js";
import { keptTools, type ListedTool, offeredTools } from "./tools.js";
import { openTransport } from "./transport.js";
import type { LoadMcpOptions, McpRoot, McpServerInfo, McpServerStatus } from "./types.js";

/** The longest error message a failure reason quotes (a remote server's may be megabytes). */
const REASON_MESSAGE_CHARS = 2000;

/** One configured server: its spec, its state, its client and its tools. */
export class Server implements ServerConnection {
  status: McpServerStatus = "failed";
  reason: string | undefined;
  client: Client | undefined;
  protocol: string | undefined;
  tools: Tool[] = [];
  /** Each exposed tool name's original name on the server. */
  readonly originals = new Map<string, string>();
  /** Calls in flight, newest last: a push-style question belongs to one of them. */
  readonly calls: CallState[] = [];
  private transport: Transport | undefined;
  private readonly stderr: StderrTail;
  /** Set by `close()`: nothing starts after it. */
  private closed = false;
  /** How many server processes this server started (a stdio server: 1, or 2 if the probe killed it). */
  starts = 0;
  /** OAuth of a remote server (oauth/session.ts), when it applies. */
  readonly auth: AuthSession | undefined;
  /** The fingerprint of its offered tools (with `pin`). */
  fingerprint: McpServerFingerprint | undefined;
  /** Set when a changed tool list was refused: its tools answer with this error. */
  refused: Error | undefined;
  private rechecked: Promise<void> = Promise.resolve();

  constructor(
    readonly spec: McpServerSpec,
    readonly options: LoadMcpOptions,
    /** Every configured secret value, scrubbed from everything any server says. */
    readonly scrub: Scrubber,
    /** The load's limits (limits.ts), validated. */
    readonly limits: McpLimits,
    /** The values `scrub` removes, so that a cut of stderr can redact a fragment of one. */
    secrets: readonly string[],
  ) {
    if (spec.kind === "disabled") this.status = "disabled";
    if (spec.kind === "invalid") this.reason = spec.reason;
    this.auth =
      spec.kind === "remote"
        ? authSession(spec.name, spec.url, spec.auth, options.oauth)
        : undefined;
    // What this server says is also scrubbed of the tokens it was given.
    const provider = this.auth?.provider;
    if (provider !== undefined) this.scrub = new TokenScrubber(scrub, () => provider.liveTokens());
    this.stderr = new StderrTail(this.scrub, secrets);
  }

  get name(): string {
    return this.spec.name;
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
    if (this.fingerprint !== undefined) info.fingerprint = this.fingerprint;
    return info;
  }

  async start(signal: AbortSignal | undefined): Promise<void> {
    const { spec } = this;
    if (spec.kind !== "local" && spec.kind !== "remote") return;
    // An abort stops the server at once (its process tree included), whatever phase it is in.
    const onAbort = () => void this.close();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let listed: { tools: ListedTool[] };
      if (this.auth === undefined) {
        try {
          await this.connect(spec, spec.protocol, signal);
        } catch (thrown) {
          if (!probeKilled(spec, this.transport, this.protocol) || this.closed || signal?.aborted) {
            throw thrown;
          }
          await this.client?.close().catch(() => {});
          await this.connect(spec, "2025", signal);
        }
        listed = await this.listTools(spec, signal);
      } else {
        // A start that stopped for a person's approval (at the handshake or at the first
        // request that needs a token) is made again after it.
        listed = await this.auth.connect(async () => {
          await this.client?.close().catch(() => {});
          await this.connect(spec, spec.protocol, signal);
          return this.listTools(spec, signal);
        }, signal);
      }
      if (this.options.pin !== undefined) {
        this.fingerprint = await checkPins(
          this.name,
          keptTools(this, listed.tools),
          this.options.pin,
        );
      }
      this.tools = offeredTools(this, listed.tools, this.originals);
      if (this.closed) throw new Error("the server was stopped while starting");
      this.status = "connected";
    } catch (thrown) {
      if (signal?.aborted) {
        await this.close();
        throw signal.reason;
      }
      this.fail(thrown);
      await this.close();
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private listTools(spec: ActiveSpec, signal: AbortSignal | undefined) {
    return bounded(
      this.client!.listTools(undefined, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
      spec.timeout,
      "listing tools",
      signal,
    );
  }

  /** Marks the server failed with a reason that holds no secret. */
  fail(why: unknown): void {
    this.status = "failed";
    this.tools = [];
    // Scrubbed before it is cut, so a cut never leaves part of a secret (the stderr tail too).
    const message = this.scrub.text(messageOf(why));
    const cut =
      message.length <= REASON_MESSAGE_CHARS
        ? message
        : `${textHead(message, REASON_MESSAGE_CHARS)}… [cut: ${message.length} characters]`;
    const tail = this.stderr.summary();
    this.reason = `${cut}${tail === "" ? "" : ` (stderr: ${tail})`}`;
  }

  private async connect(
    spec: ActiveSpec,
    protocol: ActiveSpec["protocol"],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (this.closed) throw new Error("the server was stopped before it started");
    const client = makeClient(this, protocol);
    this.client = client;
    this.stderr.seal();
    const transport = openTransport(
      spec,
      this.options,
      this.limits,
      (text) => this.stderr.push(text),
      this.auth,
    );
    this.transport = transport;
    if (spec.kind === "local") this.starts++;
    await bounded(
      client.connect(transport, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
      spec.timeout,
      "connecting",
      signal,
    );
    this.protocol = negotiatedProtocol(client);
    interceptTasks(transport);
  }

  async roots(): Promise<readonly McpRoot[]> {
    const { roots } = this.options;
    if (roots === undefined) return [];
    return typeof roots === "function" ? await roots() : roots;
  }

  /**
   * The server's new tool list (pinning only), checked against the fingerprint accepted so far:
   * offered when it may be used, else the server fails and its tools answer with the change.
   */
  toolsChanged(listed: readonly unknown[]): void {
    const { pin } = this.options;
    if (pin === undefined) return;
    const tools = listed as ListedTool[];
    this.rechecked = this.rechecked.then(async () => {
      if (this.status !== "connected") return;
      try {
        this.fingerprint = await checkPins(
          this.name,
          keptTools(this, tools),
          pin,
          this.fingerprint,
        );
        this.originals.clear();
        this.tools = offeredTools(this, tools, this.originals);
      } catch (thrown) {
        this.refused = thrown instanceof Error ? thrown : new Error(messageOf(thrown));
        this.fail(thrown);
      }
    });
  }

  /** Disconnects; a local server is stopped with its whole process tree. Nothing starts after. */
  async close(): Promise<void> {
    this.closed = true;
    this.auth?.close();
    const { client, transport } = this;
    this.client = undefined;
    if (client !== undefined) await client.close().catch(() => {});
    // The client closes its transport only once connected; during the start it may not have.
    if (transport !== undefined) await transport.close().catch(() => {});
  }
}
