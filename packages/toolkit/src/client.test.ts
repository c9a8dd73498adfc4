// The toolkit's list through the real loop: tools from every source, one createClient.
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { ok, type Request, type Tool } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit } from "./index.js";

const FIXTURE = fileURLToPath(new URL("../test-fixtures/conformance", import.meta.url));

let root: string;
let server: Server;
let base: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "tn-toolkit-client-")));
  await writeFile(join(root, "notes.txt"), "Ada likes tea.\n");
  server = createServer((req, res) => {
    const city = decodeURIComponent((req.url ?? "").slice("/weather/".length));
    if (city === "Atlantis") res.writeHead(404).end("no such city");
    else res.writeHead(200, { "content-type": "text/plain" }).end(`${city}: sunny`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

const mcpTool: Tool = {
  name: "notes_count",
  description: "Count notes",
  inputSchema: { type: "object", properties: {} },
  source: "mcp",
  execute: async () => ok("3 notes"),
};

describe("createClient({ tools: toolkit.tools() })", () => {
  it("runs tools of every source, the built-in approval gate included", async () => {
    const add = nativeTool({
      name: "add",
      description: "Add two numbers",
      input: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      run: ({ a, b }) => Number(a) + Number(b),
    });
    const closed: string[] = [];
    const toolkit = await createToolkit({
      mcp: {
        tools: () => [mcpTool],
        status: () => ({ notes: "connected" }),
        close: async () => {
          closed.push("notes");
        },
      },
      skillsDir: FIXTURE,
      builtins: { tools: { webfetch: false, question: false } },
      builtinOptions: { root },
      extraTools: [add],
      http: [{ name: "weather", description: "Weather in a city", url: `${base}/weather/{city}` }],
    });

    const model = scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "notes_count", arguments: {} },
          { id: "c2", name: "skill", arguments: { name: "hello-world" } },
          { id: "c3", name: "read", arguments: { path: "notes.txt" } },
          { id: "c4", name: "add", arguments: { a: 2, b: 3 } },
          { id: "c5", name: "weather", arguments: { city: "Paris" } },
          { id: "c6", name: "weather", arguments: { city: "Atlantis" } },
        ],
      },
      { toolCalls: [{ id: "c7", name: "write", arguments: { path: "out.txt", content: "hi" } }] },
      { toolCalls: [{ id: "c8", name: "webfetch", arguments: { url: "http://example.com" } }] },
      { content: "All done." },
    ]);
    const asked: Request[] = [];
    const client = createClient({
      model,
      tools: toolkit.tools(),
      systemPrompt: `You are helpful.\n\n${toolkit.skillsPrompt()}`,
      waitFor: (request) => {
        asked.push(request);
        return { id: request.id, ok: true };
      },
    });
    const result = await client.run("Do it all.");
    expect(result.status).toBe("done");
    expect(result.text).toBe("All done.");

    const [first] = model.requests;
    expect(first?.tools.map((tool) => tool.name)).toEqual(toolkit.tools().map((tool) => tool.name));
    expect(first?.tools.map((tool) => tool.name)).toEqual([
      "notes_count",
      "skill",
      "bash",
      "read",
      "write",
      "edit",
      "grep",
      "glob",
      "apply_patch",
      "todowrite",
      "add",
      "weather",
    ]);
    expect(first?.messages[0]).toEqual({
      role: "system",
      content: `You are helpful.\n\n${toolkit.skillsPrompt()}`,
    });

    // Calls of one turn run concurrently and are recorded as they finish: order by call id.
    const calls = [...result.toolCalls].sort((a, b) => a.id.localeCompare(b.id));
    const outcome = calls.map((call) => [
      call.name,
      call.result.isError,
      call.result.output.split("\n")[0],
    ]);
    expect(outcome).toEqual([
      ["notes_count", false, "3 notes"],
      ["skill", false, '<skill_content name="hello-world">'],
      ["read", false, "Ada likes tea."],
      ["add", false, "5"],
      ["weather", false, "Paris: sunny"],
      ["weather", true, "HTTP 404: no such city"],
      ["write", false, "Wrote 2 bytes to out.txt"],
      ["webfetch", true, "unknown tool: webfetch"],
    ]);
    // write kept its approval gate through the toolkit; the file landed in the root.
    expect(asked.map((request) => request.kind)).toEqual(["approval"]);
    expect(await readFile(join(root, "out.txt"), "utf8")).toBe("hi");

    await toolkit.close();
    expect(closed).toEqual(["notes"]);
  });

  it("the toolkit's own execute agrees with the loop on a known tool", async () => {
    const toolkit = await createToolkit({ skillsDir: FIXTURE, builtins: false });
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", name: "skill", arguments: { name: "hello-world" } }] },
      { content: "ok" },
    ]);
    const client = createClient({ model, tools: toolkit.tools() });
    const result = await client.run("load");
    const direct = await toolkit.execute("skill", { name: "hello-world" });
    expect(result.toolCalls[0]?.result).toEqual(direct);
  });
});
