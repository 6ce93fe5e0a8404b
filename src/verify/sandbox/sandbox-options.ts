// The repository's `test` configuration as the sandbox's options, in one place, so the
// CLI, the App and the evaluation harness run tests under the same limits.
import type { RepoConfig } from "../../config/repo-config-schema.ts";
import type { SandboxOptions } from "./run-sandboxed.ts";

const MB = 1024 * 1024;

export function sandboxOptionsFor(test: RepoConfig["test"], signal?: AbortSignal): Omit<SandboxOptions, "cwd"> {
  return {
    timeoutMs: test.timeoutMinutes * 60_000,
    env: test.env,
    limits: {
      processes: test.limits.processes,
      diskBytes: test.limits.diskMegabytes * MB,
      fileSizeBytes: test.limits.fileMegabytes * MB,
      tmpBytes: test.limits.tmpMegabytes * MB,
      memoryBytes: test.limits.memoryMegabytes * MB,
    },
    ...(signal ? { signal } : {}),
  };
}
