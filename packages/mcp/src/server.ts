// One configured MCP server: starting it (once), its tools, and stopping it.
import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import type { JSONSchema, Tool } from "@toolnexus/core";
import { callTool } from "./call.js";
import type { CallState } from "./call-state.js";
import { bounded } from "./call-state.js";
import { childEnv } from "./child-env.js";
import { allowedTools, type McpServerSpec, mcpToolName } from "./config.js";
import { type ActiveSpec, isObject, messageOf, type ServerConnection } from "./connection.js";
import { onElicit } from "./elicit.js";
import type { Elicitation } from "./mapping.js";
import type { Scrubber } from "./scrub.js";
import { StdioTransport } from "./stdio.js";
import type { LoadMcpOptions, McpRoot, McpServerInfo, McpServerStatus } from "./types.js";

const CLIENT_INFO = { name: "toolnexus", version: "0.1.0" };

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
  private stderrTail = "";
  /** Set by `close()`: nothing starts after it. */
  private closed = false;
  /** How many server processes this server started (a stdio server: 1, or 2 if the probe killed it). */
  starts = 0;

  constructor(
    readonly spec: McpServerSpec,
    readonly options: LoadMcpOptions,
    /** Every configured secret value, scrubbed from everything any server says. */
    readonly scrub: Scrubber,
  ) {
    if (spec.kind === "disabled") this.status = "disabled";
    if (spec.kind === "invalid") this.reason = spec.reason;
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
    return info;
  }

  async start(signal: AbortSignal | undefined): Promise<void> {
    const { spec } = this;
    if (spec.kind !== "local" && spec.kind !== "remote") return;
    // An abort stops the server at once (its process tree included), whatever phase it is in.
    const onAbort = () => void this.close();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      try {
        await this.connect(spec, spec.protocol, signal);
      } catch (thrown) {
        // A stdio server that exits when asked `server/discover` (some SDKs' servers end on any
        // request before `initialize`): it is gone, so start it again with the 2025 handshake.
        const probeKilled =
          spec.kind === "local" &&
          spec.protocol === "auto" &&
          this.transport instanceof StdioTransport &&
          this.transport.hasExited &&
          this.protocol === undefined;
        if (!probeKilled || this.closed || signal?.aborted) throw thrown;
        await this.client?.close().catch(() => {});
        await this.connect(spec, "2025", signal);
      }
      const listed = await bounded(
        this.client!.listTools(undefined, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
        spec.timeout,
        "listing tools",
        signal,
      );
      const byName = new Map(listed.tools.map((tool) => [tool.name, tool]));
      const kept = allowedTools([...byName.keys()], spec.tools);
      // Two of its own tools that sanitize to one name (`a.b` and `a_b`) cannot both be offered.
      const seen = new Map<string, string>();
      for (const original of kept) {
        const exposed = mcpToolName(this.name, original);
        const before = seen.get(exposed);
        if (before !== undefined) {
          throw new Error(
            `its tools "${before}" and "${original}" would both be named ${exposed}; drop one with "tools": { "${original}": false }`,
          );
        }
        seen.set(exposed, original);
      }
      this.tools = kept.map((original) => this.tool(byName.get(original)!));
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

  /** Marks the server failed with a reason that holds no secret. */
  fail(why: unknown): void {
    this.status = "failed";
    this.tools = [];
    const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
    this.reason = this.scrub.text(
      `${messageOf(why)}${tail === "" ? "" : ` (stderr: ${tail.slice(-300)})`}`,
    );
  }

  private async connect(
    spec: ActiveSpec,
    protocol: ActiveSpec["protocol"],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (this.closed) throw new Error("the server was stopped before it started");
    const client = this.makeClient(protocol);
    this.client = client;
    const transport = spec.kind === "local" ? this.stdio(spec) : this.http(spec);
    this.transport = transport;
    if (spec.kind === "local") this.starts++;
    await bounded(
      client.connect(transport, { timeout: spec.timeout, ...(signal ? { signal } : {}) }),
      spec.timeout,
      "connecting",
      signal,
    );
    this.protocol =
      client.getProtocolEra() === "modern" ? client.getNegotiatedProtocolVersion() : "2025";
  }

  private makeClient(protocol: ActiveSpec["protocol"]): Client {
    const { options } = this;
    const capabilities: Record<string, unknown> = {};
    if (options.elicitation !== false) capabilities.elicitation = { form: {}, url: {} };
    if (options.sampling !== undefined) capabilities.sampling = {};
    if (options.roots !== undefined) capabilities.roots = { listChanged: false };
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
        (request, ctx) =>
          onElicit(
            this,
            this.scrub.deep(request.params as Elicitation),
            ctx.mcpReq.signal,
          ) as never,
      );
    }
    const { sampling, roots } = options;
    if (sampling !== undefined) {
      client.setRequestHandler(
        "sampling/createMessage",
        async (request, ctx) =>
          (await sampling(this.scrub.deep(request.params as Record<string, unknown>), {
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

  async roots(): Promise<readonly McpRoot[]> {
    const { roots } = this.options;
    if (roots === undefined) return [];
    return typeof roots === "function" ? await roots() : roots;
  }

  private stdio(spec: Extract<McpServerSpec, { kind: "local" }>): StdioTransport {
    const transport = new StdioTransport({
      command: spec.command,
      args: spec.args,
      env: childEnv(this.options.env ?? process.env, spec.env, this.options.inheritEnv),
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stderr: this.options.stderr ?? "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    return transport;
  }

  private http(spec: Extract<McpServerSpec, { kind: "remote" }>): StreamableHTTPClientTransport {
    // The SDK follows a redirect only within the endpoint's origin, so these headers never
    // reach another origin (src/redirect.test.ts holds it to that).
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
    });
  }

  /** Disconnects; a local server is stopped with its whole process tree. Nothing starts after. */
  async close(): Promise<void> {
    this.closed = true;
    const { client, transport } = this;
    this.client = undefined;
    if (client !== undefined) await client.close().catch(() => {});
    // The client closes its transport only once connected; during the start it may not have.
    if (transport !== undefined) await transport.close().catch(() => {});
  }

  private tool(def: {
    name: string;
    description?: string;
    inputSchema?: unknown;
    title?: string;
  }): Tool {
    const name = mcpToolName(this.name, def.name);
    this.originals.set(name, def.name);
    const inputSchema = this.scrub.deep(
      isObject(def.inputSchema) ? def.inputSchema : { type: "object" },
    ) as JSONSchema;
    return {
      name,
      description: this.scrub.text(def.description ?? def.title ?? def.name),
      inputSchema,
      source: "mcp",
      // A declined question is the server's to hear (decline/cancel), not the loop's to answer.
      handlesRefusals: true,
      maxSuspensions: this.options.maxRounds ?? 8,
      execute: (args, ctx) => callTool(this, def.name, name, args ?? {}, ctx),
    };
  }
}
