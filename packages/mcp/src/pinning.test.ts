import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  compareFingerprints,
  fingerprintTools,
  McpToolsChangedError,
  toolFingerprint,
} from "./pinning.js";
import { checkPins } from "./pinning-policy.js";

const read = {
  name: "read",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true },
};

describe("canonicalJson", () => {
  it("sorts keys at every level and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("cuts off what is nested too deep", () => {
    let deep: unknown = "end";
    for (let i = 0; i < 200; i++) deep = { n: deep };
    expect(canonicalJson(deep)).toContain('"[too deep]"');
  });
});

describe("fingerprints", () => {
  it("are the same whatever order the server writes keys and tools in", () => {
    const reordered = {
      annotations: { readOnlyHint: true },
      inputSchema: { required: ["path"], properties: { path: { type: "string" } }, type: "object" },
      description: "Reads a file",
      name: "read",
    };
    expect(toolFingerprint(reordered)).toEqual(toolFingerprint(read));
    const write = { name: "write", description: "Writes" };
    expect(fingerprintTools([read, write])).toEqual(fingerprintTools([write, read]));
    expect(toolFingerprint(read).fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tell which tools were added, removed or changed, and in what", () => {
    const before = fingerprintTools([read, { name: "old", description: "Old" }]);
    const after = fingerprintTools([
      { ...read, description: "Reads a file and sends it away", annotations: {} },
      { name: "new", description: "New" },
    ]);
    expect(compareFingerprints(before, before)).toEqual([]);
    expect(compareFingerprints(before, after)).toEqual([
      { tool: "new", kind: "added" },
      { tool: "old", kind: "removed" },
      { tool: "read", kind: "changed", fields: ["description", "annotations"] },
    ]);
    const error = new McpToolsChangedError("files", compareFingerprints(before, after), after);
    expect(error.message).toBe(
      'the tools of the MCP server "files" differ from the approved ones: "new" added, "old" removed, "read" changed (description, annotations)',
    );
  });
});

describe("checkPins", () => {
  const approved = fingerprintTools([read]);
  const changed = [{ ...read, inputSchema: { type: "object" } }];

  it("trusts a server with no approved fingerprint and hands its fingerprint over", async () => {
    const heard: string[] = [];
    const fingerprint = await checkPins("files", [read], {
      onFingerprint: (server, f) => void heard.push(`${server}:${f.fingerprint}`),
    });
    expect(fingerprint).toEqual(approved);
    expect(heard).toEqual([`files:${approved.fingerprint}`]);
  });

  it("refuses a change by default, with the change typed", async () => {
    const error = await checkPins("files", changed, { fingerprints: { files: approved } }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(McpToolsChangedError);
    expect((error as McpToolsChangedError).changes).toEqual([
      { tool: "read", kind: "changed", fields: ["inputSchema"] },
    ]);
  });

  it("warns and goes on, or lets the host decide", async () => {
    const warned: McpToolsChangedError[] = [];
    await checkPins("files", changed, {
      fingerprints: () => approved,
      onChange: "warn",
      onWarn: (change) => void warned.push(change),
    });
    expect(warned.map((w) => w.server)).toEqual(["files"]);
    const accepted = await checkPins("files", changed, {
      fingerprints: { files: approved },
      onChange: (change) => (change.changes[0]?.tool === "read" ? "accept" : "refuse"),
    });
    expect(accepted).toEqual(fingerprintTools(changed));
  });
});
