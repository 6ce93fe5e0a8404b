import { describe, expect, it } from "vitest";
import { spreadViews } from "../../src/secrets/spread-views.ts";

const views = (text: string) => [...spreadViews(text)];

describe("spread views of a text", () => {
  it('decodes \\u and \\x escapes (either case) and \\" \\/ \\\\, and maps a range back over whole escapes', () => {
    const text = 'k = "\\u0061b\\U0063\\x64\\u00E9\\"\\/" end';
    // \U is not an escape: only \u is.
    const [unescaped] = views(text);
    expect(unescaped?.text).toBe('k = "ab\\U0063dé"/" end');
    const start = unescaped?.text.indexOf("ab") ?? -1;
    const [from, to] = unescaped?.toOriginal([start, start + 2]) ?? [0, 0];
    expect(text.slice(from, to)).toBe("\\u0061b");
    const d = unescaped?.text.indexOf("dé") ?? -1;
    const [dFrom, dTo] = unescaped?.toOriginal([d, d + 2]) ?? [0, 0];
    expect(text.slice(dFrom, dTo)).toBe("\\x64\\u00E9");
  });

  it("an escaped backslash is one character: \\\\u0061 stays a backslash and u0061", () => {
    expect(views("x\\\\u0061 and more text")[0]?.text).toBe("x\\u0061 and more text");
  });

  it("drops every kind of whitespace, mapping back to the first and last kept character", () => {
    const text = "ab c\t\td\r\n e\u00a0f  end";
    const compact = views(text).find((view) => view.text.startsWith("abcdef"));
    expect(compact?.text).toBe("abcdefend");
    expect(compact?.toOriginal([0, 6])).toEqual([0, text.indexOf("f") + 1]);
  });

  it("reads every other character, both ways round, and maps back", () => {
    const text = "xa-b-c-d-e-f-g-h!";
    const [even, odd] = views(text).slice(-2);
    expect(even?.text).toBe("x-------!");
    expect(odd?.text).toBe("abcdefgh");
    expect(text.slice(...(odd?.toOriginal([0, 8]) ?? [0, 0]))).toBe("a-b-c-d-e-f-g-h");
  });

  it("a short text has no every-other views; one without escapes or whitespace has no others", () => {
    expect(views("short-text")).toEqual([]);
    expect(views("no_escapes_no_blanks_here").map((view) => view.text)).toEqual(["n_sae_obak_ee", "oecpsn_lnshr"]);
  });
});
