import { describe, expect, it } from "vitest";
import { dataText } from "./events.js";

describe("dataText", () => {
  it("is JSON.stringify of the data, and {} for none or an empty object", () => {
    expect(dataText(undefined)).toBe("{}");
    expect(dataText({})).toBe("{}");
    expect(dataText({ by: "ann", n: 1 })).toBe('{"by":"ann","n":1}');
    expect(dataText(Object.create(null))).toBe("{}");
  });

  it("leaves an empty object with a toJSON of its own, or a class instance, to JSON", () => {
    const own = Object.defineProperty({}, "toJSON", { value: () => ({ from: "toJSON" }) });
    expect(dataText(own)).toBe('{"from":"toJSON"}');
    class Stamp {
      toJSON() {
        return "stamp";
      }
    }
    expect(dataText(new Stamp() as unknown as Record<string, unknown>)).toBe('"stamp"');
  });
});
