import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUILTIN_NAMES } from "@toolnexus/builtins";
import { ok, type Tool, type ToolContext, ToolnexusError } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { SkillsError } from "@toolnexus/skills";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createToolkit,
  type McpLoader,
  type McpSource,
  type ToolClash,
  ToolkitError,
  type ToolkitOptions,
} from "./index.js";

const FIXTURE = fileURLToPath(new URL("../test-fixtures/conformance", import.meta.url));
const HELLO_DIR = join(FIXTURE, "hello-world");
const ALL_BUILTINS = [...BUILTIN_NAMES];

function tool(name: string, source = "custom", output = `${name}:${source}`): Tool {
  return {
    name,
    description: `${name} (${source})`,
    inputSchema: { type: "object", properties: {} },
    source,
    execute: async () => ok(output),
  };
}

/** A stand-in for what @toolnexus/mcp will provide. */
function fakeMcp(
  tools: Tool[],
  status: Record<string, string> = { files: "connected", broken: "failed" },
) {
  const source = {
    closed: 0,
    tools: vi.fn(async () => tools),
    status: () => status,
    close: vi.fn(async () => {
      source.closed++;
    }),
  };
  return source;
}

/** A toolkit that keeps its warnings instead of printing them. */
async function quiet(options: ToolkitOptions) {
  const warnings: string[] = [];
  const toolkit = await createToolkit({ onWarning: (m) => warnings.push(m), ...options });
  return { toolkit, warnings };
}

const names = (tools: readonly Tool[]) => tools.map((t) => t.name);

let temp: string;
beforeAll(async () => {
  temp = await realpath(await mkdtemp(join(tmpdir(), "tn-toolkit-")));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe("assembly order", () => {
  it("with no options: the ten built-ins, in the contract's order, each source builtin", async () => {
    const toolkit = await createToolkit();
    expect(names(toolkit.tools())).toEqual(ALL_BUILTINS);
    for (const t of toolkit.tools()) expect(t.source).toBe("builtin");
    expect(toolkit.clashes).toEqual([]);
    expect(toolkit.skillsPrompt()).toBe("");
    expect(toolkit.mcpStatus()).toEqual({});
    expect(toolkit.skills).toEqual([]);
  });

  it("MCP → skill → built-in → extraTools → http", async () => {
    const mcp = fakeMcp([tool("files_read_file", "mcp"), tool("files_list", "mcp")]);
    const toolkit = await createToolkit({
      mcp,
      skillsDir: FIXTURE,
      builtins: { tools: { bash: false, webfetch: false } },
      extraTools: [tool("add", "native"), tool("agent_helper", "agent")],
      http: [{ name: "weather", description: "Weather", url: "http://127.0.0.1:9/{city}" }],
    });
    expect(names(toolkit.tools())).toEqual([
      "files_read_file",
      "files_list",
      "skill",
      ...ALL_BUILTINS.filter((n) => n !== "bash" && n !== "webfetch"),
      "add",
      "agent_helper",
      "weather",
    ]);
    expect(toolkit.get("weather")?.source).toBe("http");
    expect(toolkit.get("skill")?.source).toBe("skill");
    expect(toolkit.clashes).toEqual([]);
  });

  it("tools() is a new array each call; the toolkit is not changed through it", async () => {
    const toolkit = await createToolkit({ builtins: false, extraTools: [tool("a")] });
    const list = toolkit.tools();
    list.pop();
    expect(names(toolkit.tools())).toEqual(["a"]);
    expect(Object.isFrozen(toolkit.clashes)).toBe(true);
  });
});

describe("precedence and clashes", () => {
  it("an extraTools entry shadows the built-in of its name: kept in the host's place, reported, not warned", async () => {
    const sandboxed = tool("bash", "native", "sandboxed");
    const seen: ToolClash[] = [];
    const { toolkit, warnings } = await quiet({ extraTools: [sandboxed] });
    expect(toolkit.get("bash")).toBe(sandboxed);
    expect(names(toolkit.tools())).toEqual([...ALL_BUILTINS.slice(1), "bash"]);
    expect((await toolkit.execute("bash", { command: "rm -rf /" })).output).toBe("sandboxed");
    expect(toolkit.clashes).toEqual([
      {
        name: "bash",
        kept: { kind: "extraTools", index: 0, source: "native" },
        dropped: { kind: "builtin", index: 0, source: "builtin" },
        rule: "shadowed-builtin",
        message:
          'tool "bash": extraTools[0] (source "native") replaces the built-in tool (a host tool shadows the built-in of the same name)',
      },
    ]);
    expect(warnings).toEqual([]);

    await createToolkit({ extraTools: [sandboxed], onClash: (c) => seen.push(c) });
    expect(seen).toEqual(toolkit.clashes);
  });

  it("an http tool shadows a built-in the same way", async () => {
    const toolkit = await createToolkit({
      http: [{ name: "webfetch", description: "Our proxy", url: "http://127.0.0.1:9/fetch" }],
    });
    expect(toolkit.get("webfetch")?.source).toBe("http");
    expect(toolkit.get("webfetch")?.description).toBe("Our proxy");
    expect(toolkit.clashes.map((c) => c.message)).toEqual([
      'tool "webfetch": http[0] replaces the built-in tool (a host tool shadows the built-in of the same name)',
    ]);
  });

  it("MCP beats a built-in and the skill tool; the dropped ones are warned about", async () => {
    const mcp = fakeMcp([tool("bash", "mcp"), tool("skill", "mcp")]);
    const { toolkit, warnings } = await quiet({ mcp, skillsDir: FIXTURE });
    expect(toolkit.get("bash")?.source).toBe("mcp");
    expect(toolkit.get("skill")?.source).toBe("mcp");
    expect(names(toolkit.tools()).slice(0, 3)).toEqual(["bash", "skill", "read"]);
    expect(warnings).toEqual([
      'tool "skill": kept the MCP tool at mcp.tools()[1], dropped the skill tool (first wins: MCP > skill > built-in > host tools)',
      'tool "bash": kept the MCP tool at mcp.tools()[0], dropped the built-in tool (first wins: MCP > skill > built-in > host tools)',
    ]);
    expect(toolkit.clashes.map((c) => c.rule)).toEqual(["first-wins", "first-wins"]);
  });

  it("the skill tool beats a host tool named skill; MCP beats a host tool", async () => {
    const mcp = fakeMcp([tool("files_read", "mcp")]);
    const clashes: ToolClash[] = [];
    const { toolkit, warnings } = await quiet({
      mcp,
      skillsDir: FIXTURE,
      builtins: false,
      extraTools: [tool("skill", "native"), tool("files_read", "native")],
      onClash: (c) => clashes.push(c),
    });
    expect(toolkit.get("skill")?.source).toBe("skill");
    expect(toolkit.get("files_read")?.source).toBe("mcp");
    expect(names(toolkit.tools())).toEqual(["files_read", "skill"]);
    expect(clashes.map((c) => c.message)).toEqual([
      'tool "skill": kept the skill tool, dropped extraTools[0] (source "native") (first wins: MCP > skill > built-in > host tools)',
      'tool "files_read": kept the MCP tool at mcp.tools()[0], dropped extraTools[1] (source "native") (first wins: MCP > skill > built-in > host tools)',
    ]);
    expect(warnings).toEqual([]); // onClash replaces the default warning
  });

  it("a first-wins clash goes to console.warn by default", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await createToolkit({ mcp: fakeMcp([tool("read", "mcp")]) });
      expect(warn.mock.calls).toEqual([
        [
          '[toolnexus] tool "read": kept the MCP tool at mcp.tools()[0], dropped the built-in tool (first wins: MCP > skill > built-in > host tools)',
        ],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it("two extraTools with one name are an error naming both", async () => {
    const error = await createToolkit({
      extraTools: [tool("add", "native"), tool("sub"), tool("add", "agent")],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolkitError);
    expect(error).toBeInstanceOf(ToolnexusError);
    expect(error).toMatchObject({
      name: "ToolkitError",
      code: "duplicate_tool",
      message:
        'createToolkit: two host tools are named "add": extraTools[0] (source "native") and extraTools[2] (source "agent"); rename one (extraTools and http tool names must be unique)',
    });
  });

  it("an extra tool and an http tool with one name are an error; http names are compared after sanitize", async () => {
    await expect(
      createToolkit({
        extraTools: [tool("weather", "native")],
        http: [{ name: "weather", description: "", url: "http://127.0.0.1:9/" }],
      }),
    ).rejects.toThrow(
      'two host tools are named "weather": extraTools[0] (source "native") and http[0]; rename one',
    );
    await expect(
      createToolkit({
        http: [
          { name: "get_user", description: "", url: "http://127.0.0.1:9/a" },
          { name: "get.user", description: "", url: "http://127.0.0.1:9/b" },
        ],
      }),
    ).rejects.toThrow(
      'two host tools are named "get_user": http[0] and http[1] (declared as "get.user"); rename one',
    );
  });

  it("a duplicate host name is found before anything is loaded", async () => {
    const mcp = fakeMcp([]);
    const load = vi.fn<McpLoader>(() => mcp);
    await expect(
      createToolkit({ mcpConfig: {}, mcp: load, extraTools: [tool("a"), tool("a")] }),
    ).rejects.toThrow(ToolkitError);
    expect(load).not.toHaveBeenCalled();
  });

  it("disableTools drops names from every source; an unknown name is warned about", async () => {
    const { toolkit, warnings } = await quiet({
      mcp: fakeMcp([tool("files_rm", "mcp")]),
      extraTools: [tool("read", "native"), tool("keep")],
      disableTools: ["bash", "read", "files_rm", "nope"],
    });
    expect(names(toolkit.tools())).toEqual([
      ...ALL_BUILTINS.filter((n) => n !== "bash" && n !== "read"),
      "keep",
    ]);
    expect(toolkit.clashes).toEqual([]);
    expect(warnings).toEqual(['disableTools name "nope" matched no tool']);
  });
});

describe("the builtins toggle", () => {
  const extra = tool("myextra", "native");

  it.each([
    ["false", false],
    ["{ disabled: true }", { disabled: true }],
    ["{ enabled: false }", { enabled: false }],
    ["{ enabled: true, disabled: true } (disabled wins)", { enabled: true, disabled: true }],
    [
      "{ disabled: true, tools: { read: true } } (source off wins over the map)",
      { disabled: true, tools: { read: true } },
    ],
  ] as const)("%s turns the whole source off, nothing else", async (_label, builtins) => {
    const toolkit = await createToolkit({ skillsDir: FIXTURE, extraTools: [extra], builtins });
    expect(names(toolkit.tools())).toEqual(["skill", "myextra"]);
    for (const name of ALL_BUILTINS) expect(toolkit.get(name)).toBeUndefined();
    expect(toolkit.toOpenAI().map((t) => t.function.name)).toEqual(["skill", "myextra"]);
  });

  it.each([
    ["absent", undefined],
    ["true", true],
    ["{}", {}],
    ["{ enabled: true }", { enabled: true }],
    ["{ disabled: false }", { disabled: false }],
    ["{ tools: {} }", { tools: {} }],
    ["{ tools: { bash: true } }", { tools: { bash: true } }],
  ] as const)("%s keeps all ten", async (_label, builtins) => {
    const toolkit = await createToolkit(builtins === undefined ? {} : { builtins });
    expect(names(toolkit.tools())).toEqual(ALL_BUILTINS);
  });

  it("{ tools: { bash: false, write: false } } drops those two; unknown names are ignored", async () => {
    const { toolkit, warnings } = await quiet({
      builtins: { tools: { bash: false, write: false, nope: false, other: true } },
    });
    expect(names(toolkit.tools())).toEqual(
      ALL_BUILTINS.filter((n) => n !== "bash" && n !== "write"),
    );
    expect(warnings).toEqual([]);
  });

  it("a parsed mcpConfig's builtins key is the toggle when the option is absent", async () => {
    const config = { mcpServers: {}, builtins: { tools: { bash: false } } };
    const load = vi.fn<McpLoader>(() => fakeMcp([]));
    const fromConfig = await createToolkit({ mcpConfig: config, mcp: load });
    expect(fromConfig.get("bash")).toBeUndefined();
    expect(fromConfig.get("read")).toBeDefined();
    const off = await createToolkit({ mcpConfig: { builtins: false }, mcp: load });
    expect(off.tools()).toEqual([]);
    const option = await createToolkit({ mcpConfig: config, mcp: load, builtins: true });
    expect(names(option.tools())).toEqual(ALL_BUILTINS);
  });

  it("builtinOptions configure the tools (root, approvals); the builtins object's own fields win", async () => {
    const root = join(temp, "root");
    const other = join(temp, "other");
    await mkdir(root, { recursive: true });
    await mkdir(other, { recursive: true });
    await writeFile(join(root, "note.txt"), "in root\n");
    await writeFile(join(other, "note.txt"), "in other\n");

    const plain = await createToolkit({ builtinOptions: { root } });
    expect((await plain.execute("read", { path: "note.txt" })).output).toBe("in root\n");
    expect(plain.get("bash")?.needsApproval).toBe(true); // approvals stay on by default
    const refused = await plain.execute("read", { path: "../other/note.txt" });
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain("outside the root");

    const merged = await createToolkit({
      builtins: { root: other, tools: { bash: false } },
      builtinOptions: { root, needsApproval: false },
    });
    expect((await merged.execute("read", { path: "note.txt" })).output).toBe("in other\n");
    expect(merged.get("write")?.needsApproval).toBeUndefined();
    expect(merged.get("bash")).toBeUndefined();

    const off = await createToolkit({ builtins: false, builtinOptions: { root } });
    expect(off.tools()).toEqual([]);
  });

  it("a malformed builtins setting is an error", async () => {
    await expect(createToolkit({ builtins: "yes" as never })).rejects.toMatchObject({
      code: "invalid_option",
    });
    await expect(
      createToolkit({ mcpConfig: { builtins: "no" }, mcp: () => fakeMcp([]) }),
    ).rejects.toThrow("the `builtins` key of mcpConfig must be a boolean or an object");
  });
});

describe("execute", () => {
  it("routes by name, passing args and ctx through", async () => {
    const add = nativeTool({
      name: "add",
      description: "Add",
      input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      run: ({ a, b }) => Number(a) + Number(b),
    });
    let seen: ToolContext | undefined;
    const spy: Tool = {
      ...tool("spy"),
      execute: async (args, ctx) => {
        seen = ctx;
        return ok(JSON.stringify(args));
      },
    };
    const toolkit = await createToolkit({ builtins: false, extraTools: [add, spy] });
    expect(await toolkit.execute("add", { a: 2, b: 3 })).toEqual({ output: "5", isError: false });
    const ctx: ToolContext = { sessionId: "s1", callId: "c1", timeout: 1000 };
    expect(await toolkit.execute("spy", { x: 1 }, ctx)).toEqual({
      output: '{"x":1}',
      isError: false,
    });
    expect(seen).toBe(ctx);
    expect((await toolkit.execute("spy")).output).toBe("{}");
  });

  it("an unknown name is the contract's error result", async () => {
    const toolkit = await createToolkit({ builtins: false, extraTools: [tool("a")] });
    expect(await toolkit.execute("nope", {})).toEqual({
      output: "Unknown tool: nope",
      isError: true,
    });
    expect(toolkit.get("nope")).toBeUndefined();
  });

  it("the unknown-name error quotes a long name by its start and length only", async () => {
    const toolkit = await createToolkit({ builtins: false, extraTools: [tool("a")] });
    expect(await toolkit.execute("x".repeat(5 * 1024 * 1024), {})).toEqual({
      output: `Unknown tool: "${"x".repeat(40)}"… (5242880 characters)`,
      isError: true,
    });
    const eighty = "y".repeat(80);
    expect((await toolkit.execute(eighty, {})).output).toBe(`Unknown tool: ${eighty}`);
    // JSON-quoted, and never half a surrogate pair.
    const hostile = `${"z".repeat(38)}"😀${"z".repeat(80)}`;
    expect((await toolkit.execute(hostile, {})).output).toBe(
      `Unknown tool: ${JSON.stringify(`${"z".repeat(38)}"`)}… (121 characters)`,
    );
  });

  it("a disabled or dropped tool is unknown too", async () => {
    const toolkit = await createToolkit({ builtins: { tools: { bash: false } } });
    expect(await toolkit.execute("bash", { command: "echo hi" })).toEqual({
      output: "Unknown tool: bash",
      isError: true,
    });
  });

  it("a tool that throws becomes an error result", async () => {
    const bad: Tool = {
      ...tool("bad"),
      execute: async () => {
        throw new Error("boom");
      },
    };
    const toolkit = await createToolkit({ builtins: false, extraTools: [bad] });
    expect(await toolkit.execute("bad", {})).toEqual({ output: "boom", isError: true });
  });

  it("routes to MCP, skill, built-in and http tools alike", async () => {
    const mcp = fakeMcp([tool("files_list", "mcp", "a.txt\nb.txt")]);
    const toolkit = await createToolkit({
      mcp,
      skillsDir: FIXTURE,
      builtins: { tools: { todowrite: true } },
      http: [{ name: "down", description: "", url: "http://127.0.0.1:9/x", timeout: 2000 }],
    });
    expect((await toolkit.execute("files_list", {})).output).toBe("a.txt\nb.txt");
    expect((await toolkit.execute("skill", { name: "hello-world" })).isError).toBe(false);
    expect(
      (await toolkit.execute("todowrite", { todos: [{ id: "1", text: "t", completed: true }] }))
        .output,
    ).toBe("[x] t");
    const down = await toolkit.execute("down", {});
    expect(down.isError).toBe(true);
  });
});

describe("skills", () => {
  it("skillsPrompt is the contract's catalog for the fixture, byte for byte", async () => {
    const toolkit = await createToolkit({ skillsDir: FIXTURE, builtins: false });
    expect(toolkit.skillsPrompt()).toBe(
      "Skills provide specialized instructions and workflows for specific tasks.\n" +
        "Use the skill tool to load a skill when a task matches its description.\n" +
        "\n" +
        "## Available Skills\n" +
        "- **hello-world**: A tiny example skill. Use when you want to see how skill loading (progressive disclosure) works end to end.",
    );
    expect(toolkit.skills.map((s) => s.name)).toEqual(["hello-world"]);
  });

  it("the skill tool's output through execute is the contract's block", async () => {
    const toolkit = await createToolkit({ skillsDir: [FIXTURE], builtins: false });
    const result = await toolkit.execute("skill", { name: "hello-world" });
    const dir = await realpath(HELLO_DIR);
    const base = dirname(join(dir, "SKILL.md"));
    expect(result.output).toBe(
      [
        '<skill_content name="hello-world">',
        "# Skill: hello-world",
        "",
        "# Hello World Skill",
        "",
        "This is the skill body. When the model calls the `skill` tool with",
        '`{ "name": "hello-world" }`, everything below the frontmatter is injected into the',
        "conversation, along with a sampled list of files in this directory.",
        "",
        "## Steps",
        "",
        "1. Read `scripts/greet.sh` in this skill's base directory.",
        "2. Run it with the user's name.",
        "3. Report the greeting back.",
        "",
        "Relative paths (like `scripts/greet.sh`) are resolved against the base directory",
        "printed in the tool output.",
        "",
        `Base directory for this skill: ${pathToFileURL(base).href}`,
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        `<file>${join(base, "scripts", "greet.sh")}</file>`,
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    );
    expect(await toolkit.execute("skill", { name: "nope" })).toEqual({
      output: 'Skill "nope" not found. Available skills: hello-world',
      isError: true,
    });
  });

  it("a skills folder without described skills: the skill tool, and the no-skills prompt", async () => {
    const empty = join(temp, "no-skills");
    await mkdir(empty, { recursive: true });
    const toolkit = await createToolkit({ skillsDir: empty, builtins: false });
    expect(names(toolkit.tools())).toEqual(["skill"]);
    expect(toolkit.skillsPrompt()).toBe("No skills are currently available.");
  });

  it("skillOptions: data skills give a skill tool without folders; filter and warnings pass through", async () => {
    const { toolkit, warnings } = await quiet({
      builtins: false,
      skillOptions: {
        skills: [
          { name: "alpha", description: "First", content: "Do A." },
          { name: "beta", description: "Second", content: "Do B." },
        ],
        filter: { beta: false, ghost: false },
      },
    });
    expect(names(toolkit.tools())).toEqual(["skill"]);
    expect(toolkit.skillsPrompt()).toContain("## Available Skills\n- **alpha**: First");
    expect(toolkit.skillsPrompt()).not.toContain("beta");
    expect(warnings).toEqual(['skill filter name "ghost" matched no skill']);
  });

  it("no catalog when the skill tool is not exposed (disabled, or an MCP skill tool won)", async () => {
    const disabled = await createToolkit({ skillsDir: FIXTURE, disableTools: ["skill"] });
    expect(disabled.get("skill")).toBeUndefined();
    expect(disabled.skillsPrompt()).toBe("");
    const { toolkit } = await quiet({ skillsDir: FIXTURE, mcp: fakeMcp([tool("skill", "mcp")]) });
    expect(toolkit.get("skill")?.source).toBe("mcp");
    expect(toolkit.skillsPrompt()).toBe("");
    expect(toolkit.skills.map((s) => s.name)).toEqual(["hello-world"]);
  });

  it("a missing skills folder is a warning by default, a SkillsError with strict", async () => {
    const missing = join(temp, "missing");
    const { toolkit, warnings } = await quiet({ skillsDir: missing, builtins: false });
    expect(names(toolkit.tools())).toEqual(["skill"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(missing);
    await expect(
      createToolkit({ skillsDir: missing, skillOptions: { strict: true } }),
    ).rejects.toBeInstanceOf(SkillsError);
  });
});

describe("MCP integration", () => {
  it("mcpConfig without an MCP loader is a clear error pointing at @toolnexus/mcp", async () => {
    for (const mcpConfig of ["./mcp.json", { mcpServers: {} }]) {
      const error = await createToolkit({ mcpConfig }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolkitError);
      expect(error).toMatchObject({ code: "mcp_unavailable" });
      expect((error as Error).message).toBe(
        "createToolkit: mcpConfig needs the MCP integration, which is a separate package: install @toolnexus/mcp and pass its loader, e.g. createToolkit({ mcpConfig, mcp: loadMcp }) with loadMcp from @toolnexus/mcp",
      );
    }
  });

  it("a loader is called once with mcpConfig and the signal; its tools come first", async () => {
    const source = fakeMcp([tool("gh_search", "mcp")], { gh: "connected", db: "disabled" });
    const load = vi.fn<McpLoader>(async () => source);
    const controller = new AbortController();
    const toolkit = await createToolkit({
      mcpConfig: "./mcp.json",
      mcp: load,
      signal: controller.signal,
      builtins: false,
      extraTools: [tool("x")],
    });
    expect(load).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalledWith("./mcp.json", { signal: controller.signal });
    expect(names(toolkit.tools())).toEqual(["gh_search", "x"]);
    expect(toolkit.mcpStatus()).toEqual({ gh: "connected", db: "disabled" });
    expect(source.tools).toHaveBeenCalledTimes(1);
  });

  it("an already loaded source is used as is; tools() may be synchronous", async () => {
    const source: McpSource = {
      tools: () => [tool("fs_read", "mcp")],
      status: () => ({ fs: "connected" }),
      close: () => {},
    };
    const toolkit = await createToolkit({ mcp: source, builtins: false });
    expect(names(toolkit.tools())).toEqual(["fs_read"]);
    expect(toolkit.mcpStatus()).toEqual({ fs: "connected" });
    await toolkit.close();
  });

  it("mcpStatus is read live and returned as a copy", async () => {
    const status: Record<string, string> = { a: "connected" };
    const toolkit = await createToolkit({ mcp: fakeMcp([], status), builtins: false });
    const first = toolkit.mcpStatus();
    status.a = "failed";
    expect(first).toEqual({ a: "connected" });
    expect(toolkit.mcpStatus()).toEqual({ a: "failed" });
  });

  it("close() closes the MCP source once", async () => {
    const source = fakeMcp([]);
    const toolkit = await createToolkit({ mcp: source });
    await Promise.all([toolkit.close(), toolkit.close()]);
    await toolkit.close();
    expect(source.closed).toBe(1);
    await (await createToolkit()).close(); // nothing to close
  });

  it("rejects an mcp of the wrong shape, a loader without mcpConfig, a source with mcpConfig", async () => {
    await expect(createToolkit({ mcp: {} as never })).rejects.toThrow(
      "mcp must be an MCP loader function (loadMcp from @toolnexus/mcp) or a loaded MCP source with tools(), status() and close()",
    );
    await expect(createToolkit({ mcp: () => fakeMcp([]) })).rejects.toThrow(
      "mcp is a loader function but there is no mcpConfig to load",
    );
    await expect(createToolkit({ mcp: fakeMcp([]), mcpConfig: "./mcp.json" })).rejects.toThrow(
      "mcp is an already loaded MCP source, so mcpConfig would not be loaded",
    );
    await expect(
      createToolkit({ mcpConfig: {}, mcp: () => ({ tools: () => [] }) as never }),
    ).rejects.toThrow("the mcp loader did not return an MCP source");
  });

  it("a failed build closes the source it loaded, but not one the host passed in", async () => {
    const loaded = fakeMcp([tool("a_b", "mcp")]);
    await expect(
      createToolkit({
        mcpConfig: {},
        mcp: () => loaded,
        skillsDir: join(temp, "missing-too"),
        skillOptions: { strict: true },
      }),
    ).rejects.toBeInstanceOf(SkillsError);
    expect(loaded.closed).toBe(1);

    const broken = fakeMcp([]);
    broken.tools.mockRejectedValueOnce(new Error("list failed"));
    await expect(createToolkit({ mcpConfig: {}, mcp: () => broken })).rejects.toThrow(
      "list failed",
    );
    expect(broken.closed).toBe(1);

    const hosts = fakeMcp([]);
    hosts.tools.mockRejectedValueOnce(new Error("list failed"));
    await expect(createToolkit({ mcp: hosts })).rejects.toThrow("list failed");
    expect(hosts.closed).toBe(0);

    const notTools = fakeMcp([{ name: "x" } as Tool]);
    await expect(createToolkit({ mcp: notTools })).rejects.toThrow("mcp.tools()[0] is not a Tool");
  });

  it("an aborted signal stops the build", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const load = vi.fn<McpLoader>(() => fakeMcp([]));
    await expect(
      createToolkit({ mcpConfig: {}, mcp: load, signal: controller.signal }),
    ).rejects.toThrow("stop");
    expect(load).not.toHaveBeenCalled();
  });
});

describe("option checks", () => {
  it("an extraTools entry that is not a Tool, and a bad http declaration, are named", async () => {
    await expect(createToolkit({ extraTools: [tool("a"), { name: "b" } as Tool] })).rejects.toThrow(
      "createToolkit: extraTools[1] is not a Tool",
    );
    await expect(
      createToolkit({ http: [{ name: "x", description: "", url: "ftp://nope" }] }),
    ).rejects.toThrow("createToolkit: http[0] is not a valid HTTP tool:");
    await expect(createToolkit(null as never)).rejects.toThrow("pass an options object");
  });
});
