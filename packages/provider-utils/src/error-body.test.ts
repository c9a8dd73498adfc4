// errorDetails on bodies whose secrets are JSON-escaped, and bodies of no known shape.
import { describe, expect, it } from "vitest";
import { errorDetails } from "./error-body.js";

const KEY = "sk-test-Ab/Cd+EfGh1234567890";

describe("errorDetails: what a body of no known shape shows", () => {
  it("its parsed value written out again, so an escaped key reads as written and is redacted", () => {
    const body = `{ "received_key" : "\\u0073${KEY.slice(1)}",\n  "note": "caf\\u00e9 \\/ ok" }`;
    expect(errorDetails(body, [KEY])).toEqual({
      message: '{"received_key":"[redacted]","note":"café / ok"}',
    });
  });

  it("a JSON string or array body the same way", () => {
    expect(errorDetails(`"bad key ${KEY.replace("/", "\\/")}"`, [KEY])).toEqual({
      message: '"bad key [redacted]"',
    });
    expect(errorDetails(`["\\u0073${KEY.slice(1)}", 1]`, [KEY])).toEqual({
      message: '["[redacted]",1]',
    });
  });

  it("the text itself, redacted, when the value is nested too deep to write out again", () => {
    const depth = 200_000;
    const body = `["\\u0073${KEY.slice(1)}", ${"[".repeat(depth)}${"]".repeat(depth)}]`;
    const { message } = errorDetails(body, [KEY]);
    expect(message).toMatch(/^\["\[redacted\]", \[+…$/);
  });
});
