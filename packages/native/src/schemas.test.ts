// Every kind of `input` a TypeScript user passes: Standard Schemas from each library (validated
// through `~standard`, JSON Schema from the library's own converter) and plain JSON Schema
// (validated in full by ajv).

import type { JSONSchema, Tool } from "@toolnexus/core";
import { toStandardJsonSchema, toJsonSchema as valibotToJsonSchema } from "@valibot/to-json-schema";
import { Ajv2020 } from "ajv/dist/2020.js";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { z as z3 } from "zod3";
import * as z3v4 from "zod3/v4";
import { nativeTool } from "./native-tool.js";
import { InputSchemaError } from "./schema.js";

const echo = (input: unknown, extra: { inputSchema?: object } = {}): Tool =>
  nativeTool({
    name: "echo",
    description: "returns its arguments",
    input: input as JSONSchema,
    ...extra,
    run: (args) => args,
  });

/** The error nativeTool throws for this input, or a failure if it does not throw. */
function definitionError(input: unknown, extra: { inputSchema?: unknown } = {}): InputSchemaError {
  try {
    echo(input, extra as { inputSchema?: object });
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(InputSchemaError);
    expect(thrown).toBeInstanceOf(TypeError);
    return thrown as InputSchemaError;
  }
  throw new Error("expected nativeTool to throw an InputSchemaError");
}

const output = async (tool: Tool, args: Record<string, unknown>) =>
  (await tool.execute(args)).output;

describe("zod 4", () => {
  const input = z.object({
    city: z.string().describe("City name"),
    days: z.number().int().min(1).max(14),
    units: z.enum(["metric", "imperial"]).default("metric"),
  });

  it("validates through ~standard: defaults applied, every bad field named", async () => {
    const tool = echo(input);
    expect(await output(tool, { city: "Oslo", days: 2 })).toBe(
      '{"city":"Oslo","days":2,"units":"metric"}',
    );
    const bad = await output(tool, { city: 3, days: 0, units: "kelvin" });
    expect(bad).toMatch(/^invalid arguments for echo: city: .+; days: .+; units: .+/);
  });

  it("sends the input JSON Schema from zod's own converter, descriptions and bounds included", () => {
    const { $schema: _, ...expected } = z.toJSONSchema(input, { io: "input" });
    expect(echo(input).inputSchema).toEqual(expected);
    expect(echo(input).inputSchema.properties?.city).toEqual({
      type: "string",
      description: "City name",
    });
    expect(echo(input).inputSchema.$schema).toBeUndefined();
  });

  it("awaits async refinements", async () => {
    const tool = echo(
      z.object({ user: z.string().refine(async (user) => user !== "root", "not root") }),
    );
    expect(await output(tool, { user: "ada" })).toBe('{"user":"ada"}');
    expect(await output(tool, { user: "root" })).toBe("invalid arguments for echo: user: not root");
  });

  it("says what to do when the schema has no JSON Schema form", () => {
    const error = definitionError(z.object({ when: z.date() }));
    expect(error.vendor).toBe("zod");
    expect(error.message).toMatch(
      /^nativeTool "echo": the zod schema given as input cannot be expressed as JSON Schema \(.*Date.*\)\. Fix: .* pass inputSchema/,
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("zod/mini has no converter: names z.toJSONSchema, and works with inputSchema", async () => {
    const mini = zm.object({ n: zm.number().check(zm.minimum(1)) });
    expect(definitionError(mini).message).toContain("inputSchema: z.toJSONSchema(input)");
    const tool = echo(mini, { inputSchema: zm.toJSONSchema(mini) });
    expect(tool.inputSchema).toMatchObject({ properties: { n: { type: "number", minimum: 1 } } });
    expect(await output(tool, { n: 0 })).toMatch(/^invalid arguments for echo: n: /);
  });
});

describe("zod 3", () => {
  const input = z3.object({ city: z3.string(), days: z3.number().int().min(1) });

  it("is never mistaken for JSON Schema: the error names the fix", () => {
    const error = definitionError(input);
    expect(error.vendor).toBe("zod");
    expect(error.message).toBe(
      'nativeTool "echo": input is a zod 3 schema, and zod 3 cannot produce the JSON Schema the model needs. Fix: upgrade to zod 4.2 or later ("npm install zod@^4.2"), or keep zod 3 and pass inputSchema, the arguments\' JSON Schema (for example zodToJsonSchema(input) from the zod-to-json-schema package). The zod schema still validates the arguments.',
    );
  });

  it("validates with zod 3 and sends the given inputSchema", async () => {
    const inputSchema: JSONSchema = {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
      required: ["city", "days"],
    };
    const tool = echo(input, { inputSchema });
    expect(tool.inputSchema).toBe(inputSchema);
    expect(await output(tool, { city: "Oslo", days: 2, extra: true })).toBe(
      '{"city":"Oslo","days":2}',
    );
    expect(await output(tool, { city: "Oslo", days: 0 })).toBe(
      "invalid arguments for echo: days: Number must be greater than or equal to 1",
    );
  });

  it('"zod/v4" of zod 3.25 validates, and names z.toJSONSchema for the model\'s schema', async () => {
    const v4 = z3v4.z.object({ n: z3v4.z.number().min(1) });
    expect(definitionError(v4).message).toContain("inputSchema: z.toJSONSchema(input)");
    const tool = echo(v4, { inputSchema: z3v4.z.toJSONSchema(v4) });
    expect(await output(tool, { n: 0 })).toMatch(/^invalid arguments for echo: n: Too small/);
    expect(await output(tool, { n: 1 })).toBe('{"n":1}');
  });
});

describe("valibot", () => {
  const schema = v.object({
    name: v.pipe(v.string(), v.minLength(2)),
    age: v.optional(v.pipe(v.number(), v.minValue(0))),
  });

  it("a bare valibot schema is refused with the fix, not silently unvalidated", () => {
    const error = definitionError(schema);
    expect(error.vendor).toBe("valibot");
    expect(error.message).toContain('toStandardJsonSchema(schema) from "@valibot/to-json-schema"');
  });

  it("wrapped with toStandardJsonSchema: validated, with valibot's JSON Schema", async () => {
    const tool = echo(toStandardJsonSchema(schema));
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 2 },
        age: { type: "number", minimum: 0 },
      },
      required: ["name"],
    });
    expect(await output(tool, { name: "Al", age: 3 })).toBe('{"name":"Al","age":3}');
    expect(await output(tool, { name: "A", age: -1 })).toBe(
      "invalid arguments for echo: name: Invalid length: Expected >=2 but received 1; age: Invalid value: Expected >=0 but received -1",
    );
  });

  it("a bare schema with inputSchema is validated by valibot", async () => {
    const tool = echo(schema, { inputSchema: valibotToJsonSchema(schema) });
    expect(await output(tool, { name: "A" })).toMatch(/^invalid arguments for echo: name: /);
    expect(await output(tool, { name: "Ada" })).toBe('{"name":"Ada"}');
  });

  it("async schemas are awaited, in execute and in needsApproval", async () => {
    const known = v.objectAsync({
      user: v.pipeAsync(
        v.string(),
        v.checkAsync(async (user) => user !== "mallory", "unknown user"),
      ),
    });
    const tool = nativeTool({
      name: "async_check",
      description: "d",
      input: known,
      inputSchema: { type: "object", properties: { user: { type: "string" } } },
      needsApproval: ({ user }) => user === "root",
      run: ({ user }) => `hello ${user}`,
    });
    expect(await output(tool, { user: "ada" })).toBe("hello ada");
    expect(await output(tool, { user: "mallory" })).toBe(
      "invalid arguments for async_check: user: unknown user",
    );
    const decide = tool.needsApproval as (a: Record<string, unknown>, c: object) => unknown;
    expect(await decide({ user: "root" }, {})).toBe(true);
    expect(await decide({ user: "mallory" }, {})).toBe(false);
  });
});

describe("arktype", () => {
  const input = type({ city: "string", days: "1 <= number.integer <= 14", "note?": "string" });

  it("validates and sends arktype's JSON Schema", async () => {
    const tool = echo(input);
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 14 } },
      required: ["city", "days"],
    });
    expect(await output(tool, { city: "Oslo", days: 3 })).toBe('{"city":"Oslo","days":3}');
    expect(await output(tool, { city: "Oslo", days: 30 })).toBe(
      "invalid arguments for echo: days: days must be at most 14 (was 30)",
    );
  });
});

describe("other Standard Schemas", () => {
  const standard = (jsonSchema?: (...args: unknown[]) => Record<string, unknown>) => ({
    "~standard": {
      version: 1,
      vendor: "acme",
      validate: (value: unknown) =>
        typeof (value as { id?: unknown }).id === "string"
          ? { value }
          : { issues: [{ message: "id must be a string", path: [{ key: "id" }] }] },
      ...(jsonSchema && { jsonSchema: { input: jsonSchema, output: jsonSchema } }),
    },
  });

  it("uses Standard JSON Schema when the library implements it", async () => {
    const tool = echo(
      standard(() => ({ $schema: "x", type: "object", properties: { id: { type: "string" } } })),
    );
    expect(tool.inputSchema).toEqual({ type: "object", properties: { id: { type: "string" } } });
    expect(await output(tool, { id: 1 })).toBe(
      "invalid arguments for echo: id: id must be a string",
    );
  });

  it("asks for draft-07 when the library cannot give 2020-12", () => {
    const tool = echo(
      standard((...args: unknown[]) => {
        const { target } = args[0] as { target: string };
        if (target !== "draft-07") throw new Error(`unsupported target ${target}`);
        return { type: "object", properties: { id: { type: "string" } } };
      }),
    );
    expect(tool.inputSchema).toEqual({ type: "object", properties: { id: { type: "string" } } });
    expect(
      definitionError(
        standard(() => {
          throw new Error("no");
        }),
      ).message,
    ).toContain("(no)");
  });

  it("without a converter, says to pass inputSchema", () => {
    expect(definitionError(standard()).message).toBe(
      'nativeTool "echo": input is a Standard Schema from "acme" without a JSON Schema converter (Standard JSON Schema\'s "~standard.jsonSchema"). Fix: pass inputSchema, the JSON Schema of the arguments.',
    );
  });

  it("a validator that throws gives an error result, not a crash", async () => {
    const tool = echo(
      {
        "~standard": {
          version: 1,
          vendor: "acme",
          validate: () => {
            throw new Error("validator broke");
          },
        },
      },
      { inputSchema: { type: "object" } },
    );
    expect(await tool.execute({})).toEqual({ output: "validator broke", isError: true });
  });
});

describe("JSON Schema input, validated in full", () => {
  const schema: JSONSchema = {
    type: "object",
    properties: {
      who: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          age: { type: "integer", minimum: 0, maximum: 150 },
          role: { enum: ["admin", "user"] },
        },
        required: ["name"],
        additionalProperties: false,
      },
      tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, maxItems: 3 },
      when: { type: "string", format: "date-time" },
    },
    required: ["who"],
  };
  const tool = echo(schema);

  it("rejects nested type errors, bounds, required, enums and unknown keys, naming each path", async () => {
    expect(await output(tool, { who: { name: "Ada", age: "old" } })).toBe(
      "invalid arguments for echo: who.age: expected integer, received string",
    );
    expect(await output(tool, { who: { name: "", age: -1, role: "root", x: 1 } })).toBe(
      'invalid arguments for echo: who.x: unknown field; who.name: must NOT have fewer than 1 characters; who.age: must be >= 0; who.role: expected one of "admin", "user"',
    );
    expect(await output(tool, { who: {} })).toBe("invalid arguments for echo: who.name: required");
    expect(await output(tool, {})).toBe("invalid arguments for echo: who: required");
    expect(await output(tool, { who: { name: "A" }, tags: ["ok", "NO", 3, "a"] })).toBe(
      'invalid arguments for echo: tags: must NOT have more than 3 items; tags.1: must match pattern "^[a-z]+$"; tags.2: expected string, received integer',
    );
  });

  it("hands run the arguments as given (no defaults, no coercion) and ignores format", async () => {
    expect(await output(tool, { who: { name: "Ada", age: 36 }, when: "tomorrow", more: 1 })).toBe(
      '{"who":{"name":"Ada","age":36},"when":"tomorrow","more":1}',
    );
  });

  it("follows $ref, combinators and the draft-07 dialect when the schema names it", async () => {
    const refs = echo({
      type: "object",
      $defs: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      properties: {
        at: { $ref: "#/$defs/point" },
        id: { anyOf: [{ type: "string" }, { type: "integer" }] },
      },
    });
    expect(await output(refs, { at: {}, id: 1.5 })).toBe(
      "invalid arguments for echo: at.x: required; id: expected string, received number; id: expected integer, received number; id: must match a schema in anyOf",
    );
    const draft07 = echo({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
    });
    expect(draft07.inputSchema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(await output(draft07, { pair: ["a", "b"] })).toBe(
      "invalid arguments for echo: pair.1: expected number, received string",
    );
  });

  it("lists at most 20 problems", async () => {
    const many = echo({ type: "object", additionalProperties: false });
    const args = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const text = await output(many, args);
    expect(text.split("; ")).toHaveLength(21);
    expect(text).toMatch(/; …and 5 more problems$/);
  });

  it("compiles each schema once, when the tool is defined", async () => {
    const core = Object.getPrototypeOf(Ajv2020.prototype) as { compile: () => unknown };
    const compile = vi.spyOn(core, "compile");
    try {
      const once = echo({ type: "object", properties: { n: { type: "number" } } });
      expect(compile).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 5; i++) await once.execute({ n: i });
      await once.execute({ n: "x" });
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("two tools may share an $id", async () => {
    const a = echo({
      $id: "https://example.test/args.json",
      type: "object",
      properties: { n: { type: "number" } },
    });
    const b = echo({
      $id: "https://example.test/args.json",
      type: "object",
      properties: { n: { type: "string" } },
    });
    expect(await output(a, { n: "x" })).toMatch(/expected number/);
    expect(await output(b, { n: 1 })).toMatch(/expected string/);
  });

  it("refuses an invalid schema at definition, with ajv's reason", () => {
    expect(
      definitionError({ type: "object", properties: { n: { type: "strin" } } }).message,
    ).toMatch(
      /^nativeTool "echo": input is not a valid JSON Schema: type must be JSONType or JSONType\[\]: strin$/,
    );
    expect(definitionError({ type: "object", required: "n" }).message).toMatch(
      /^nativeTool "echo": input is not a valid JSON Schema: required value must be \["array"\]$/,
    );
    expect(
      definitionError({ type: "object", properties: { p: { pattern: "(" } } }).message,
    ).toMatch(/input is not a valid JSON Schema: Invalid regular expression/);
    expect(
      definitionError({ type: "object", properties: { t: { items: [{ type: "string" }] } } })
        .message,
    ).toMatch(/a draft-07 tuple: say so with "\$schema"/);
    expect(
      definitionError({ type: "object", properties: { a: { $ref: "#/nope" } } }).message,
    ).toMatch(
      /^nativeTool "echo": input is not a valid JSON Schema: can't resolve reference #\/nope/,
    );
  });
});

describe("input that is neither", () => {
  it("refuses schema objects without ~standard, arrays and strings", () => {
    class OldZod {
      _def = { typeName: "ZodObject" };
      parse(value: unknown) {
        return value;
      }
    }
    expect(definitionError(new OldZod()).message).toBe(
      'nativeTool "echo": input must be a Standard Schema (zod 3.24+, zod 4, valibot 1, arktype 2, …) or a plain JSON Schema object, not a zod schema older than 3.24 (it has no "~standard"): upgrade zod',
    );
    expect(definitionError({ type: "object", _run: () => {} }).message).toMatch(
      /not an object with methods/,
    );
    expect(definitionError([]).message).toMatch(/not an array$/);
    expect(definitionError("object").message).toMatch(/not "object"$/);
  });

  it("inputSchema goes only with a Standard Schema input", () => {
    expect(
      definitionError({ type: "object" }, { inputSchema: { type: "object" } }).message,
    ).toMatch(/input is already JSON Schema/);
    expect(definitionError(undefined, { inputSchema: { type: "object" } }).message).toMatch(
      /inputSchema needs an input schema/,
    );
    expect(definitionError(z.object({}), { inputSchema: z.object({}) }).message).toMatch(
      /inputSchema must be a plain JSON Schema object/,
    );
  });
});
