// On-disk knowledge search shows the model only files inside the worktree.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { onDiskKnowledge } from "../../../src/engine/knowledge/knowledge-search.ts";

describe("onDiskKnowledge", () => {
  it("indexes the repository's docs but nothing reached through a symbolic link", async () => {
    const base = await mkdtemp(join(tmpdir(), "autogen-knowledge-"));
    const root = join(base, "repo");
    await mkdir(join(root, "docs"), { recursive: true });
    await mkdir(join(base, "private"));
    await writeFile(join(base, "private", "notes.md"), "zebracorn secret token\n");
    await writeFile(join(root, "docs", "guide.md"), "zebracorn pricing guide\n");
    await symlink(join(base, "private", "notes.md"), join(root, "README.md"));
    await symlink(join(base, "private"), join(root, "node_modules"));
    const snippets = await onDiskKnowledge(root).search(["zebracorn"], 10);
    expect(snippets.map((s) => s.source)).toEqual(["docs/guide.md:1"]);
  });
});
