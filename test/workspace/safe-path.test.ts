// The safe-path gate on real files: links, hard links, `.git`, control characters, and a
// root that is itself reached through a symbolic link.
import { link, mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readWorktreeText as readRepoFile } from "../../src/workspace/read-worktree-file.ts";
import {
  editableRepoFile,
  isForgedPath,
  repoRelativePath,
  safeRepoPath,
  UnsafePathError,
  writeRepoFile,
} from "../../src/workspace/safe-path.ts";

/** base/repo with lib.py and pkg/mod.py; base/outside/victim.py; repo/linkdir → outside; repo/linked.py → victim. */
async function layout(): Promise<{ base: string; root: string; victim: string }> {
  const base = await mkdtemp(join(tmpdir(), "autogen-safepath-"));
  const root = join(base, "repo");
  await mkdir(join(root, "pkg"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(root, "lib.py"), "A = 1\n");
  await writeFile(join(root, "pkg", "mod.py"), "B = 2\n");
  const victim = join(base, "outside", "victim.py");
  await writeFile(victim, "SECRET = 1\n");
  await symlink(join(base, "outside"), join(root, "linkdir"));
  await symlink(victim, join(root, "linked.py"));
  return { base, root, victim };
}

describe("safeRepoPath", () => {
  it("accepts plain paths, existing or not, and refuses every way out", async () => {
    const { root } = await layout();
    expect(safeRepoPath(root, "pkg/mod.py")).toBe(join(root, "pkg", "mod.py"));
    expect(safeRepoPath(root, "pkg/./new/file.py")).toBe(join(root, "pkg", "new", "file.py"));
    expect(() => safeRepoPath(root, "../outside/victim.py")).toThrow("it leaves the repository");
    expect(() => safeRepoPath(root, "pkg/../../outside/victim.py")).toThrow("it leaves the repository");
    expect(() => safeRepoPath(root, join(root, "lib.py"))).toThrow("absolute paths are not allowed");
    expect(() => safeRepoPath(root, "linkdir/victim.py")).toThrow("it goes through a symbolic link");
    expect(() => safeRepoPath(root, "linkdir/new.py")).toThrow("it goes through a symbolic link");
    expect(() => safeRepoPath(root, "linked.py")).toThrow("it goes through a symbolic link");
    expect(() => safeRepoPath(root, ".git/config")).toThrow("the .git directory is off limits");
    expect(() => safeRepoPath(root, "pkg/.Git/hooks/pre-commit")).toThrow("the .git directory is off limits");
    for (const bad of ["lib\n.py", "lib\t.py", "lib\x1b[2J.py", "lib\x7f.py", "lib\0.py", ""])
      expect(() => safeRepoPath(root, bad)).toThrow(UnsafePathError);
    expect(() => safeRepoPath(root, "pkg/..")).toThrow("it names the repository itself");
  });
});

describe("repoRelativePath (absolute paths from test output)", () => {
  it("maps paths below the root, as given or resolved, and refuses the rest", async () => {
    const { root, victim } = await layout();
    expect(repoRelativePath(root, join(root, "pkg", "mod.py"))).toBe("pkg/mod.py");
    expect(repoRelativePath(root, join(await realpath(root), "lib.py"))).toBe("lib.py");
    expect(() => repoRelativePath(root, victim)).toThrow("it is outside the repository");
    expect(() => repoRelativePath(root, `${root}/../outside/victim.py`)).toThrow("it leaves the repository");
    expect(() => repoRelativePath(root, join(root, "linkdir", "victim.py"))).toThrow("it goes through a symbolic link");
    expect(() => repoRelativePath(root, `${root}-sibling/lib.py`)).toThrow("it is outside the repository");
    expect(() => repoRelativePath(root, "lib.py")).toThrow("expected an absolute path");
    expect(() => repoRelativePath(root, join(root, ".git", "config"))).toThrow("the .git directory is off limits");
  });
});

describe("editableRepoFile, readRepoFile, writeRepoFile", () => {
  it("reads and writes regular files, and creates new ones with their directories", async () => {
    const { root } = await layout();
    expect(await readRepoFile(root, "pkg/mod.py")).toBe("B = 2\n");
    await writeRepoFile(root, "pkg/mod.py", "B = 3\n");
    await writeRepoFile(root, "pkg/sub/new.py", "C = 4\n");
    expect(await readFile(join(root, "pkg", "mod.py"), "utf8")).toBe("B = 3\n");
    expect(await readFile(join(root, "pkg", "sub", "new.py"), "utf8")).toBe("C = 4\n");
  });

  it("never reads or writes through a symbolic link, a hard link or outside the root", async () => {
    const { root, victim } = await layout();
    await link(victim, join(root, "hard.py"));
    expect(() => editableRepoFile(root, "linked.py")).toThrow(UnsafePathError);
    expect(() => editableRepoFile(root, "hard.py")).toThrow("it has other hard links");
    expect(() => editableRepoFile(root, "pkg")).toThrow("it is not a regular file");
    expect(() => editableRepoFile(root, "missing.py")).toThrow("no such file");
    await expect(readRepoFile(root, "linked.py")).rejects.toThrow(UnsafePathError);
    await expect(writeRepoFile(root, "linked.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    await expect(writeRepoFile(root, "hard.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    await expect(writeRepoFile(root, "linkdir/victim.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    await expect(writeRepoFile(root, "linkdir/planted.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    await expect(writeRepoFile(root, "../outside/victim.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    expect(await readFile(victim, "utf8")).toBe("SECRET = 1\n");
  });

  it("works when the root itself is reached through a symbolic link (/tmp on macOS)", async () => {
    const { base, root, victim } = await layout();
    const alias = join(base, "alias");
    await symlink(root, alias);
    expect(await readRepoFile(alias, "lib.py")).toBe("A = 1\n");
    await writeRepoFile(alias, "lib.py", "A = 2\n");
    expect(await readFile(join(root, "lib.py"), "utf8")).toBe("A = 2\n");
    expect(repoRelativePath(alias, join(root, "pkg", "mod.py"))).toBe("pkg/mod.py");
    expect(repoRelativePath(alias, join(alias, "pkg", "mod.py"))).toBe("pkg/mod.py");
    await expect(writeRepoFile(alias, "linked.py", "PWNED = 1\n")).rejects.toThrow(UnsafePathError);
    expect(await readFile(victim, "utf8")).toBe("SECRET = 1\n");
  });
});

describe("isForgedPath", () => {
  it("flags `..` segments and control characters in reported names", () => {
    expect(isForgedPath("tests/test_cart.py")).toBe(false);
    expect(isForgedPath("/home/runner/work/x/x/test/a.test.js")).toBe(false);
    expect(isForgedPath("../../outside/victim.py")).toBe(true);
    expect(isForgedPath("tests/..\\..\\victim.py")).toBe(true);
    expect(isForgedPath("tests/a\n.py")).toBe(true);
  });
});
