// `npm run bench:diff`: unifiedDiff on files of 8,000 / 20,000 / 100,000 lines edited at
// both ends (and once in the middle), the case that made the old LCS table take seconds and
// gigabytes. Prints wall time, the growth of our heap and resident memory, and the peak
// resident memory of the git process that computes the diff (measured by /usr/bin/time).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execaSync } from "execa";
import { safeGitEnv } from "../src/workspace/git-env.ts";
import { unifiedDiff } from "../src/workspace/unified-diff.ts";

/** Peak resident memory of `git diff --no-index` on the same texts, in MB (undefined without /usr/bin/time). */
function gitPeakMb(a: string, b: string): number | undefined {
  if (!existsSync("/usr/bin/time")) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "autogen-bench-diff-"));
  try {
    writeFileSync(join(dir, "a"), a);
    writeFileSync(join(dir, "b"), b);
    const run = execaSync(
      "/usr/bin/time",
      [
        "-f",
        "%M",
        "git",
        "diff",
        "--no-index",
        "--text",
        "--diff-algorithm=myers",
        "--no-indent-heuristic",
        "--",
        "a",
        "b",
      ],
      { cwd: dir, env: safeGitEnv(), extendEnv: false, reject: false, stdout: "ignore" },
    );
    return Number(run.stderr.trim().split("\n").at(-1)) / 1024;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
for (const lines of sizes.length > 0 ? sizes : [8_000, 20_000, 100_000]) {
  const before = Array.from({ length: lines }, (_, i) =>
    i % 10 === 0 ? "" : `    value_${i} = compute(${i % 97}, ${i})`,
  );
  const after = [...before];
  after[1] = "    first_edit = True";
  after.splice(Math.floor(lines / 2), 0, "    middle_insert = 1");
  after[after.length - 2] = "    last_edit = True";
  const a = `${before.join("\n")}\n`;
  const b = `${after.join("\n")}\n`;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const diff = unifiedDiff("big.py", a, b);
  const ms = performance.now() - started;
  const heap = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const rss = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const hunks = diff.split("\n").filter((l) => l.startsWith("@@")).length;
  const gitMb = gitPeakMb(a, b);
  console.log(
    `${lines.toLocaleString("en-US")} lines, edited at both ends: ${ms.toFixed(1)} ms, heap +${heap.toFixed(1)} MB, rss +${rss.toFixed(1)} MB, ${hunks} hunks${gitMb === undefined ? "" : `; git's peak rss ${gitMb.toFixed(1)} MB`}`,
  );
}
