import { describe, expect, it } from "vitest";
import { literalMatcher } from "../../src/secrets/literal-matcher.ts";

describe("literal matcher", () => {
  it("finds every occurrence of every literal, overlapping ones included", () => {
    const find = literalMatcher(["abcdefghij", "ghijklmnop", "0123456789abcdef", "short"]);
    const text = "xx abcdefghijklmnop yy 0123456789abcdef abcdefghij short";
    const found = find(text)
      .map(([start, end]) => text.slice(start, end))
      .sort();
    expect(found).toEqual(["0123456789abcdef", "abcdefghij", "abcdefghij", "ghijklmnop"]);
  });

  it("a literal at the very start or end of the text, and one whose middle repeats", () => {
    const find = literalMatcher(["aaaaaaaaaaab"]);
    expect(find("aaaaaaaaaaaaaaab")).toEqual([[4, 16]]);
    expect(literalMatcher(["abcdefgh"])("abcdefgh")).toEqual([[0, 8]]);
  });

  it("no literals, no matches", () => {
    expect(literalMatcher([])("anything")).toEqual([]);
  });
});
