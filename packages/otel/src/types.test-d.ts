import type { Instrumentation, RunTrace } from "@toolnexus/client";
import { expectTypeOf, test } from "vitest";
import { type OtelInstrumentation, otelInstrumentation, type TracedRun } from "./index.js";

test("what otelInstrumentation() returns is a client Instrumentation", () => {
  expectTypeOf(otelInstrumentation()).toExtend<Instrumentation>();
  expectTypeOf<OtelInstrumentation>().toExtend<Instrumentation>();
  expectTypeOf<TracedRun>().toExtend<RunTrace>();
});
