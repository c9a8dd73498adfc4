// nativeTool's redeploy fields: previousNames and migrate are checked and carried onto the Tool.
import type { ToolMigration } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nativeTool } from "./native-tool.js";

const base = {
  name: "release",
  description: "Release a build",
  input: z.object({ target: z.string() }),
  run: ({ target }: { target: string }) => `released ${target}`,
};

describe("nativeTool previousNames and migrate", () => {
  it("are carried onto the tool; migrate.run keeps its this and converts old arguments", () => {
    const migration = {
      suffix: "-eu",
      from: ["0123456789abcdef"],
      run(this: { suffix: string }, args: Record<string, unknown>) {
        return { target: `${String(args.env)}${this.suffix}` };
      },
    };
    const tool = nativeTool({ ...base, previousNames: ["deploy"], migrate: migration });
    expect(tool.previousNames).toEqual(["deploy"]);
    expect(tool.migrate?.from).toEqual(["0123456789abcdef"]);
    expect(
      tool.migrate?.run({ env: "prod" }, { tool: "deploy", schema: "0123456789abcdef" }),
    ).toEqual({
      target: "prod-eu",
    });
  });

  it("refuses malformed ones with a TypeError naming the tool", () => {
    expect(() => nativeTool({ ...base, previousNames: ["has space"] })).toThrow(
      'nativeTool "release": previousNames must be a list of earlier tool names',
    );
    expect(() => nativeTool({ ...base, previousNames: ["release"] })).toThrow("other than its own");
    const noRun = { from: ["x"] } as unknown as ToolMigration;
    expect(() => nativeTool({ ...base, migrate: noRun })).toThrow(
      'nativeTool "release": migrate must be { from: [schema fingerprints], run(oldArgs) => newArgs }',
    );
    const badFrom = { from: "x", run: () => ({}) } as unknown as ToolMigration;
    expect(() => nativeTool({ ...base, migrate: badFrom })).toThrow("migrate must be");
  });
});
