// Where our pytest plugin lives, and the environment that loads it next to whatever
// PYTHONPATH the repository configured.
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";

export const PYTEST_PLUGIN = "autogen_pytest";
export const PYTEST_PLUGIN_DIR = fileURLToPath(new URL("../../../resources/python/", import.meta.url));

export function withPytestPlugin(
  env: Record<string, string> | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  const base = env ?? {};
  const pythonPath = [PYTEST_PLUGIN_DIR, ...(base.PYTHONPATH ? [base.PYTHONPATH] : [])].join(delimiter);
  return { ...base, ...extra, PYTHONPATH: pythonPath };
}
