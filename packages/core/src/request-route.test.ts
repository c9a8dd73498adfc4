import { describe, expect, it } from "vitest";
import { pending, pendingOf } from "./pending.js";
import { parseRequest, RequestSchema } from "./wire.js";

describe("Request.route", () => {
  it("pending() keeps it beside the tool's own data, and the wire parser keeps it", () => {
    const data = { path: "/srv/config.yaml", agent: "deploy-bot" };
    const request = pendingOf(
      pending({
        kind: "input",
        prompt: "Which file?",
        data,
        route: { agent: "writer", path: ["plan", "write"] },
      }),
    )!;
    expect(request.data).toEqual(data);
    expect(request.route).toEqual({ agent: "writer", path: ["plan", "write"] });
    const parsed = parseRequest(JSON.stringify(request));
    expect(parsed).toEqual(request);
    expect(Object.keys(parsed)).toEqual(["id", "kind", "prompt", "data", "route"]);
  });

  it("is refused when malformed, by pending() and by the parser", () => {
    const bad = { agent: "writer", path: ["plan", 3] };
    expect(() =>
      pending({
        kind: "input",
        prompt: "?",
        route: bad as unknown as { agent: string; path: string[] },
      }),
    ).toThrow(/route/);
    const checked = RequestSchema.safeParse({ id: "r", kind: "input", prompt: "?", route: bad });
    expect(checked.success).toBe(false);
    expect(
      parseRequest({ id: "r", kind: "input", prompt: "?", route: null }).route,
    ).toBeUndefined();
  });
});
