#!/usr/bin/env node
// Schemas from the packed tarballs, in the projects users have: core, native and client are
// packed with pnpm and installed with npm into three fresh projects, one with zod 3, one with
// zod 4, one with valibot. In each, a small TypeScript script is compiled with tsc (strict,
// nodenext), which proves `run`'s args are typed from the schema, and then run: a tool called
// through createClient + scriptedModel refuses bad arguments (run never sees them), runs on
// good ones, and the model receives the expected JSON Schema; a schema that cannot give one is
// refused at definition with an InputSchemaError naming the fix.
//
//   node .ci/schemas-pack-test.mjs [--keep]     (after a build: CI runs it after `pnpm test`)

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packArgs, packedTarballs } from "./pnpm-pack.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const KEEP = process.argv.includes("--keep");
const PNPM = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager;
const TSC = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");
const started = Date.now();
const log = (line) =>
  console.log(
    `[schemas-pack-test ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`,
  );
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: "pipe" });

// What every project's script shares: one client run of two calls (bad arguments, then good).
const PROVE = `import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Tool } from "@toolnexus/core";
import { InputSchemaError } from "@toolnexus/native";

/** True only when A and B are the same type; \`const t: Equal<A, B> = true\` fails tsc otherwise. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
  );

function check(ok: boolean, what: string, detail?: unknown): asserts ok {
  if (!ok) throw new Error(\`\${what}\${detail === undefined ? "" : \`: \${JSON.stringify(detail)}\`}\`);
}

export async function prove(
  tool: Tool,
  expected: { schema: object; bad: Record<string, unknown>; problem: RegExp; good: Record<string, unknown>; output: string },
): Promise<void> {
  const model = scriptedModel([
    { toolCalls: [{ name: tool.name, arguments: expected.bad }] },
    { toolCalls: [{ name: tool.name, arguments: expected.good }] },
    { content: "done" },
  ]);
  const result = await createClient({ model, tools: [tool] }).run("go");
  check(result.status === "done", \`\${tool.name}: run status\`, result.status);
  const [bad, good] = result.toolCalls;
  check(bad?.status === "error" && expected.problem.test(bad.result.output), \`\${tool.name}: bad arguments\`, bad?.result);
  check(good?.status === "ok" && good.result.output === expected.output, \`\${tool.name}: good arguments\`, good?.result);
  const sent = model.requests[0]?.tools.find((spec) => spec.name === tool.name)?.inputSchema;
  check(canonical(sent) === canonical(expected.schema), \`\${tool.name}: JSON Schema sent to the model\`, sent);
  console.log(\`ok \${tool.name}: bad arguments refused (\${bad.result.output}), good ones run, schema sent\`);
}

export function refused(define: () => unknown, fix: RegExp): void {
  try {
    define();
  } catch (error) {
    check(error instanceof InputSchemaError && fix.test(error.message), "InputSchemaError naming the fix", String(error));
    console.log(\`ok refused at definition: \${(error as Error).message.slice(0, 110)}…\`);
    return;
  }
  throw new Error("expected nativeTool to throw an InputSchemaError");
}
`;

const ZOD3 = `import type { JSONSchema } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { z } from "zod";
import * as z4 from "zod/v4";
import { type Equal, prove, refused } from "./prove.js";

const input = z.object({ city: z.string(), days: z.number().int().min(1) });
refused(() => nativeTool({ name: "bare", description: "d", input, run: () => "" }), /zod 3.*pass inputSchema/);

const schema: JSONSchema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};
const weather = nativeTool({
  name: "weather",
  description: "Weather",
  input,
  inputSchema: schema,
  run: (args) => {
    const typed: Equal<typeof args, { city: string; days: number }> = true;
    return \`\${args.city}: \${args.days} \${typed}\`;
  },
});
await prove(weather, { schema, bad: { city: "Oslo", days: 0 }, problem: /^invalid arguments for weather: days: /, good: { city: "Oslo", days: 2 }, output: "Oslo: 2 true" });

// zod 3.25's "zod/v4": typechecks, validates, and z4.toJSONSchema gives the model's schema.
const v4 = z4.object({ n: z4.number().min(1) });
refused(() => nativeTool({ name: "v4", description: "d", input: v4, run: () => "" }), /z\\.toJSONSchema\\(input\\)/);
const { $schema: _dialect, ...v4schema } = z4.toJSONSchema(v4);
const double = nativeTool({
  name: "double",
  description: "Double",
  input: v4,
  inputSchema: v4schema,
  run: (args) => {
    const typed: Equal<typeof args, { n: number }> = true;
    return typed ? args.n * 2 : 0;
  },
});
await prove(double, { schema: v4schema, bad: { n: 0 }, problem: /^invalid arguments for double: n: /, good: { n: 4 }, output: "8" });
`;

const ZOD4 = `import { nativeTool } from "@toolnexus/native";
import { z } from "zod";
import { type Equal, prove, refused } from "./prove.js";

const input = z.object({
  city: z.string().describe("City name"),
  days: z.number().int().min(1).max(14),
  units: z.enum(["metric", "imperial"]).default("metric"),
});
const weather = nativeTool({
  name: "weather",
  description: "Weather",
  input,
  run: (args) => {
    const typed: Equal<typeof args, { city: string; days: number; units: "metric" | "imperial" }> = true;
    return \`\${args.city}: \${args.days} \${args.units} \${typed}\`;
  },
});
const { $schema: _dialect, ...schema } = z.toJSONSchema(input, { io: "input" });
await prove(weather, { schema, bad: { city: "Oslo", days: 30 }, problem: /^invalid arguments for weather: days: /, good: { city: "Oslo", days: 2 }, output: "Oslo: 2 metric true" });
refused(() => nativeTool({ name: "when", description: "d", input: z.object({ at: z.date() }), run: () => "" }), /cannot be expressed as JSON Schema/);

// Plain JSON Schema: validated in full (ajv, from native's own dependencies).
const deep = {
  type: "object",
  properties: { who: { type: "object", properties: { age: { type: "integer", minimum: 0 } }, required: ["age"] } },
  required: ["who"],
};
const person = nativeTool({
  name: "person",
  description: "Person",
  input: deep,
  run: (args) => {
    const typed: Equal<typeof args, Record<string, unknown>> = true;
    return typed ? JSON.stringify(args) : "";
  },
});
await prove(person, { schema: deep, bad: { who: { age: "old" } }, problem: /^invalid arguments for person: who.age: expected integer, received string$/, good: { who: { age: 3 } }, output: '{"who":{"age":3}}' });
`;

const VALIBOT = `import { nativeTool } from "@toolnexus/native";
import { toJsonSchema, toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { type Equal, prove, refused } from "./prove.js";

const person = v.object({ name: v.pipe(v.string(), v.minLength(2)), age: v.optional(v.number(), 0) });
refused(() => nativeTool({ name: "bare", description: "d", input: person, run: () => "" }), /toStandardJsonSchema/);
const greet = nativeTool({
  name: "greet",
  description: "Greet",
  input: toStandardJsonSchema(person),
  run: (args) => {
    const typed: Equal<typeof args, { name: string; age: number }> = true;
    return \`hi \${args.name} (\${args.age}) \${typed}\`;
  },
});
const { $schema: _dialect, ...schema } = toJsonSchema(person);
await prove(greet, { schema, bad: { name: "A" }, problem: /^invalid arguments for greet: name: /, good: { name: "Ada" }, output: "hi Ada (0) true" });
`;

const PROJECTS = [
  { name: "zod3", deps: { zod: "^3.25.0" }, main: ZOD3 },
  { name: "zod4", deps: { zod: "^4.2.0" }, main: ZOD4 },
  {
    name: "valibot",
    deps: { valibot: "^1.0.0", "@valibot/to-json-schema": "^1.0.0" },
    main: VALIBOT,
  },
];

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    types: [],
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src"],
};

const temp = mkdtempSync(join(tmpdir(), "toolnexus-schemas-"));
let failed = false;
try {
  const names = ["core", "native", "client"];
  for (const name of names) {
    if (!existsSync(join(ROOT, "packages", name, "dist")))
      throw new Error(`packages/${name} is not built: run the build first`);
  }
  // One pnpm run packs the three (.ci/pnpm-pack.mjs).
  const out = run(
    "npx",
    packArgs(
      PNPM,
      names.map((name) => `@toolnexus/${name}`),
      join(temp, "tarballs"),
    ),
    ROOT,
  );
  const tarballs = {};
  for (const [name, filename] of packedTarballs(out)) tarballs[name] = `file:${filename}`;
  log(`packed ${Object.keys(tarballs).join(", ")}`);
  for (const project of PROJECTS) {
    const dir = join(temp, project.name);
    mkdirSync(join(dir, "src"), { recursive: true });
    const manifest = {
      name: `schemas-${project.name}`,
      private: true,
      type: "module",
      dependencies: { ...tarballs, ...project.deps },
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(join(dir, "src", "prove.ts"), PROVE);
    writeFileSync(join(dir, "src", "main.ts"), project.main);
    try {
      run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"],
        dir,
      );
      const versions = Object.keys(project.deps).map(
        (dep) =>
          `${dep}@${JSON.parse(readFileSync(join(dir, "node_modules", dep, "package.json"), "utf8")).version}`,
      );
      run(process.execPath, [TSC, "-p", "."], dir);
      const output = run(process.execPath, ["dist/main.js"], dir);
      log(
        `ok   ${project.name} (${versions.join(", ")}): installed, typechecked, ran\n${output.trimEnd().replace(/^/gm, "       ")}`,
      );
    } catch (error) {
      failed = true;
      log(`FAIL ${project.name}: ${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    }
  }
} finally {
  if (KEEP) log(`kept ${temp}`);
  else rmSync(temp, { recursive: true, force: true });
}
if (failed) process.exit(1);
log("all schema projects passed");
