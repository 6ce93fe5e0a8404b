// Small Python repositories written to temp dirs, and the template strategy run on them
// with the real verifier (sandbox + pytest).
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";

export const PYTEST_ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1", AUTOGEN_TEST_TIMEOUT: "2" };

export async function writeRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-pyrepo-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/**
 * `visibleOutside`: host paths the tests may read (as a toolchain or a shared checkout would be).
 * `warm`: candidates' failing tests on a warm pytest runner, as `autogen fix` runs them by default (test.warm).
 */
export async function runTemplate(
  dir: string,
  candidates = 300,
  parallelism = 1,
  visibleOutside: string[] = [],
  warm = false,
): Promise<Outcome> {
  const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
  return templateStrategy.run({
    workspace: dir,
    visible: { kind: "all" },
    verifier: localVerifier(pytestRunner([], "test"), { ...sandbox, protect: visibleOutside, warm }),
    sandbox: { ...sandbox, env: withPytestPlugin(PYTEST_ENV), readOnlyPaths: visibleOutside },
    runnerName: "pytest",
    isTestFile,
    budget: { candidates, minutes: 5 },
    parallelism,
  });
}
