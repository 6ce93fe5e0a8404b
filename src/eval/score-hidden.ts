// Scoring on hidden tests: the task's non-test files as a strategy left them, with the
// hidden tests beside them (the visible tests and any test the strategy wrote stay out),
// run once in a directory of their own.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SandboxOptions } from "../verify/sandbox/run-sandboxed.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import type { TestReport } from "../verify/test-report.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";
import { readWorktreeBytes } from "../workspace/read-worktree-file.ts";
import { UnsafePathError } from "../workspace/safe-path.ts";
import { makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

/** The hidden tests' report against the solution files in `workspace`. */
export async function runHiddenTests(
  task: EvalTask,
  workspace: string,
  sandbox: Omit<SandboxOptions, "cwd">,
): Promise<TestReport> {
  const hidden = await makeTempDir("autogen-hidden-");
  try {
    for (const file of task.solutionFiles) {
      await mkdir(dirname(join(hidden, file)), { recursive: true });
      // A file the strategy deleted is simply absent from the scored code; one a test turned
      // into a link, FIFO or device is absent too (a copy would follow it: the bot's own
      // environment handed to the hidden run, a copy that never ends).
      const bytes = await readWorktreeBytes(workspace, file).catch((error: unknown) => {
        if (error instanceof UnsafePathError) return undefined;
        throw error;
      });
      if (bytes) await writeFile(join(hidden, file), bytes);
    }
    await writeFiles(hidden, task.hiddenFiles);
    return await localVerifier(detectRunner(hidden), sandbox).run(hidden, { kind: "all" });
  } finally {
    await removeTempDir(hidden);
  }
}
