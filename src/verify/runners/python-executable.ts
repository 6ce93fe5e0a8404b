// The real Python interpreter behind `python3` (resolving version-manager shims such as
// pyenv's once, which otherwise add most of a second to every run).
import { execFileSync } from "node:child_process";

let cached: string | undefined;

export function pythonExecutable(): string {
  if (cached) return cached;
  try {
    cached =
      execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
        encoding: "utf8",
        timeout: 10_000,
      }).trim() || "python3";
  } catch {
    cached = "python3";
  }
  return cached;
}
