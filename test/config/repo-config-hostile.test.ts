// parseRepoConfigText on hostile text: every failure is a RepoConfigError with short lines,
// duplicate keys are found at any depth (in one pass, not the reader's pairwise check), and
// YAML warnings are not printed to the bot's stderr.
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseRepoConfigText, RepoConfigError } from "../../src/config/parse-repo-config.ts";

const problemsOf = (text: string): string[] => {
  try {
    parseRepoConfigText(text);
  } catch (error) {
    if (error instanceof RepoConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a RepoConfigError");
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("repo config: hostile text", () => {
  it("a duplicate key inside a list of mappings, with its position", () => {
    expect(problemsOf("paths:\n  - a\ntest:\n  env:\n    X: '1'\nlist:\n  - {k: 1, k: 2}\n")).toEqual([
      'the key "k" is given twice (the second at line 7, column 12): keep one',
    ]);
  });

  it("an unknown tag is read as its value, with no warning printed", () => {
    const warn = vi.spyOn(process, "emitWarning");
    expect(parseRepoConfigText("label: !shout autogen\n").label).toBe("autogen");
    expect(warn).not.toHaveBeenCalled();
  });

  it("many problems: at most 20 shown, each at most 300 characters, and how many more there are", () => {
    const problems = new RepoConfigError(Array.from({ length: 51 }, (_, i) => `problem ${i} ${"y".repeat(i * 20)}`))
      .problems;
    expect(problems).toHaveLength(21);
    expect(problems.at(-1)).toBe("and 31 more problems");
    for (const problem of problems) expect(problem.length).toBeLessThanOrEqual(300);
    const long = problemsOf(`${"k".repeat(5000)}: 1\n`);
    expect(long).toHaveLength(1);
    expect(long[0]?.length).toBeLessThanOrEqual(300);
    expect(problems[20 - 1]?.endsWith("…")).toBe(true);
  });

  it("aliases used a few times are fine; an alias bomb is one clear line", () => {
    expect(parseRepoConfigText("test:\n  env:\n    A: &v 'x'\n    B: *v\n").test.env).toEqual({ A: "x", B: "x" });
    expect(
      problemsOf(
        [
          "a: &a [x, x, x, x, x, x, x, x]",
          "b: &b [*a, *a, *a, *a, *a, *a, *a, *a]",
          "c: [*b, *b, *b, *b, *b, *b, *b, *b]",
        ].join("\n"),
      ),
    ).toEqual([
      "uses YAML aliases (*name) more than 50 times in all, the limit that stops alias bombs: write the values out",
    ]);
  });
});
