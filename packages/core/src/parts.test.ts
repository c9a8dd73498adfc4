import { describe, expect, it } from "vitest";
import {
  ContentPartError,
  checkParts,
  imageParts,
  MAX_PART_BYTES,
  MAX_PARTS,
  MAX_PARTS_BYTES,
  messageParts,
  partsAsText,
  toolResultText,
} from "./parts.js";

const PNG = "iVBORw0KGgo=";

describe("content parts", () => {
  it("checks text, image and resource parts and copies only their known keys", () => {
    const parts = checkParts([
      { type: "text", text: "a chart", extra: 1 },
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "resource", uri: "file:///r.txt", mimeType: "text/plain", text: "hello" },
    ]);
    expect(parts).toEqual([
      { type: "text", text: "a chart" },
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "resource", uri: "file:///r.txt", mimeType: "text/plain", text: "hello" },
    ]);
    expect(JSON.parse(JSON.stringify(parts))).toEqual(parts);
    expect(imageParts(parts)).toEqual([{ type: "image", mimeType: "image/png", data: PNG }]);
  });

  it("refuses malformed parts with a typed error naming the part, never its data", () => {
    const cases: [unknown, RegExp][] = [
      ["nope", /parts is not a list/],
      [[{ type: "video" }], /part 0: has an unknown type: video/],
      [[{ type: "image", mimeType: "image/svg+xml", data: PNG }], /part 0: its image type/],
      [
        [{ type: "image", mimeType: "image/png", data: "not base64!" }],
        /part 0: its data is not base64/,
      ],
      [[{ type: "text" }], /part 0: has no text/],
      [[{ type: "resource" }], /part 0: has no uri/],
    ];
    for (const [parts, message] of cases) {
      const thrown = (() => {
        try {
          checkParts(parts);
        } catch (error) {
          return error;
        }
      })();
      expect(thrown).toBeInstanceOf(ContentPartError);
      expect((thrown as ContentPartError).code).toBe("content_part");
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain("not base64!");
    }
  });

  it("caps the parts per result, the characters per part and the characters in all", () => {
    const text = { type: "text", text: "x" };
    expect(() => checkParts(Array.from({ length: MAX_PARTS + 1 }, () => text))).toThrow(
      `${MAX_PARTS + 1} parts, over ${MAX_PARTS}`,
    );
    const big = "A".repeat(MAX_PART_BYTES + 4);
    expect(() => checkParts([{ type: "image", mimeType: "image/png", data: big }])).toThrow(
      /part 0: its data is \d+ characters, over/,
    );
    const half = { type: "text", text: "y".repeat(MAX_PART_BYTES) };
    const count = Math.floor(MAX_PARTS_BYTES / MAX_PART_BYTES) + 1;
    expect(() => checkParts(Array.from({ length: count }, () => half))).toThrow(
      /the parts reach \d+ characters, over/,
    );
  });

  it("messageParts drops bad parts with a note for the model, and none for no parts", () => {
    expect(messageParts(undefined)).toEqual({});
    expect(messageParts([])).toEqual({});
    expect(messageParts([{ type: "image", mimeType: "image/png", data: PNG }])).toEqual({
      parts: [{ type: "image", mimeType: "image/png", data: PNG }],
    });
    expect(messageParts([{ type: "video" }])).toEqual({
      note: "[the tool's content parts were left out: part 0: has an unknown type: video]",
    });
  });

  it("partsAsText gives resources and left-out images as text for text-only models", () => {
    const parts = checkParts([
      { type: "image", mimeType: "image/jpeg", data: PNG },
      { type: "resource", uri: "mem://a", text: "body" },
      { type: "resource", uri: "mem://b", mimeType: "application/pdf" },
    ]);
    expect(partsAsText(parts)).toBe(
      "[image (image/jpeg) left out: this model reads only text here]\n[resource mem://a]\nbody\n[resource mem://b (application/pdf)]",
    );
    expect(partsAsText(parts, false)).toBe(
      "[resource mem://a]\nbody\n[resource mem://b (application/pdf)]",
    );
    expect(partsAsText(undefined)).toBe("");
  });

  it("toolResultText puts resources (and images not sent) after the content", () => {
    const parts = checkParts([
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "resource", uri: "mem://a", text: "body" },
    ]);
    expect(toolResultText("out", parts, true)).toBe("out\n[resource mem://a]\nbody");
    expect(toolResultText("", parts, false)).toBe(
      "[image (image/png) left out: this model reads only text here]\n[resource mem://a]\nbody",
    );
    expect(toolResultText("out", undefined, false)).toBe("out");
  });
});
