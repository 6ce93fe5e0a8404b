// Finds an executable on a PATH the way execvp would, so "command not found" is a clear
// error of ours rather than an exit code 127 from whatever wrapper ran it.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

export function resolveCommand(command: string, path: string, cwd: string): string | undefined {
  const executable = (candidate: string) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : resolve(cwd, command);
    return executable(full) ? full : undefined;
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
