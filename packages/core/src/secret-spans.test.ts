import { describe, expect, it } from "vitest";
import { replaceSecrets, secretSpans, secretSpellings, secretStartAtEnd } from "./secret-spans.js";

const KEY = "sk-test-Ab/Cd+EfGh1234567890";
/** `text` with every character a `\uXXXX` escape. */
const allEscaped = (text: string) =>
  text.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
/** The same with upper-case hex digits. */
const allEscapedUpper = (text: string) => allEscaped(text).toUpperCase().replaceAll("\\U", "\\u");

describe("secretSpans", () => {
  const spellings: Record<string, string> = {
    "as written": KEY,
    "first character \\u-escaped": `\\u0073${KEY.slice(1)}`,
    "slash escaped (PHP, Java)": KEY.replace("/", "\\/"),
    "every character escaped": allEscaped(KEY),
    "every character escaped, upper-case hex": allEscapedUpper(KEY),
    "escaped twice (JSON inside a JSON string)": `\\\\u0073${KEY.slice(1).replace("/", "\\\\\\/")}`,
    "escaped three times": `\\\\\\\\u0073${KEY.slice(1)}`,
  };
  for (const [how, spelled] of Object.entries(spellings)) {
    it(`finds a secret ${how}, the whole spelling and nothing else`, () => {
      const body = `{"param":"key ${spelled}","next":"kept"}`;
      const start = body.indexOf(spelled);
      expect(secretSpans(body, [KEY])).toEqual([[start, start + spelled.length]]);
      expect(replaceSecrets(body, [KEY], "***")).toBe('{"param":"key ***","next":"kept"}');
    });
  }

  it("maps a span back over escapes of other characters before it", () => {
    const text = `\\u00e9\\n\\"${KEY.replace("/", "\\/")}\\"`;
    expect(secretSpans(text, [KEY])).toEqual([[10, 10 + KEY.length + 1]]);
  });

  it("finds nothing in backslashes that spell no secret, and replaces nothing", () => {
    const text = String.raw`C:\temp\new {"a":"\u0041\/\n"} trailing \ `;
    expect(secretSpans(text, [KEY])).toEqual([]);
    expect(replaceSecrets(text, [KEY], "***")).toBe(text);
  });

  it("merges overlapping secrets so that no fragment is left; touching ones stay apart", () => {
    const secrets = ["abcdef", "defghi", "zzzz"];
    expect(replaceSecrets("xabcdefghiy", secrets, "*")).toBe("x*y");
    expect(replaceSecrets("zzzzzzzz", secrets, "*")).toBe("*");
    expect(replaceSecrets("abcdef abcdef", secrets, "*")).toBe("* *");
    expect(replaceSecrets("abcdefdefghi", secrets, "*")).toBe("**");
    // One as written, the other escaped, sharing "def".
    expect(secretSpans("[abcd\\u0065fghi]", secrets)).toEqual([[1, 15]]);
  });

  it("ignores an empty secret", () => {
    expect(secretSpans("text \\/", ["", "text"])).toEqual([[0, 4]]);
  });
});

describe("secretSpans in HTML", () => {
  // How escapers write the key's "/" and "+": Go's html/template, OWASP's encoder, PHP's
  // htmlspecialchars on a key with "&" in it, and zero-padded or upper-case references.
  const html: Record<string, string> = {
    "decimal references": KEY.replace("/", "&#47;").replace("+", "&#43;"),
    "hex references": KEY.replace("/", "&#x2f;").replace("+", "&#x2b;"),
    "upper-case hex references": KEY.replace("/", "&#X2F;").replace("+", "&#x2B;"),
    "zero-padded references": KEY.replace("/", "&#00047;").replace("+", "&#x002b;"),
    "every character a reference": [...KEY].map((c) => `&#${c.charCodeAt(0)};`).join(""),
  };
  for (const [how, spelled] of Object.entries(html)) {
    it(`finds a secret written with ${how}, the whole spelling`, () => {
      const page = `<html><body><p>Invalid key ${spelled}</p> &amp; more</body></html>`;
      const start = page.indexOf(spelled);
      expect(secretSpans(page, [KEY])).toEqual([[start, start + spelled.length]]);
    });
  }

  it("finds named references (&amp; &lt; &gt; &quot; &apos;) in a secret", () => {
    const secret = `p&ss<wo>rd"with'quotes`;
    const page = `<pre>password=p&amp;ss&lt;wo&gt;rd&quot;with&apos;quotes</pre>`;
    expect(replaceSecrets(page, [secret], "***")).toBe("<pre>password=***</pre>");
  });

  it("finds JSON escapes inside HTML (a JSON body quoted on an error page)", () => {
    const page = `<pre>{&quot;key&quot;:&quot;\u0073${KEY.slice(1).replace("/", "\\/")}&quot;}</pre>`;
    expect(replaceSecrets(page, [KEY], "***")).toBe("<pre>{&quot;key&quot;:&quot;***&quot;}</pre>");
  });

  it("leaves ampersands that are no references, and text with none, as they are", () => {
    const text = "GET /a?x=1&y=2&amp=3 & done &unknown; &#xZZ;";
    expect(secretSpans(text, [KEY])).toEqual([]);
    expect(replaceSecrets(`${text} ${KEY}`, [KEY], "*")).toBe(`${text} *`);
  });
});

describe("secretStartAtEnd", () => {
  it("finds the longest start over all secrets, not the first secret's", () => {
    const longest = "r-starts-the-longest-secret-of-all";
    const long = "cr-starts-a-long-secret";
    const short = "short-secret";
    // longest matches "r", long matches "cr", short matches "short-secr".
    expect(secretStartAtEnd("text short-secr", [longest, long, short])).toBe(5);
  });

  it("finds a start written with escapes, even one cut inside an escape", () => {
    const escaped = KEY.replace("/", "\\/");
    for (const n of [3, 11, 12, 14, 20]) {
      expect(secretStartAtEnd(`key ${escaped.slice(0, n)}`, [KEY])).toBe(4);
    }
    // Cut inside a `\u` escape: `\`, `\u`, `\u0`, `\u00`, `\u002`, in either case.
    for (const n of [1, 2, 3, 4, 5]) {
      expect(secretStartAtEnd(`key sk-test-Ab${"\\u002f".slice(0, n)}`, [KEY])).toBe(4);
      expect(secretStartAtEnd(`key sk-test-Ab${"\\u002F".slice(0, n)}`, [KEY])).toBe(4);
    }
    expect(secretStartAtEnd(`key ${allEscaped(KEY).slice(0, 40)}`, [KEY])).toBe(4);
    // A cut escape alone may be a secret's first character; escaped twice too.
    expect(secretStartAtEnd('{"k":"\\u00', [KEY])).toBe(6);
    expect(secretStartAtEnd('{"k":"\\\\u00', [KEY])).toBe(6);
  });

  it("finds a start written with HTML references, even one cut inside a reference", () => {
    const spelled = KEY.replace("/", "&#x2F;");
    for (const n of [11, 12, 15, 16, 17, 20]) {
      expect(secretStartAtEnd(`key ${spelled.slice(0, n)}`, [KEY])).toBe(4);
    }
  });

  it("is -1 when the end starts no secret", () => {
    expect(secretStartAtEnd("body ends here", [KEY, "tok_9a8b7c6ds"])).toBe(-1);
    expect(secretStartAtEnd(`whole ${KEY}`, [KEY])).toBe(-1);
    // Cut inside the escape of a character no secret starts with (`\u00e9`, "é").
    expect(secretStartAtEnd("caf\\u00e", [KEY])).toBe(-1);
    expect(secretStartAtEnd("", [KEY, ""])).toBe(-1);
  });
});

describe("secretSpellings", () => {
  it("gives the value and its percent-encodings with upper- and lower-case hex", () => {
    expect(secretSpellings(KEY)).toEqual([
      KEY,
      "sk-test-Ab%2FCd%2BEfGh1234567890",
      "sk-test-Ab%2fCd%2bEfGh1234567890",
    ]);
    const text = `GET /v1?key=sk-test-Ab%2fCd%2bEfGh1234567890&key2=${encodeURIComponent(KEY)}`;
    expect(replaceSecrets(text, secretSpellings(KEY), "***")).toBe("GET /v1?key=***&key2=***");
  });

  it("gives only the value when encoding changes nothing or cannot be done", () => {
    expect(secretSpellings("plain-token_123")).toEqual(["plain-token_123"]);
    // A lone surrogate cannot be percent-encoded (encodeURIComponent throws).
    expect(secretSpellings("ab\ud800cd")).toEqual(["ab\ud800cd"]);
  });
});
