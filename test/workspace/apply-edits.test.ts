import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyEdits, EditError } from "../../src/workspace/apply-edits.ts";
import { UnsafePathError } from "../../src/workspace/safe-path.ts";
import { unifiedDiff } from "../../src/workspace/unified-diff.ts";

const SOURCE = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * w + h\n";

async function workspace(files: Record<string, string> = { "shapes.py": SOURCE }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-edits-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

describe("applyEdits", () => {
  it("applies an exact search/replace and returns a diff git can apply", async () => {
    const dir = await workspace();
    const result = await applyEdits(dir, [
      { kind: "replace", path: "shapes.py", search: "return 2 * w + h", replace: "return 2 * (w + h)" },
    ]);
    expect(await readFile(join(dir, "shapes.py"), "utf8")).toContain("return 2 * (w + h)");
    expect(result.files).toEqual(["shapes.py"]);
    expect(result.stat).toEqual({ files: 1, added: 1, removed: 1 });
    const check = await workspace();
    await writeFile(join(check, "fix.diff"), result.diff);
    execFileSync("git", ["apply", "--check", "fix.diff"], { cwd: check });
  });

  it("writes a diff git accepts for files without a final newline", async () => {
    const files = { "a.txt": "one\ntwo" };
    const dir = await workspace(files);
    const result = await applyEdits(dir, [{ kind: "replace", path: "a.txt", search: "two", replace: "three\n" }]);
    expect(result.diff).toContain("-two\n\\ No newline at end of file\n+three\n");
    const check = await workspace(files);
    await writeFile(join(check, "fix.diff"), result.diff);
    execFileSync("git", ["apply", "fix.diff"], { cwd: check });
    expect(await readFile(join(check, "a.txt"), "utf8")).toBe("one\nthree\n");
  });

  it("falls back to a whitespace-tolerant match and keeps the file's indentation", async () => {
    const dir = await workspace();
    await applyEdits(dir, [
      {
        kind: "replace",
        path: "shapes.py",
        search: "def perimeter(w, h):\n  return 2 * w + h",
        replace: "def perimeter(w, h):\n  return 2 * (w + h)",
      },
    ]);
    expect(await readFile(join(dir, "shapes.py"), "utf8")).toBe(
      SOURCE.replace("    return 2 * w + h", "    return 2 * (w + h)"),
    );
  });

  it("refuses an ambiguous search, naming the lines", async () => {
    const dir = await workspace({ "a.py": "x = 1\ny = 2\nx = 1\n" });
    await expect(
      applyEdits(dir, [{ kind: "replace", path: "a.py", search: "x = 1", replace: "x = 3" }]),
    ).rejects.toThrow("the search text matches 2 places (lines 1, 3); include more surrounding lines");
  });

  it("shows the closest region when the search text is not found, and changes nothing", async () => {
    const dir = await workspace();
    const attempt = applyEdits(dir, [
      { kind: "create", path: "new.py", content: "print('hi')\n" },
      {
        kind: "replace",
        path: "shapes.py",
        search: "def perimeter(width, height):\n    return 2 * width + height",
        replace: "...",
      },
    ]);
    await expect(attempt).rejects.toThrow(EditError);
    await expect(attempt).rejects.toThrow(
      /edit 2 \(replace shapes\.py\): the search text was not found\. The closest region of the file is:\n4\|\n5\|def perimeter\(w, h\):\n6\| {4}return 2 \* w \+ h/,
    );
    expect(existsSync(join(dir, "new.py"))).toBe(false);
    expect(await readFile(join(dir, "shapes.py"), "utf8")).toBe(SOURCE);
  });

  it("creates, deletes and renames files", async () => {
    const dir = await workspace({ "old.py": "A = 1\n", "gone.py": "B = 2\n" });
    const result = await applyEdits(dir, [
      { kind: "create", path: "pkg/new.py", content: "C = 3\n" },
      { kind: "delete", path: "gone.py" },
      { kind: "rename", from: "old.py", to: "pkg/renamed.py" },
    ]);
    expect(result.files).toEqual(["gone.py", "old.py", "pkg/new.py", "pkg/renamed.py"]);
    expect(await readFile(join(dir, "pkg/renamed.py"), "utf8")).toBe("A = 1\n");
    expect(existsSync(join(dir, "gone.py"))).toBe(false);
    expect(result.diff).toContain("--- /dev/null\n+++ b/pkg/new.py");
    expect(result.diff).toContain("--- a/gone.py\n+++ /dev/null");
  });

  it("refuses paths outside the repository, through symlinks, or into .git", async () => {
    const dir = await workspace();
    await mkdir(join(dir, ".git", "hooks"), { recursive: true });
    const outside = await mkdtemp(join(tmpdir(), "autogen-outside-"));
    await symlink(outside, join(dir, "link"));
    const tryPath = (path: string) => applyEdits(dir, [{ kind: "create", path, content: "x" }]);
    await expect(tryPath("../escape.py")).rejects.toThrow(UnsafePathError);
    await expect(tryPath("a/../../escape.py")).rejects.toThrow("it leaves the repository");
    await expect(tryPath("/etc/passwd")).rejects.toThrow("absolute paths are not allowed");
    await expect(tryPath(".git/hooks/pre-commit")).rejects.toThrow("the .git directory is off limits");
    await expect(tryPath("sub/.GIT/config")).rejects.toThrow("the .git directory is off limits");
    await expect(tryPath("link/planted.py")).rejects.toThrow("it goes through a symbolic link");
    expect(existsSync(join(outside, "planted.py"))).toBe(false);
  });

  it("refuses to edit a file that is a link (symbolic or hard) to a file outside, and leaves that file as it was", async () => {
    const dir = await workspace();
    const outside = await mkdtemp(join(tmpdir(), "autogen-outside-"));
    await writeFile(join(outside, "victim.py"), SOURCE);
    await symlink(join(outside, "victim.py"), join(dir, "soft.py"));
    await link(join(outside, "victim.py"), join(dir, "hard.py"));
    const edit = (path: string) =>
      applyEdits(dir, [{ kind: "replace", path, search: "return w * h", replace: "return 0" }]);
    await expect(edit("soft.py")).rejects.toThrow(UnsafePathError);
    await expect(edit("hard.py")).rejects.toThrow("it has other hard links");
    await expect(applyEdits(dir, [{ kind: "delete", path: "soft.py" }])).rejects.toThrow(UnsafePathError);
    expect(await readFile(join(outside, "victim.py"), "utf8")).toBe(SOURCE);
  });
});

describe("unifiedDiff", () => {
  it("prints deletions before additions, with separate hunks for distant changes", () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const after = before.replace("line 3", "LINE 3").replace("line 25", "LINE 25");
    expect(unifiedDiff("f.txt", before, after)).toBe(
      [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,6 +1,6 @@",
        " line 1",
        " line 2",
        "-line 3",
        "+LINE 3",
        " line 4",
        " line 5",
        " line 6",
        "@@ -22,7 +22,7 @@",
        " line 22",
        " line 23",
        " line 24",
        "-line 25",
        "+LINE 25",
        " line 26",
        " line 27",
        " line 28",
        "",
      ].join("\n"),
    );
  });
});
