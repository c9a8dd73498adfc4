// Pinning against a real MCP server (stdio, the official server package) whose tools change
// between connects, and while connected (notifications/tools/list_changed).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadMcp } from "./load.js";
import type { McpServerFingerprint } from "./pinning.js";
import { McpToolsChangedError } from "./pinning.js";
import type { McpPinOptions } from "./pinning-policy.js";
import { until } from "./test-support.js";
import type { McpToolset } from "./types.js";

const PIN_SERVER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "pin-server.mjs");

const open: McpToolset[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolset) => toolset.close()));
});

async function load(
  variant: string,
  pin: McpPinOptions,
  protocol: "2025" | "2026-07-28" = "2025",
): Promise<McpToolset> {
  const toolset = await loadMcp(
    {
      mcpServers: {
        files: {
          command: process.execPath,
          args: [PIN_SERVER],
          env: { PIN_VARIANT: variant },
          protocol,
        },
      },
    },
    { pin },
  );
  open.push(toolset);
  return toolset;
}

/** The fingerprint of the server's first variant, as a host stores it on first use. */
async function approved(): Promise<McpServerFingerprint> {
  let stored: McpServerFingerprint | undefined;
  const toolset = await load("a", {
    onFingerprint: (_server, f) => {
      stored = f;
    },
  });
  expect(toolset.servers()[0]?.status).toBe("connected");
  expect(toolset.servers()[0]?.fingerprint).toEqual(stored);
  await toolset.close();
  return stored!;
}

describe("pinning a real server's tools", () => {
  it("refuses a server whose tool description was swapped since approval", async () => {
    const fingerprints = { files: await approved() };
    const same = await load("a", { fingerprints });
    expect(same.servers()[0]?.status).toBe("connected");
    const swapped = await load("desc", { fingerprints });
    const [info] = swapped.servers();
    expect(info?.status).toBe("failed");
    expect(info?.reason).toContain('"read" changed (description)');
    expect(swapped.tools()).toEqual([]);
  });

  it("lets the host decide on a changed schema, and warns of an added tool", async () => {
    const fingerprints = { files: await approved() };
    const decided: McpToolsChangedError[] = [];
    const stored: McpServerFingerprint[] = [];
    const schema = await load("schema", {
      fingerprints,
      onChange: (change) => {
        decided.push(change);
        return "accept";
      },
      onFingerprint: (_server, f) => void stored.push(f),
    });
    expect(schema.servers()[0]?.status).toBe("connected");
    expect(decided[0]?.changes).toEqual([
      { tool: "read", kind: "changed", fields: ["inputSchema"] },
    ]);
    expect(stored).toEqual([decided[0]!.current]);

    const warned: string[] = [];
    const added = await load("added", {
      fingerprints,
      onChange: "warn",
      onWarn: (change) => void warned.push(change.message),
    });
    expect(added.tools().map((t) => t.name)).toContain("files_delete");
    expect(warned).toEqual([
      'the tools of the MCP server "files" differ from the approved ones: "delete" added',
    ]);
  });

  // 2025: the notification on the session; 2026: the SDK's subscriptions/listen stream.
  it.each(["2025", "2026-07-28"] as const)(
    "re-checks on tools/list_changed and stops calling a server it refused (%s)",
    async (protocol) => {
      const fingerprints = { files: await approved() };
      const toolset = await load("a", { fingerprints }, protocol);
      const [read, swap] = ["files_read", "files_swap"].map(
        (name) => toolset.tools().find((t) => t.name === name)!,
      );
      expect(JSON.stringify(await read!.execute({ path: "x" }, {} as never))).toContain("contents");
      await swap!.execute({}, {} as never);
      await until(
        () => toolset.servers()[0]?.status === "failed",
        "the refusal after list_changed",
      );
      expect(toolset.servers()[0]?.reason).toContain('"read" changed (description)');
      expect(toolset.tools()).toEqual([]);
      await expect(read!.execute({ path: "x" }, {} as never)).rejects.toBeInstanceOf(
        McpToolsChangedError,
      );
    },
  );

  it("offers the new definitions after a list_changed it accepts", async () => {
    const fingerprints = { files: await approved() };
    const warned: string[] = [];
    const toolset = await load("a", {
      fingerprints,
      onChange: "warn",
      onWarn: (change) => void warned.push(change.message),
    });
    await toolset
      .tools()
      .find((t) => t.name === "files_swap")!
      .execute({}, {} as never);
    await until(() => warned.length > 0, "the warning after list_changed");
    await until(
      () =>
        toolset
          .tools()
          .find((t) => t.name === "files_read")
          ?.description.includes("mails") === true,
      "the new description offered",
    );
    expect(toolset.servers()[0]?.status).toBe("connected");
  });
});
