import { describe, expect, it } from "vitest";
import { referencesView, undoReferences } from "./html-references.js";

describe("referencesView", () => {
  it("undoes numeric and named references and maps each character to where it began", () => {
    const view = referencesView("a&#x2F;b&amp;c&#128512;d");
    expect(view?.text).toBe("a/b&c😀d");
    // The emoji is two UTF-16 units, both from the one reference at 14.
    expect([...(view?.starts ?? [])]).toEqual([0, 1, 7, 8, 13, 14, 14, 23, 24]);
  });

  it("ends the text where a reference was cut off by the end of the text", () => {
    for (const cut of ["&", "&#", "&#x", "&#x2", "&am", "&#4"]) {
      const view = referencesView(`key${cut}`);
      expect(view?.text).toBe("key");
      expect(view?.starts[3]).toBe(3);
    }
  });

  it("is undefined for text whose reading is the same", () => {
    expect(referencesView("plain text")).toBeUndefined();
    expect(referencesView("a=1&b=2 & c &unknown; &#xZZ; &#99999999;")).toBeUndefined();
  });

  it("reads the same text without positions", () => {
    expect(undoReferences("&lt;&#60;&#x3c;&LT;")).toBe("<<<<");
  });
});
