// The assembly rule of toolnexus SPEC §4 on every pair of sources, with stand-in tools (the
// real sources cannot produce some pairs: no built-in is named `skill`, for one).
import { ok, type Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { assemble, entriesOf } from "./assemble.js";
import type { ToolOriginKind } from "./types.js";

function tool(name: string, source: string): Tool {
  return {
    name,
    description: `${name} from ${source}`,
    inputSchema: { type: "object", properties: {} },
    source,
    execute: async () => ok(source),
  };
}

function run(lists: Partial<Record<ToolOriginKind, Tool[]>>, disabled: string[] = []) {
  return assemble({
    mcp: entriesOf("mcp", lists.mcp ?? []),
    skill: entriesOf("skill", lists.skill ?? []),
    builtin: entriesOf("builtin", lists.builtin ?? []),
    host: [
      ...entriesOf("extraTools", lists.extraTools ?? []),
      ...entriesOf("http", lists.http ?? []),
    ],
    disabled: new Set(disabled),
  });
}

const winner = (result: ReturnType<typeof run>, name: string) =>
  result.tools.get(name)?.tool.source;

describe("assemble: MCP > skill > built-in > host tools, but a host tool replaces a built-in", () => {
  it("concatenates in the order MCP, skill, built-in, extraTools, http", () => {
    const result = run({
      extraTools: [tool("e", "native")],
      http: [tool("h", "http")],
      builtin: [tool("b", "builtin")],
      skill: [tool("skill", "skill")],
      mcp: [tool("m", "mcp")],
    });
    expect([...result.tools.keys()]).toEqual(["m", "skill", "b", "e", "h"]);
    expect(result.clashes).toEqual([]);
  });

  it("MCP beats skill", () => {
    const result = run({ mcp: [tool("skill", "mcp")], skill: [tool("skill", "skill")] });
    expect(winner(result, "skill")).toBe("mcp");
    expect(result.clashes).toEqual([
      {
        name: "skill",
        kept: { kind: "mcp", index: 0, source: "mcp" },
        dropped: { kind: "skill", index: 0, source: "skill" },
        rule: "first-wins",
        message:
          'tool "skill": kept the MCP tool at mcp.tools()[0], dropped the skill tool (first wins: MCP > skill > built-in > host tools)',
      },
    ]);
  });

  it("skill beats built-in", () => {
    const result = run({ skill: [tool("skill", "skill")], builtin: [tool("skill", "builtin")] });
    expect(winner(result, "skill")).toBe("skill");
    expect(result.clashes.map((clash) => clash.message)).toEqual([
      'tool "skill": kept the skill tool, dropped the built-in tool (first wins: MCP > skill > built-in > host tools)',
    ]);
  });

  it("MCP beats built-in", () => {
    const result = run({
      mcp: [tool("x", "other"), tool("bash", "mcp")],
      builtin: [tool("bash", "builtin")],
    });
    expect(winner(result, "bash")).toBe("mcp");
    expect(result.clashes[0]?.kept).toEqual({ kind: "mcp", index: 1, source: "mcp" });
    expect(result.clashes[0]?.rule).toBe("first-wins");
  });

  it("a host tool replaces the built-in of its name, and takes the host tools' place in the order", () => {
    const result = run({
      builtin: [tool("bash", "builtin"), tool("read", "builtin"), tool("write", "builtin")],
      extraTools: [tool("read", "native")],
      http: [tool("write", "http")],
    });
    expect([...result.tools.keys()]).toEqual(["bash", "read", "write"]);
    expect(winner(result, "read")).toBe("native");
    expect(winner(result, "write")).toBe("http");
    expect(result.clashes).toEqual([
      {
        name: "read",
        kept: { kind: "extraTools", index: 0, source: "native" },
        dropped: { kind: "builtin", index: 1, source: "builtin" },
        rule: "shadowed-builtin",
        message:
          'tool "read": extraTools[0] (source "native") replaces the built-in tool (a host tool shadows the built-in of the same name)',
      },
      {
        name: "write",
        kept: { kind: "http", index: 0, source: "http" },
        dropped: { kind: "builtin", index: 2, source: "builtin" },
        rule: "shadowed-builtin",
        message:
          'tool "write": http[0] replaces the built-in tool (a host tool shadows the built-in of the same name)',
      },
    ]);
  });

  it("MCP and skill beat host tools (first wins)", () => {
    const result = run({
      mcp: [tool("fs_read", "mcp")],
      skill: [tool("skill", "skill")],
      extraTools: [tool("skill", "native"), tool("fs_read", "custom")],
    });
    expect(winner(result, "fs_read")).toBe("mcp");
    expect(winner(result, "skill")).toBe("skill");
    expect(result.clashes.map((clash) => clash.message)).toEqual([
      'tool "skill": kept the skill tool, dropped extraTools[0] (source "native") (first wins: MCP > skill > built-in > host tools)',
      'tool "fs_read": kept the MCP tool at mcp.tools()[0], dropped extraTools[1] (source "custom") (first wins: MCP > skill > built-in > host tools)',
    ]);
  });

  it("an MCP tool that beats a host tool still lets that host tool replace the built-in", () => {
    // Step (1) runs before step (3): the built-in is gone, the MCP tool wins over the host one.
    const result = run({
      mcp: [tool("bash", "mcp")],
      builtin: [tool("bash", "builtin")],
      extraTools: [tool("bash", "native")],
    });
    expect(winner(result, "bash")).toBe("mcp");
    expect(
      result.clashes.map((clash) => [clash.rule, clash.kept.kind, clash.dropped.kind]),
    ).toEqual([
      ["shadowed-builtin", "extraTools", "builtin"],
      ["first-wins", "mcp", "extraTools"],
    ]);
  });

  it("two MCP tools of one name: the first is kept", () => {
    const result = run({ mcp: [tool("a_b_c", "mcp"), tool("a_b_c", "mcp")] });
    expect(result.tools.size).toBe(1);
    expect(result.clashes[0]?.dropped).toEqual({ kind: "mcp", index: 1, source: "mcp" });
  });

  it("disabled names are left out of every source before the dedupe, with no clash", () => {
    const result = run(
      {
        mcp: [tool("bash", "mcp")],
        builtin: [tool("bash", "builtin"), tool("read", "builtin")],
        extraTools: [tool("read", "native"), tool("keep", "native")],
      },
      ["bash", "read"],
    );
    expect([...result.tools.keys()]).toEqual(["keep"]);
    expect(result.clashes).toEqual([]);
  });
});
