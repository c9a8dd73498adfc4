import { describe, expectTypeOf, it } from "vitest";
import type { ApprovalPolicy, PolicyDecision, PolicyInput } from "./policy.js";

describe("policy types", () => {
  it("a deny needs a reason; an ask's fields are optional", () => {
    expectTypeOf({ decision: "allow" as const }).toMatchTypeOf<PolicyDecision>();
    expectTypeOf({ decision: "deny" as const, reason: "no" }).toMatchTypeOf<PolicyDecision>();
    expectTypeOf({ decision: "deny" as const }).not.toMatchTypeOf<PolicyDecision>();
    expectTypeOf({ decision: "ask" as const }).toMatchTypeOf<PolicyDecision>();
    expectTypeOf({ decision: "maybe" as const }).not.toMatchTypeOf<PolicyDecision>();
  });

  it("decide sees the tool, the arguments, the requester and extra, and may be async", () => {
    expectTypeOf<PolicyInput["requester"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<PolicyInput["tool"]["annotations"]>().toEqualTypeOf<
      Readonly<Record<string, unknown>>
    >();
    const policy: ApprovalPolicy = {
      name: "async",
      decide: async ({ args }) => (args.force === true ? { decision: "allow" } : undefined),
    };
    expectTypeOf(policy.decide).returns.toEqualTypeOf<
      PolicyDecision | undefined | Promise<PolicyDecision | undefined>
    >();
  });
});
