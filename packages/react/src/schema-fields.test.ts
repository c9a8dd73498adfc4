import { describe, expect, it } from "vitest";
import { fieldsOf, words } from "./schema-fields.js";

describe("fieldsOf", () => {
  it("reads kinds, labels, defaults, choices and limits in property order", () => {
    const fields = fieldsOf({
      type: "object",
      properties: {
        replicaCount: { type: ["integer", "null"], minimum: 1, default: 2 },
        env: { enum: ["staging", "production"], title: "Environment", description: "Where" },
        size: { anyOf: [{ const: 1, title: "One" }, { const: 2 }] },
        on: { type: "boolean", description: "Switch it on" },
        name: { type: "string", minLength: 1, pattern: "^a", format: "email" },
        ratio: { type: "number", exclusiveMaximum: 1, multipleOf: 0.5 },
      },
      required: ["env"],
    });
    expect(fields.map((f) => [f.name, f.kind, f.label, f.description, f.required])).toEqual([
      ["replicaCount", "integer", "Replica count", undefined, false],
      ["env", "enum", "Environment", "Where", true],
      ["size", "enum", "Size", undefined, false],
      ["on", "boolean", "Switch it on", undefined, false],
      ["name", "text", "Name", undefined, false],
      ["ratio", "number", "Ratio", undefined, false],
    ]);
    expect(fields[0]?.defaultValue).toBe(2);
    expect(fields[2]?.choices).toEqual([
      { value: 1, label: "One" },
      { value: 2, label: "2" },
    ]);
    expect(fields[4]?.constraints).toEqual({ minLength: 1, pattern: "^a", format: "email" });
    expect(fields[5]?.constraints).toEqual({ exclusiveMaximum: 1, multipleOf: 0.5 });
  });

  it("lists one level of nesting field by field; deeper, arrays and shapes are JSON fields", () => {
    const fields = fieldsOf({
      type: "object",
      properties: {
        who: {
          type: "object",
          title: "Person",
          properties: {
            age: { type: "integer" },
            address: { type: "object", properties: { city: { type: "string" } } },
          },
          required: ["age"],
          default: { age: 40 },
        },
        tags: { type: "array", items: { type: "string" } },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["who"],
    });
    expect(fields.map((f) => [f.name, f.kind, f.group, f.required, f.inRequiredObject])).toEqual([
      ["who.age", "integer", "Person", true, true],
      ["who.address", "json", "Person", false, true],
      ["tags", "json", undefined, false, true],
      ["either", "json", undefined, false, true],
    ]);
    expect(fields[0]?.defaultValue).toBe(40); // from the object's default
  });

  it("a schema without properties is one JSON field for the whole answer", () => {
    for (const schema of [undefined, {}, { type: "object" }, { type: "array" }, "nonsense"]) {
      const fields = fieldsOf(schema);
      expect(fields.map((f) => [f.name, f.kind, f.label])).toEqual([["", "json", "Answer (JSON)"]]);
    }
  });

  it("turns property names into words", () => {
    expect(words("replicaCount")).toBe("Replica count");
    expect(words("max_retries")).toBe("Max retries");
    expect(words("x")).toBe("X");
  });
});
