import { describe, expect, it } from "vitest";
import { joinedViews } from "../../src/secrets/joined-lines.ts";

describe("joined views of a text", () => {
  it("a text on one line has none", () => {
    expect(joinedViews("one line, no breaks")).toEqual([]);
  });

  it("drops breaks, indentation and Actions timestamps, and maps a range back", () => {
    const text = "key: abc  \n    def\r\n2024-05-01T10:00:00.1234567Z ghi\\njkl end";
    const [view, ...others] = joinedViews(text);
    expect(others).toEqual([]);
    expect(view?.text).toBe("key: abcdefghijkl end");
    const start = view?.text.indexOf("abc") ?? -1;
    const [from, to] = view?.toOriginal([start, start + "abcdefghijkl".length]) ?? [0, 0];
    expect(text.slice(from, to)).toBe("abc  \n    def\r\n2024-05-01T10:00:00.1234567Z ghi\\njkl");
  });

  it("a second view also drops string concatenation and a diff's +/- column; the first keeps a + that base64 may end a line with", () => {
    const text = 'x = "abc" +\n+    "def"\nAB+\n/CD';
    const views = joinedViews(text).map((view) => view.text);
    expect(views).toEqual(['x = "abc" ++    "def"AB+/CD', 'x = "abcdefAB/CD']);
  });

  it("next to an escaped break (\\n in a string literal) a + belongs to the string, not to concatenation", () => {
    const text = 'k = "AB+\\n+CD" +\n  "EF"';
    expect(joinedViews(text).map((view) => view.text)).toEqual(['k = "AB++CD" +"EF"', 'k = "AB++CDEF"']);
  });
});
