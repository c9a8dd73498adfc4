// Local servers as real child processes: started once, given only the allowlisted environment,
// and stopped with everything they started, by close() and by an abort during the start.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INHERITED_ENV, loadMcp } from "./index.js";
import {
  DISCOVER_EXITS,
  EVERYTHING,
  isRunning,
  pidsIn,
  TREE_SERVER,
  until,
} from "./test-support.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-mcp-stdio-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (name: string) => join(dir, `${name}-${++files}.log`);
const tree = (env: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [TREE_SERVER],
  env,
  ...extra,
});

describe("a stdio server is started once", () => {
  it.each(["auto", "2025", "2026-07-28"] as const)(
    "protocol %s: one process, whose start-up side effect happens once",
    async (protocol) => {
      const starts = file("starts");
      const mcp = await loadMcp({ mcpServers: { t: tree({ START_LOG: starts }, { protocol }) } });
      try {
        expect(mcp.status()).toEqual({ t: "connected" });
        const echo = mcp.tools().find((tool) => tool.name === "t_echo")!;
        expect((await echo.execute({ text: "hi" })).output).toBe("echo hi");
        expect(pidsIn(starts)).toHaveLength(1);
      } finally {
        await mcp.close();
      }
      expect(pidsIn(starts)).toHaveLength(1);
      expect(isRunning(pidsIn(starts)[0]!)).toBe(false);
    },
  );

  it("a server that exits on the server/discover probe is started again with the 2025 handshake (after the first is gone)", async () => {
    const starts = file("starts");
    const mcp = await loadMcp({
      mcpServers: {
        d: { command: process.execPath, args: [DISCOVER_EXITS], env: { START_LOG: starts } },
      },
    });
    try {
      expect(mcp.servers()[0]).toMatchObject({ status: "connected", protocol: "2025" });
      const [first, second] = pidsIn(starts);
      expect(pidsIn(starts)).toHaveLength(2);
      expect(isRunning(first!)).toBe(false);
      expect(isRunning(second!)).toBe(true);
      const echo = mcp.tools().find((tool) => tool.name === "d_echo")!;
      expect((await echo.execute({ text: "x" })).output).toBe("echo x");
    } finally {
      await mcp.close();
    }
  });
});

describe("close() stops the whole process tree", () => {
  it("the server, a child in its process group and a child in a session of its own", async () => {
    const starts = file("starts");
    const children = file("children");
    const mcp = await loadMcp({
      mcpServers: {
        t: tree({ START_LOG: starts, SPAWN_CHILDREN: "1", CHILD_LOG: children }),
      },
    });
    expect(mcp.status()).toEqual({ t: "connected" });
    await until(() => pidsIn(children).length === 2, "the server's two children");
    const pids = [...pidsIn(starts), ...pidsIn(children)];
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(isRunning(pid)).toBe(true);
    await mcp.close();
    for (const pid of pids)
      expect({ pid, running: isRunning(pid) }).toEqual({ pid, running: false });
  }, 60_000);

  it("server-everything, closed while a call is in flight, leaves no process", async () => {
    const starts = file("starts");
    // The shell writes its pid, then becomes the server (exec): that pid is the server's.
    const mcp = await loadMcp({
      mcpServers: {
        ev: {
          command: "sh",
          args: ["-c", `echo $$ >> "${starts}"; exec "${process.execPath}" "${EVERYTHING}" stdio`],
        },
      },
    });
    const [pid] = pidsIn(starts);
    expect(pidsIn(starts)).toHaveLength(1);
    expect(isRunning(pid!)).toBe(true);
    const long = mcp.tools().find((tool) => tool.name === "ev_trigger-long-running-operation")!;
    const inFlight = long.execute({ duration: 30, steps: 30 });
    await mcp.close();
    expect(isRunning(pid!)).toBe(false);
    expect((await inFlight).isError).toBe(true);
  }, 60_000);
});

describe("an abort during the start", () => {
  it("rejects, leaves no process of a stuck server, and starts none later", async () => {
    const starts = file("starts");
    const children = file("children");
    const controller = new AbortController();
    const loading = loadMcp(
      {
        mcpServers: {
          stuck: tree(
            { START_LOG: starts, STUCK: "1", SPAWN_CHILDREN: "1", CHILD_LOG: children },
            { timeout: 3_000 },
          ),
        },
      },
      { signal: controller.signal },
    );
    await until(() => pidsIn(children).length === 2, "the stuck server's children");
    controller.abort(new Error("user gave up"));
    await expect(loading).rejects.toThrow("user gave up");
    const pids = [...pidsIn(starts), ...pidsIn(children)];
    expect(pids).toHaveLength(3);
    for (const pid of pids)
      expect({ pid, running: isRunning(pid) }).toEqual({ pid, running: false });
    // Longer than the server's connect timeout: the SDK's sibling probe used to start the real
    // server then. Nothing may start.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(pidsIn(starts)).toHaveLength(1);
  }, 60_000);
});

describe("a local server's environment", () => {
  const host = { ...process.env, HOST_API_KEY: "sk-host-secret-123", EXTRA_SETTING: "on" };
  const envOf = async (options: Parameters<typeof loadMcp>[1]) => {
    const mcp = await loadMcp(
      { mcpServers: { t: tree({ OWN_SETTING: "mine" }) } },
      { env: host, ...options },
    );
    try {
      const tool = mcp.tools().find((t) => t.name === "t_env")!;
      return JSON.parse((await tool.execute({})).output) as Record<string, string>;
    } finally {
      await mcp.close();
    }
  };

  it("holds only the allowlisted host variables and its own env by default", async () => {
    const env = await envOf({});
    const allowed = new Set([...INHERITED_ENV, "OWN_SETTING"]);
    expect(Object.keys(env).filter((key) => !allowed.has(key))).toEqual([]);
    expect(env.OWN_SETTING).toBe("mine");
    expect(env.PATH).toBe(process.env.PATH);
    expect(JSON.stringify(env)).not.toContain("sk-host-secret-123");
  });

  it("inheritEnv adds the named variables, or (true) the whole environment", async () => {
    const named = await envOf({ inheritEnv: ["EXTRA_SETTING"] });
    expect(named.EXTRA_SETTING).toBe("on");
    expect(named.HOST_API_KEY).toBeUndefined();
    const all = await envOf({ inheritEnv: true });
    expect(all.HOST_API_KEY).toBe("sk-host-secret-123");
    expect(all.OWN_SETTING).toBe("mine");
  });
});
