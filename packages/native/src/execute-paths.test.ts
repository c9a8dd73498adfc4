import type { StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, it } from "vitest";
import { nativeTool } from "./native-tool.js";

// `execute` is a plain function that returns a promise: a schema and a run that answer at once
// resolve without an async frame, and a schema or a run that answer later are awaited. Every
// way gives a promise of a result; none throws at the caller.

/** A Standard Schema whose validate answers later, as an async refinement would. */
function laterSchema(fail?: "problem" | "reject"): StandardSchemaV1<{ n: number }> {
  return {
    "~standard": {
      version: 1,
      vendor: "test",
      async validate(value) {
        await Promise.resolve();
        if (fail === "reject") throw new Error("validator offline");
        const n = (value as { n?: unknown }).n;
        if (fail === "problem" || typeof n !== "number") {
          return { issues: [{ message: "must be a number", path: ["n"] }] };
        }
        return { value: { n } };
      },
    },
  };
}
const schema = { type: "object", properties: { n: { type: "number" } } };

describe("execute's paths", () => {
  it("returns a promise even when run throws at once", async () => {
    const tool = nativeTool({
      name: "boom",
      description: "throws",
      run: () => {
        throw new Error("no disk");
      },
    });
    const out = tool.execute({});
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toEqual({ output: "no disk", isError: true });
  });

  it("returns a promise for a value returned at once", async () => {
    const out = nativeTool({ name: "now", description: "now", run: () => 7 }).execute({});
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toEqual({ output: "7", isError: false });
  });

  it("awaits a schema that validates later, then runs", async () => {
    const tool = nativeTool({
      name: "double",
      description: "doubles",
      input: laterSchema(),
      inputSchema: schema,
      run: ({ n }) => n * 2,
    });
    expect(await tool.execute({ n: 4 })).toEqual({ output: "8", isError: false });
  });

  it("reports a later schema's problems without running", async () => {
    let ran = 0;
    const tool = nativeTool({
      name: "double",
      description: "doubles",
      input: laterSchema("problem"),
      inputSchema: schema,
      run: ({ n }) => {
        ran++;
        return n * 2;
      },
    });
    const out = await tool.execute({ n: 4 });
    expect(out.isError).toBe(true);
    expect(out.output).toBe("invalid arguments for double: n: must be a number");
    expect(ran).toBe(0);
  });

  it("turns a later schema's rejection into an error result", async () => {
    const tool = nativeTool({
      name: "double",
      description: "doubles",
      input: laterSchema("reject"),
      inputSchema: schema,
      run: ({ n }) => n * 2,
    });
    expect(await tool.execute({ n: 4 })).toEqual({ output: "validator offline", isError: true });
  });

  it("awaits a run that answers later after a schema that validates later", async () => {
    const tool = nativeTool({
      name: "slow",
      description: "slow",
      input: laterSchema(),
      inputSchema: schema,
      run: async ({ n }) => {
        await Promise.resolve();
        if (n < 0) throw new Error("negative");
        return { n };
      },
    });
    expect(await tool.execute({ n: 2 })).toEqual({ output: '{"n":2}', isError: false });
    expect(await tool.execute({ n: -1 })).toEqual({ output: "negative", isError: true });
  });
});
