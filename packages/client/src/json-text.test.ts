import { describe, expect, it } from "vitest";
import { dataJson } from "./json-text.js";

describe("dataJson", () => {
  it("is JSON.stringify of the data, and {} for none or an empty object", () => {
    expect(dataJson(undefined)).toBe("{}");
    expect(dataJson({})).toBe("{}");
    expect(dataJson({ by: "ann", n: 1 })).toBe('{"by":"ann","n":1}');
    expect(dataJson(Object.create(null))).toBe("{}");
  });

  it("leaves an empty object with a toJSON of its own, or a class instance, to JSON", () => {
    const own = Object.defineProperty({}, "toJSON", { value: () => ({ from: "toJSON" }) });
    expect(dataJson(own)).toBe('{"from":"toJSON"}');
    class Stamp {
      toJSON() {
        return "stamp";
      }
    }
    expect(dataJson(new Stamp() as unknown as Record<string, unknown>)).toBe('"stamp"');
  });
});
