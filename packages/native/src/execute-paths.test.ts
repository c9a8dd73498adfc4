import type { StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, it } from "vitest";
import { nativeTool } from "./native-tool.js";

// `execute` is a plain function that returns a promise: a schema and a run that answer at once
// resolve without an async frame, and a schema or a run that answer later are awaited. Every
// way gives a promise, never a throw at the caller: of a result, or, when not even the error can
// be described, a rejection (as the async function it was gave).

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

/** A tool named double whose input is checked by `laterSchema(fail)`, then `run`. */
function laterDouble(fail?: "problem" | "reject", run = ({ n }: { n: number }): unknown => n * 2) {
  return nativeTool({
    name: "double",
    description: "doubles",
    input: laterSchema(fail),
    inputSchema: schema,
    run,
  });
}

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
    const tool = laterDouble();
    expect(await tool.execute({ n: 4 })).toEqual({ output: "8", isError: false });
  });

  it("reports a later schema's problems without running", async () => {
    let ran = 0;
    const tool = laterDouble("problem", ({ n }) => {
      ran++;
      return n * 2;
    });
    const out = await tool.execute({ n: 4 });
    expect(out.isError).toBe(true);
    expect(out.output).toBe("invalid arguments for double: n: must be a number");
    expect(ran).toBe(0);
  });

  it("turns a later schema's rejection into an error result", async () => {
    const tool = laterDouble("reject");
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

  it("hands the context to run after a schema that validates later", async () => {
    const tool = nativeTool({
      name: "who",
      description: "who asks",
      input: laterSchema(),
      inputSchema: schema,
      ctx: true,
      run: ({ n }, ctx) => `${n} for ${ctx.runId}`,
    });
    expect(await tool.execute({ n: 1 }, { runId: "run_1" } as never)).toEqual({
      output: "1 for run_1",
      isError: false,
    });
  });

  it("turns a schema whose validate throws at once into an error result", async () => {
    const throwing: StandardSchemaV1<{ n: number }> = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate() {
          throw new Error("schema broken");
        },
      },
    };
    const tool = nativeTool({
      name: "double",
      description: "doubles",
      input: throwing,
      inputSchema: schema,
      run: ({ n }) => n * 2,
    });
    const out = tool.execute({ n: 1 });
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toEqual({ output: "schema broken", isError: true });
  });

  it("rejects, without throwing at the caller, when not even the thrown value can be described", async () => {
    // Neither JSON nor String can write it: a cycle and no prototype (no toString).
    const odd = Object.create(null) as Record<string, unknown>;
    odd.self = odd;
    const tool = nativeTool({
      name: "odd",
      description: "throws the indescribable",
      run: () => {
        throw odd;
      },
    });
    let out: Promise<unknown> | undefined;
    expect(() => {
      out = tool.execute({});
    }).not.toThrow();
    await expect(out).rejects.toThrow();
  });
});
