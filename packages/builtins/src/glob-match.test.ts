import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globTool } from "./glob.js";
import { globMatcher, globToRegExp, matchGlob } from "./glob-match.js";
import { type Sandbox, sandbox } from "./test-support.js";

/** A small seeded generator, so the differential test is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe("glob matching without backtracking", () => {
  it("answers star-heavy globs that a backtracking RegExp takes seconds on", () => {
    const name = "a".repeat(60);
    expect(matchGlob(name, `${"*a".repeat(6)}*b`)).toBe(false);
    expect(matchGlob(`${name}b`, `${"*a".repeat(6)}*b`)).toBe(true);
    expect(matchGlob(`x/${name}`, `**/${"*a".repeat(12)}*b`)).toBe(false);
    const deep = Array.from({ length: 40 }, () => "a").join("/");
    expect(matchGlob(deep, `${"**/a/".repeat(10)}b`)).toBe(false);
    expect(matchGlob(deep, `${"**/a/".repeat(10)}**`)).toBe(true);
    expect(matchGlob(name, `${"{*a,a*}".repeat(15)}!`)).toBe(false);
  });

  it("parses a long run of unclosed braces (each parsed once) as literals", () => {
    const braces = "{".repeat(40);
    expect(globToRegExp(braces).source).toBe(`^${"\\{".repeat(40)}$`);
    expect(matchGlob(braces, braces)).toBe(true);
    expect(matchGlob(`${braces}x`, braces)).toBe(false);
  });

  it("compiles to the same RegExp sources as before", () => {
    const sources: [string, string][] = [
      ["a/**", "^a(?:\\/.*)?$"],
      ["**/a", "^(?:[^/]*\\/)*a$"],
      ["{a,b}/**", "^(?:a|b)(?:\\/.*)?$"],
      ["[!a]?", "^[^/a][^/]$"],
      ["\\*", "^\\*$"],
      ["a{b,{c,d}}", "^a(?:b|(?:c|d))$"],
      ["[ab]/**/b", "^[ab]\\/(?:[^/]*\\/)*b$"],
      ["**a", "^.*a$"],
      ["a**", "^a.*$"],
      ["[]a]", "^[\\]a]$"],
      ["{a,b", "^\\{a,b$"],
      ["}{a}", "^\\}(?:a)$"],
      ["a/**/", "^a\\/(?:[^/]*\\/)*$"],
      ["x/{a,b/**}", "^x\\/(?:a|b\\/.*)$"],
      ["[a-c", "^\\[a-c$"],
      ["{{a}", "^\\{(?:a)$"],
    ];
    for (const [glob, source] of sources)
      expect([glob, globToRegExp(glob).source]).toEqual([glob, source]);
  });

  it("agrees with globToRegExp on thousands of generated globs and paths", () => {
    const random = seeded(7);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    const tokens = ["a", "b", "/", "*", "**", "?", "[ab]", "[!a]", "[", "]", "{", "}", ","];
    const more = ["\\", ".", "{a,b}", "**/", "/**", "-", "^", "!", "(", "[a-c]", "{,a}"];
    const pieces = ["a", "b", "/", ".", "ab", "c", "{", "[", "\\", "*", "-"];
    const paths = Array.from({ length: 60 }, () => {
      let rel = "";
      for (let k = Math.floor(random() * 9); k > 0; k--) rel += pick(pieces);
      return rel;
    });
    let compared = 0;
    const disagreements: unknown[] = [];
    for (let i = 0; i < 3000; i++) {
      let glob = "";
      for (let k = 1 + Math.floor(random() * 7); k > 0; k--) glob += pick([...tokens, ...more]);
      let re: RegExp;
      try {
        re = globToRegExp(glob);
      } catch {
        expect(() => globMatcher(glob)).toThrow(SyntaxError);
        continue;
      }
      const matcher = globMatcher(glob);
      for (const rel of paths) {
        const name = glob.includes("/") ? rel : rel.slice(rel.lastIndexOf("/") + 1);
        const matched = matcher(rel);
        if (matched !== re.test(name)) disagreements.push({ glob, rel, matched });
        compared++;
      }
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
  });
});

describe("glob tool on a star-heavy pattern", () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await sandbox();
  });
  afterEach(async () => {
    await box.cleanup();
  });

  it("lists nothing (and is not cut short) for a 60-character name", async () => {
    await writeFile(path.join(box.root, "a".repeat(60)), "");
    await writeFile(path.join(box.root, `${"a".repeat(20)}b`), "");
    const glob = globTool({ root: box.root });
    const results = await Promise.all(
      [4, 5, 6, 8].map((k) => glob.execute({ pattern: `${"*a".repeat(k)}*b` }, { timeout: 5_000 })),
    );
    for (const result of results) {
      expect(result).toEqual({
        output: `${"a".repeat(20)}b`,
        isError: false,
        metadata: { count: 1 },
      });
    }
  });
});
