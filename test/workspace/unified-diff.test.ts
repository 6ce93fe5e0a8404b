// unifiedDiff against the real `git diff --no-index` on generated files: same hunks, same
// lines, byte for byte (git's function-name trailer and ",1" shorthand normalised away).
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type * as RunGit from "../../src/workspace/run-git.ts";
import { diffStat, unifiedDiff } from "../../src/workspace/unified-diff.ts";

// The bot's own git runs counted (each still runs: the real runGitSync is called).
const gitRuns = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/workspace/run-git.ts", async (importOriginal) => {
  const real = await importOriginal<typeof RunGit>();
  return {
    ...real,
    runGitSync: (...args: Parameters<typeof real.runGitSync>) => {
      gitRuns.count += 1;
      return real.runGitSync(...args);
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), "autogen-udiff-"));

/** git's hunks for before → after, headers written the way unifiedDiff writes them. */
function gitHunks(before: string, after: string): string {
  writeFileSync(join(dir, "a"), before);
  writeFileSync(join(dir, "b"), after);
  let out = "";
  try {
    // Pinned flags so a user's diff.algorithm or indent heuristic setting cannot change git's answer.
    execFileSync(
      "git",
      [
        "-c",
        "core.quotepath=off",
        "diff",
        "--no-index",
        "--no-color",
        "--no-ext-diff",
        "--diff-algorithm=myers",
        "--no-indent-heuristic",
        "-U3",
        "a",
        "b",
      ],
      {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
      },
    );
  } catch (error) {
    // Exit status 1 means "the files differ"; anything else is a real failure.
    if ((error as { status?: number }).status !== 1) throw error;
    out = (error as { stdout: string }).stdout;
  }
  if (out === "") return "";
  const body = out.slice(out.indexOf("\n@@") + 1);
  return body.replace(
    /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*$/gm,
    (_m, a: string, ac: string | undefined, b: string, bc: string | undefined) =>
      `@@ -${a},${ac ?? "1"} +${b},${bc ?? "1"} @@`,
  );
}

function ourHunks(before: string, after: string): string {
  const diff = unifiedDiff("f", before, after);
  expect(diff === "" || diff.startsWith("--- a/f\n+++ b/f\n")).toBe(true);
  return diff.split("\n").slice(2).join("\n");
}

/** A small deterministic PRNG, so a failure names a seed that reproduces it. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Lines that repeat in real code, so the diff has ambiguous alignments to get right.
const COMMON = ["", "", "}", "  }", "    return x", "def f(x):", "import os", "    pass"];

function codeLike(rand: () => number, length: number): string[] {
  return Array.from({ length }, (_, i) =>
    rand() < 0.3
      ? (COMMON[Math.floor(rand() * COMMON.length)] as string)
      : `line ${i} value ${Math.floor(rand() * 1000)}`,
  );
}

function edit(rand: () => number, lines: string[], edits: number, tag: string): string[] {
  const out = [...lines];
  const fresh = (e: number) =>
    rand() < 0.4 ? (COMMON[Math.floor(rand() * COMMON.length)] as string) : `${tag} ${e} ${Math.floor(rand() * 1000)}`;
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (out.length + 1));
    const r = rand();
    if (r < 0.33) out.splice(at, 1 + Math.floor(rand() * 3));
    else if (r < 0.66) out.splice(at, 0, ...Array.from({ length: 1 + Math.floor(rand() * 4) }, () => fresh(e)));
    else out.splice(at, 1, fresh(e));
  }
  return out;
}

const text = (lines: string[], finalNewline = true) =>
  lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");

describe("unifiedDiff against git diff --no-index", () => {
  it("matches git on 200 generated code-like files with scattered edits", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = prng(seed);
      const before = codeLike(rand, 10 + Math.floor(rand() * 150));
      const after = edit(rand, before, 1 + Math.floor(rand() * 6), `seed ${seed}`);
      const finalA = rand() < 0.85;
      const finalB = rand() < 0.85;
      const a = text(before, finalA);
      const b = text(after, finalB);
      expect({ seed, hunks: ourHunks(a, b) }).toEqual({ seed, hunks: gitHunks(a, b) });
    }
  });

  it("matches git on a 20,000-line file edited at both ends and in the middle", () => {
    const rand = prng(20_000);
    const before = codeLike(rand, 20_000);
    const after = [...before];
    after.splice(0, 2, "first edit", "");
    after.splice(10_000, 1, "middle edit");
    after.splice(after.length - 3, 2, "last edit", "}", "added line");
    expect(ourHunks(text(before), text(after))).toBe(gitHunks(text(before), text(after)));
  });

  it("matches git when every line changed, one side is empty, or a final newline comes or goes", () => {
    const cases: [string, string, string][] = [
      ["all changed", "a\nb\nc\n", "x\ny\nz\n"],
      ["created", "", "one\ntwo\n"],
      ["emptied", "one\ntwo\n", ""],
      ["created without final newline", "", "one\ntwo"],
      ["final newline removed", "one\ntwo\n", "one\ntwo"],
      ["final newline added", "one\ntwo", "one\ntwo\n"],
      ["last line changed, neither side ends in a newline", "one\ntwo", "one\nTWO"],
      ["only blank lines", "\n\n\n", "\n\n\n\n\n"],
      ["a repeated line deleted", "x\nx\nx\nx\n", "x\nx\nx\n"],
      ["blocks swapped", "a\nb\nc\nd\ne\nf\ng\nh\n", "e\nf\ng\nh\na\nb\nc\nd\n"],
    ];
    for (const [name, a, b] of cases) expect({ name, hunks: ourHunks(a, b) }).toEqual({ name, hunks: gitHunks(a, b) });
  });

  it("asks git once for the same two texts (a candidate's change is diffed when applied, tried and accepted)", () => {
    const before = "def add(a, b):\n    return a - b\n";
    const after = "def add(a, b):\n    return a + b\n";
    const runs = gitRuns.count;
    const first = unifiedDiff("calc/ops.py", before, after);
    expect(gitRuns.count).toBe(runs + 1);
    // Another path, the same texts: git's hunks again, under this path's headers.
    expect(unifiedDiff("calc/other.py", before, after)).toBe(first.replaceAll("calc/ops.py", "calc/other.py"));
    expect(unifiedDiff("calc/ops.py", before, after)).toBe(first);
    expect(gitRuns.count).toBe(runs + 1);
    // Other texts, or other context, are git's to diff.
    expect(unifiedDiff("calc/ops.py", before, `${after}\n`)).not.toBe(first);
    expect(unifiedDiff("calc/ops.py", before, after, 0)).toBe(
      "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -2,1 +2,1 @@\n-    return a - b\n+    return a + b\n",
    );
    expect(gitRuns.count).toBe(runs + 3);
  });

  it("prints nothing for equal texts and counts lines in the stat", () => {
    expect(unifiedDiff("f", "same\n", "same\n")).toBe("");
    expect(diffStat(unifiedDiff("f", "a\nb\nc\n", "x\ny\nz\n"))).toEqual({ files: 1, added: 3, removed: 3 });
    expect(unifiedDiff("f", "", "one\ntwo")).toBe(
      "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n",
    );
  });
});
