// A fixed Outcome is only a fix when its diff is in the worktree's own files.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkDiffLanded } from "../../src/engine/check-diff-landed.ts";
import { emptyOutcome, type Outcome } from "../../src/engine/task.ts";
import { unifiedDiff } from "../../src/workspace/unified-diff.ts";

const BEFORE = "def passed(score, mark):\n    return score > mark\n";
const AFTER = "def passed(score, mark):\n    return score >= mark\n";

function fixed(diff: string): Outcome {
  return {
    ...emptyOutcome("template"),
    status: "fixed",
    stopReason: "solved",
    message: "ok",
    diff,
    changedFiles: ["lib.py"],
  };
}

describe("checkDiffLanded", () => {
  it("keeps a fix whose diff is in the worktree", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-landed-"));
    await writeFile(join(dir, "lib.py"), AFTER);
    const outcome = fixed(unifiedDiff("lib.py", BEFORE, AFTER));
    await checkDiffLanded(dir, outcome);
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
  });

  it("is no fix when the change went through a symbolic link (the branch would be unchanged)", async () => {
    const base = await mkdtemp(join(tmpdir(), "autogen-landed-"));
    await mkdir(join(base, "repo"));
    await writeFile(join(base, "outside.py"), AFTER);
    await symlink(join(base, "outside.py"), join(base, "repo", "lib.py"));
    const outcome = fixed(unifiedDiff("lib.py", BEFORE, AFTER));
    await checkDiffLanded(join(base, "repo"), outcome);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "error" });
    expect(outcome.message).toContain('the change passed the tests but is not in the worktree: refusing path "lib.py"');
  });

  it("is no fix when the worktree does not hold the changed lines, or the file is gone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-landed-"));
    await writeFile(join(dir, "lib.py"), BEFORE);
    const stale = fixed(unifiedDiff("lib.py", BEFORE, AFTER));
    await checkDiffLanded(dir, stale);
    expect(stale).toMatchObject({
      status: "not-fixed",
      message: "the change passed the tests but is not in the worktree: lib.py:2 does not hold the changed line",
    });
    const gone = fixed(unifiedDiff("other.py", BEFORE, AFTER));
    await checkDiffLanded(dir, gone);
    expect(gone.message).toContain("other.py");
    expect(gone.status).toBe("not-fixed");
  });
});
