// The demo's MCP scene, offline: the demo starts a local MCP server (mcp-server.ts, over stdio),
// its tool joins the loop through @toolnexus/mcp, and the server's question to the user (an
// elicitation) is asked like any other suspension. Exported for the CLI to wire in.
import { fileURLToPath } from "node:url";
import { createClient, inProcessModel, type RunEvent, type WaitFor } from "@toolnexus/client";
import type { Request } from "@toolnexus/core";
import { loadMcp } from "@toolnexus/mcp";
import type { Style } from "./printer.js";
import { printable } from "./terminal-text.js";

/** What the scene needs from the CLI: where to write, how to colour, and who answers. */
export interface McpSceneOptions {
  write: (line: string) => void;
  style: Style;
  /** Asks the human (the CLI's terminal or flags). Default: takes the form's defaults. */
  waitFor?: WaitFor;
  release?: string;
}

/** The form's default values: what an unattended run answers. */
function defaults(request: Request) {
  const schema = request.data?.schema as
    | { properties?: Record<string, { default?: unknown }> }
    | undefined;
  const data: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(schema?.properties ?? {}))
    if (p.default !== undefined) data[key] = p.default;
  return { id: request.id, ok: true, data };
}

/**
 * Runs the scene: start the local server, list its tool, let a scripted model call it, ask the
 * human the server's question, print the outcome. Resolves with the model's final text.
 */
export async function runMcpScene(options: McpSceneOptions): Promise<string> {
  const { write, style } = options;
  const release = options.release ?? "2.4.1";
  const server = fileURLToPath(new URL("./mcp-server.ts", import.meta.url));
  const waitFor: WaitFor = options.waitFor ?? ((request) => defaults(request));
  write(style.bold("MCP: a local server's tool, and its question to you"));
  const mcp = await loadMcp(
    { mcpServers: { calendar: { command: process.execPath, args: ["--import", "tsx", server] } } },
    {
      waitFor: (request, info) => {
        write(
          `  ${style.yellow("?")} ${printable(request.prompt)} ${style.dim(`(asked by MCP server ${printable(String(request.data?.server))})`)}`,
        );
        return waitFor(request, info);
      },
    },
  );
  try {
    const [info] = mcp.servers();
    write(
      `  server ${style.cyan(printable(info?.name ?? "?"))}: ${info?.status} over ${info?.transport}, tools ${printable(info?.tools.join(", ") ?? "")}`,
    );
    if (info?.status !== "connected")
      return `the MCP server failed: ${printable(info?.reason ?? "?")}`;
    const client = createClient({
      model: inProcessModel({
        id: "scripted:mcp-scene",
        generate: ({ messages }) =>
          messages.some((m) => m.role === "tool")
            ? { content: `Done: ${messages.filter((m) => m.role === "tool").at(-1)?.content}` }
            : {
                toolCalls: [
                  { id: "book", name: "calendar_book_release_window", arguments: { release } },
                ],
              },
      }),
      tools: mcp.tools(),
      onEvent: (event: RunEvent) => {
        if (event.type === "tool_call")
          write(
            `  ${style.magenta("→")} ${printable(event.call.name)}(${printable(JSON.stringify(event.call.args))})`,
          );
        if (event.type === "progress")
          write(
            `  ${style.dim(`… ${printable(event.message ?? "")} ${event.progress}/${event.total ?? "?"}`)}`,
          );
        if (event.type === "tool_result") {
          const mark = event.isError ? style.red("✗") : style.green("✓");
          write(`  ${mark} ${printable(event.record.result.output)}`);
        }
      },
    });
    const result = await client.run(`Book a deploy window for ${release}.`);
    write(`  ${style.bold(printable(result.text))}`);
    return result.text;
  } finally {
    await mcp.close();
  }
}
