// redact and redactCut on secrets a JSON encoder escaped, and on a cut that two secrets start
// (the finding itself is core's secretSpans and secretStartAtEnd, tested there).
import { describe, expect, it } from "vitest";
import { redact, redactCut } from "./redact.js";

const KEY = "sk-test-Ab/Cd+EfGh1234567890";
/** Every character as `\uXXXX`, in the given letter case. */
const allEscaped = (text: string, upper = false) =>
  [...text]
    .map((c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, "0");
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join("");

describe("redact: JSON-escaped spellings", () => {
  const spellings: Record<string, string> = {
    "first character \\u-escaped": `\\u0073${KEY.slice(1)}`,
    "slash escaped (PHP, Java)": KEY.replace("/", "\\/"),
    "every character escaped": allEscaped(KEY),
    "every character escaped, upper-case hex": allEscaped(KEY, true),
    "escaped twice (JSON inside a JSON string)": `\\\\u0073${KEY.slice(1).replace("/", "\\\\\\/")}`,
  };
  for (const [how, spelled] of Object.entries(spellings)) {
    it(how, () => {
      const body = `{"error":{"param":"key ${spelled}","next":"kept"}}`;
      expect(redact(body, [KEY])).toBe('{"error":{"param":"key [redacted]","next":"kept"}}');
    });
  }

  it("replaces the key as written and escaped in one text, and a Bearer token escaped", () => {
    const text = `a ${KEY} b ${KEY.replace("/", "\\/")} c \\u0074ok-abcdef d`;
    expect(redact(text, [KEY, "Bearer tok-abcdef"])).toBe(
      "a [redacted] b [redacted] c [redacted] d",
    );
  });

  it("leaves backslashes that spell no secret as they were", () => {
    const text = String.raw`C:\temp\new {"a":"\u0041\/\n"} trailing \ `;
    expect(redact(text, [KEY])).toBe(text);
  });

  it("maps the span back over escapes of other characters before it", () => {
    const text = `\\u00e9\\n\\"${KEY.replace("/", "\\/")}\\"`;
    expect(redact(text, [KEY])).toBe('\\u00e9\\n\\"[redacted]\\"');
  });
});

describe("redact: percent-encoded spellings", () => {
  it("replaces a key echoed in a URL, with upper- or lower-case hex", () => {
    const key = "sk-test-Ab/Cd+EfGh1234567890";
    const text =
      "bad request to /v1?key=sk-test-Ab%2FCd%2BEfGh1234567890 (or %2f: sk-test-Ab%2fCd%2bEfGh1234567890)";
    expect(redact(text, [key])).toBe("bad request to /v1?key=[redacted] (or %2f: [redacted])");
    expect(redact("Bearer-echo: tok%2Fabc%2Bdef", ["Bearer tok/abc+def"])).toBe(
      "Bearer-echo: [redacted]",
    );
  });
});

describe("redactCut: the start of a secret at a cut", () => {
  const KEY2 = "sk-proj-0123456789abcdefghij"; // longer, starts with "s" like the token's "ds"
  const TOKEN = "tok_9a8b7c6ds5e4f3g2";

  it("cuts the longest start over all secrets, not the first secret that matches", () => {
    const cut = `upstream rejected credential ${TOKEN.slice(0, 13)}`; // ends "...6ds"
    // The long key matches one character ("s"), the token thirteen: the token's start goes.
    expect(redactCut(cut, [KEY2, TOKEN])).toBe("upstream rejected credential [redacted]");
    expect(redactCut(cut, [TOKEN, KEY2])).toBe("upstream rejected credential [redacted]");
  });

  it("takes a shorter secret's longer match over longer secrets' shorter ones", () => {
    const longest = "r-starts-the-longest-secret-of-all";
    const long = "cr-starts-a-long-secret";
    const short = "short-secret";
    // longest matches "r", long matches "cr", short matches "short-secr".
    expect(redactCut("text short-secr", [longest, long, short])).toBe("text [redacted]");
  });

  it("cuts a start written with escapes, even one cut inside an escape", () => {
    const escaped = KEY.replace("/", "\\/");
    for (const n of [3, 11, 12, 14, 20]) {
      expect(redactCut(`key ${escaped.slice(0, n)}`, [KEY])).toBe("key [redacted]");
    }
    // Cut inside a `\u` escape: `\`, `\u`, `\u0`, `\u00`, `\u007`.
    for (const n of [1, 2, 3, 4, 5]) {
      expect(redactCut(`key sk-test-Ab${"\\u002f".slice(0, n)}`, [KEY])).toBe("key [redacted]");
    }
    expect(redactCut(`key ${allEscaped(KEY).slice(0, 40)}`, [KEY])).toBe("key [redacted]");
  });

  it("leaves a text alone when its end starts no secret", () => {
    expect(redactCut("body ends here", [KEY, TOKEN])).toBe("body ends here");
    expect(redactCut(`whole ${KEY}`, [KEY])).toBe("whole [redacted]");
    // Cut inside the escape of a character no secret starts with (`\u00e9`, "é").
    expect(redactCut("caf\\u00e", [KEY, TOKEN])).toBe("caf\\u00e");
  });
});
