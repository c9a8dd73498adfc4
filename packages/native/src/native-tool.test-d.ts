// Type-level tests: run by `vitest` (typecheck mode) and by `tsc --noEmit`.
import type { Tool, ToolContext } from "@toolnexus/core";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { z as z3 } from "zod3";
import * as z3v4 from "zod3/v4";
import { nativeTool, type RunWithoutCtx } from "./native-tool.js";

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

  it("the error for a two-parameter run without ctx: true names the fix", () => {
    // nativeTool's second overload requires `run` to be assignable to this type: for a run that
    // needs a second parameter it is a sentence, which TypeScript prints in its error.
    type Message =
      "run takes (args, ctx): add `ctx: true` to the definition to receive the ToolContext";
    expectTypeOf<
      RunWithoutCtx<(args: Record<string, unknown>, ctx: ToolContext) => string>
    >().toEqualTypeOf<Message>();
    expectTypeOf<
      RunWithoutCtx<(args: { id: string }, ctx: ToolContext) => void>
    >().toEqualTypeOf<Message>();
    // A run of the arguments alone, or with an optional second parameter, is left alone.
    expectTypeOf<
      RunWithoutCtx<(args: Record<string, unknown>) => string>
    >().toEqualTypeOf<unknown>();
    expectTypeOf<RunWithoutCtx<() => void>>().toEqualTypeOf<unknown>();
    expectTypeOf<
      RunWithoutCtx<(args: Record<string, unknown>, second?: string) => string>
    >().toEqualTypeOf<unknown>();
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

describe("args typed from any Standard Schema (StandardSchemaV1.InferOutput)", () => {
  it("zod 4: the output type (defaults filled, transforms applied)", () => {
    nativeTool({
      name: "z4",
      description: "d",
      input: z.object({
        city: z.string(),
        units: z.enum(["metric", "imperial"]).default("metric"),
        days: z.string().transform(Number),
      }),
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          city: string;
          units: "metric" | "imperial";
          days: number;
        }>();
      },
    });
    nativeTool({
      name: "mini",
      description: "d",
      input: zm.object({ n: zm.number(), s: zm.optional(zm.string()) }),
      inputSchema: { type: "object" },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number; s?: string | undefined }>();
      },
    });
  });

  it('zod 3 and zod 3.25\'s "zod/v4"', () => {
    nativeTool({
      name: "z3",
      description: "d",
      input: z3.object({ a: z3.number(), b: z3.string().optional() }),
      inputSchema: { type: "object" },
      ctx: true,
      run: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b?: string | undefined }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
      },
    });
    nativeTool({
      name: "z3v4",
      description: "d",
      input: z3v4.z.object({ a: z3v4.z.number() }),
      inputSchema: { type: "object" },
      needsApproval: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number }>();
        return args.a > 1;
      },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number }>();
      },
    });
  });

  it("valibot, bare or wrapped, and arktype", () => {
    const person = v.object({ name: v.string(), age: v.optional(v.number(), 0) });
    type Person = { name: string; age: number };
    nativeTool({
      name: "valibot",
      description: "d",
      input: toStandardJsonSchema(person),
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<Person>();
      },
    });
    nativeTool({
      name: "valibot_bare",
      description: "d",
      input: person,
      inputSchema: { type: "object" },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<Person>();
      },
    });
    nativeTool({
      name: "ark",
      description: "d",
      input: type({ city: "string", "days?": "number" }),
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number }>();
      },
    });
  });

  it("refuses a schema whose output is not an object, and a non-JSON-Schema inputSchema", () => {
    nativeTool({
      name: "scalar",
      description: "d",
      // @ts-expect-error the arguments are an object: a string schema cannot describe them
      input: z.string(),
      run: () => "",
    });
    nativeTool({
      name: "bad_input_schema",
      description: "d",
      input: z.object({ a: z.number() }),
      // @ts-expect-error inputSchema is JSON Schema, not a schema object
      inputSchema: "object",
      run: () => "",
    });
  });
});
