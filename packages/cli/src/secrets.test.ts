import { describe, expect, it } from "vitest";
import { redactor, redactValue, secretsOf } from "./secrets.js";

describe("secretsOf and redactor", () => {
  it("mask a URL's password, as written and decoded, and the whole URL", () => {
    const url = "postgres://app:p%40ss-word%21@db.example.com:5432/runs";
    const redact = redactor(secretsOf(url));
    expect(redact(`failed on ${url}`)).toBe("failed on ***");
    expect(redact("password p@ss-word! was refused")).toBe("password *** was refused");
    expect(redact("password p%40ss-word%21 was refused")).toBe("password *** was refused");
    expect(redact("app@db.example.com:5432/runs")).toBe("app@db.example.com:5432/runs");
  });

  it("mask a password given as a query parameter or in a key=value string", () => {
    expect(redactor(secretsOf("postgres://db/runs?password=hunter22"))("x hunter22 y")).toBe(
      "x *** y",
    );
    const keyValue = "host=db user=app password='top secret' dbname=runs";
    expect(redactor(secretsOf(keyValue))("got top secret here")).toBe("got *** here");
  });

  it("mask a password with a quote or a backslash in JSON text, where it is escaped", () => {
    for (const password of ['q"uote"only', "back\\slash"]) {
      const redact = redactor(secretsOf(`postgres://pw:${password}@127.0.0.1:5432/db`));
      const json = JSON.stringify({ message: `refused ${password}` });
      expect(json).not.toContain(password);
      expect(redact(json)).toBe('{"message":"refused ***"}');
      expect(JSON.stringify(redactValue({ [password]: [password] }, redact))).toBe(
        '{"***":["***"]}',
      );
    }
  });

  it("mask a key=value string's quoted password with its escapes undone", () => {
    const redact = redactor(secretsOf("host=db user=app password='it\\'s-secret' dbname=runs"));
    expect(redact("got it's-secret here")).toBe("got *** here");
  });

  it("leave text alone when there is nothing secret", () => {
    expect(redactor([])("anything")).toBe("anything");
    expect(secretsOf("postgres://app@db/runs")).toEqual(["postgres://app@db/runs"]);
  });
});
