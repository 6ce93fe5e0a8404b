// Whether candidate runs may use a warm runner: the repository's `test.warm` (default on),
// and AUTOGEN_WARM=0 for the operator to fall back to cold runs everywhere.
import type { RepoConfig } from "../../config/repo-config-schema.ts";

export function warmRunsEnabled(test: Pick<RepoConfig["test"], "warm">, env: NodeJS.ProcessEnv = process.env): boolean {
  return test.warm && env.AUTOGEN_WARM !== "0";
}
