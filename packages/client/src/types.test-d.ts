import type { Request } from "@toolnexus/core";
import { describe, expectTypeOf, it } from "vitest";
import type { RunEvent, RunResult } from "./types.js";

function assertNever(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}

describe("RunResult and RunEvent are exhaustive unions", () => {
  it("narrows RunResult by status", () => {
    const describe = (result: RunResult): string => {
      switch (result.status) {
        case "done":
          return result.text;
        case "pending":
          expectTypeOf(result.pending).toEqualTypeOf<Request>();
          expectTypeOf(result.pendings).toEqualTypeOf<Request[]>();
          return result.pending.prompt;
        case "incomplete":
          expectTypeOf(result.limit).toEqualTypeOf<"maxTurns" | "timeout">();
          return result.limit;
        default:
          return assertNever(result);
      }
    };
    expectTypeOf(describe).returns.toBeString();
  });

  it("narrows RunEvent by type", () => {
    const label = (event: RunEvent): string => {
      switch (event.type) {
        case "text":
        case "reasoning":
          return event.delta;
        case "message":
          return event.message.id;
        case "tool_call":
          return event.call.name;
        case "pending":
          return event.request.kind;
        case "compaction":
          return `${event.before.tokens} -> ${event.after.tokens}`;
        case "tool_result":
          return event.record.status;
        case "usage":
          return String(event.total.totalTokens);
        case "progress":
          return `${event.callId} ${event.progress}/${event.total ?? "?"}`;
        case "agent":
          return `${event.agent}: ${label(event.event)}`;
        case "done":
          return event.result.status;
        default:
          return assertNever(event);
      }
    };
    expectTypeOf(label).returns.toBeString();
  });

  it("does not expose pending on a done result", () => {
    const read = (result: RunResult) => {
      if (result.status === "done") {
        // @ts-expect-error a done result has no pending Request
        return result.pending;
      }
      return undefined;
    };
    expectTypeOf(read).toBeFunction();
  });
});
