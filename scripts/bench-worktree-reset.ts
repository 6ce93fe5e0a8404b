// `npm run bench:reset -- [files] [rounds]`: resetting a worktree between candidates on a
// repository of N files (default 5,000). Each round edits three tracked files and adds
// two untracked ones, then resets. Prints the median and p90; target median < 200 ms.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "../src/workspace/run-git.ts";
import { RepoCache } from "../src/workspace/repo-cache.ts";

const files = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 30);
const root = await mkdtemp(join(tmpdir(), "autogen-bench-reset-"));
const remote = join(root, "remote");
for (let i = 0; i < files; i++) {
  const dir = join(remote, `pkg${i % 50}`, `mod${i % 7}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `file${i}.py`), `# file ${i}\nVALUE = ${i}\n\ndef f${i}(x):\n    return x + ${i}\n`);
}
const g = (args: string[]) => runGit(args, { cwd: remote });
await g(["init", "-q", "--initial-branch=main"]);
await g(["add", "-A"]);
await g(["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "bench"]);

const cache = new RepoCache({ root: join(root, "cache") });
const mirror = await cache.mirror(remote);
const tree = await cache.worktree(mirror, "main", "bench");
const times: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < 3; k++)
    await writeFile(
      join(tree.path, `pkg${(r + k) % 50}`, `mod${(r + k) % 7}`, `file${(r * 3 + k) % files}.py`),
      `# edited in round ${r}\n`,
    );
  await writeFile(join(tree.path, `untracked-${r}-a.py`), "x = 1\n");
  await writeFile(join(tree.path, `pkg0`, `untracked-${r}-b.py`), "y = 2\n");
  const started = performance.now();
  await tree.reset();
  times.push(performance.now() - started);
}
await tree.remove();
await rm(root, { recursive: true, force: true });
times.sort((a, b) => a - b);
const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] as number;
console.log(
  `worktree reset, ${files} files, ${rounds} rounds: median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, min ${(times[0] ?? 0).toFixed(1)} ms (target: median < 200 ms)`,
);
