// The reproduce prompt's examples of the repository's tests: the openings of the (at most two)
// test files most about the code located, sharing 1,500 characters, each cut at a line's end, so
// the examples show the style (imports, a first test) and not half the suite.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { testExamples } from "../../../src/engine/reproduce/reproduce-issue.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "test-examples-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const longTests = (module: string, n: number) =>
  `from ${module} import parse\n\n` +
  Array.from({ length: n }, (_, i) => `def test_case_${i}():\n    assert parse("${"x".repeat(i % 7)}") == ${i}\n`).join(
    "\n",
  );

describe("testExamples", () => {
  it("shows the opening of the test files about the located module, cut at a line's end", async () => {
    const dir = repo({
      "pkg/parser.py": "def parse(s):\n    return len(s)\n",
      "pkg/other.py": "def other():\n    return 1\n",
      "tests/test_parser.py": longTests("pkg.parser", 200),
      "tests/test_other.py": "from pkg.other import other\n\ndef test_other():\n    assert other() == 1\n",
      "tests/test_zzz.py": longTests("pkg.other", 3),
    });
    const text = await testExamples({ workspace: dir, isTestFile }, ["pkg/parser.py"]);
    const parts = text.split(/^--- /m).filter(Boolean);
    // The first file's opening takes the room: no second file.
    expect(parts).toHaveLength(1);
    // The file about the located module comes first, its opening only: imports and the first tests.
    expect(parts[0]).toMatch(/^tests\/test_parser\.py\nfrom pkg\.parser import parse\n\ndef test_case_0\(\):/);
    expect(parts[0]).not.toContain("test_case_199");
    // Cut at a line's end: the last line shown is whole.
    expect(parts[0]?.trimEnd().split("\n").at(-1)).toMatch(
      /^(def test_case_\d+\(\):| {4}assert parse\("x*"\) == \d+)$/,
    );
    expect((parts[0] ?? "").length).toBeLessThanOrEqual(1_500 + "tests/test_parser.py\n".length + 2);
  });

  it("shows a second file only in the room the first left, the two within 1,500 characters", async () => {
    const dir = repo({
      "pkg/parser.py": "def parse(s):\n    return len(s)\n",
      "tests/test_parser.py": longTests("pkg.parser", 20),
      "tests/test_zzz.py": longTests("pkg.other", 200),
    });
    const text = await testExamples({ workspace: dir, isTestFile }, ["pkg/parser.py"]);
    const parts = text.split(/^--- /m).filter(Boolean);
    expect(parts.map((p) => p.split("\n")[0])).toEqual(["tests/test_parser.py", "tests/test_zzz.py"]);
    const shown = parts.map((p) => p.slice(p.indexOf("\n") + 1).trimEnd());
    expect(shown[0]).toContain("test_case_19");
    expect(shown.join("").length).toBeLessThanOrEqual(1_500);
  });
});
