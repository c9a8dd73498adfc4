// Type-level tests: run by `vitest` (typecheck mode) and by `tsc --noEmit`.
import type { Tool, ToolContext } from "@toolnexus/core";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { nativeTool } from "./native-tool.js";

describe("nativeTool types", () => {
  it("types run's args from a zod schema", () => {
    nativeTool({
      name: "add",
      description: "Add",
      input: z.object({ a: z.number(), b: z.number(), note: z.string().optional() }),
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b: number; note?: string | undefined }>();
        return args.a + args.b;
      },
    });
  });

  it("rejects a two-parameter run without ctx: true", () => {
    // @ts-expect-error run takes (args, ctx) but ctx: true is missing
    nativeTool({
      name: "no_flag",
      description: "Forgot the flag",
      run: (_args: Record<string, unknown>, ctx: ToolContext) => ctx.agent,
    });
    // @ts-expect-error run takes (args, ctx) but ctx is false
    nativeTool({
      name: "flag_false",
      description: "Flag off",
      ctx: false,
      run: (_args: Record<string, unknown>, ctx: ToolContext) => ctx.agent,
    });
  });

  it("with ctx: true, ctx is a ToolContext and never undefined", () => {
    nativeTool({
      name: "with_ctx",
      description: "Reads the context",
      input: z.object({ id: z.string() }),
      ctx: true,
      run: (args, ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        expectTypeOf(ctx).not.toBeUndefined();
        expectTypeOf(args).toEqualTypeOf<{ id: string }>();
        return ctx.sessionId;
      },
    });
  });

  it("types args as a plain record for JSON Schema or no input, and returns a Tool", () => {
    const tool = nativeTool({
      name: "plain",
      description: "JSON Schema input",
      input: { type: "object", properties: { q: { type: "string" } } },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return "";
      },
    });
    expectTypeOf(tool).toEqualTypeOf<Tool>();
    nativeTool({
      name: "none",
      description: "No input",
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      },
    });
  });

  it("types needsApproval's args from the schema", () => {
    nativeTool({
      name: "wipe",
      description: "Wipe",
      input: z.object({ all: z.boolean() }),
      needsApproval: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ all: boolean }>();
        return args.all;
      },
      run: () => "",
    });
  });
});
