// A fixture repository with its own node_modules, installed by npm from the local npm
// cache (`--offline`): the real runner at the real version, never committed. Undefined
// when the cache does not hold the packages (the test that needs them is skipped).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function npmFixture(
  devDependencies: Record<string, string>,
  files: Record<string, string>,
  extra: Record<string, unknown> = {},
): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "autogen-npm-fixture-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "fixture", version: "1.0.0", private: true, devDependencies, ...extra }),
  );
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  try {
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--silent"], {
      cwd: dir,
      stdio: "ignore",
      timeout: 180_000,
    });
    return dir;
  } catch {
    return undefined;
  }
}
