// A command's start loads its own modules only: `fix` does not load Probot (serve's), and a
// `--version` or `--help` loads none of the heavy commands' work (src/cli/run-*.ts).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/** Every module URL a Node process loaded while running `args`, recorded by a load hook. */
async function loadedBy(args: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-lazy-"));
  const out = join(dir, "loaded.txt");
  const hook = join(dir, "hook.mjs");
  await writeFile(
    hook,
    [
      'import { registerHooks } from "node:module";',
      'import { writeFileSync } from "node:fs";',
      "const seen = [];",
      "registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });",
      `process.on("exit", () => writeFileSync(${JSON.stringify(out)}, seen.join("\\n")));`,
    ].join("\n"),
  );
  // A fix of a folder that does not exist exits 2 after loading its work: the exit code is not what is checked.
  await promisify(execFile)(process.execPath, ["--import", hook, ...args], { cwd: ROOT, timeout: 120_000 }).catch(
    (error: unknown) => {
      if ((error as { code?: unknown }).code !== 2) throw error;
    },
  );
  return (await readFile(out, "utf8")).split("\n");
}

const probot = (urls: string[]) => urls.filter((u) => u.includes("/node_modules/probot/"));
const runFiles = (urls: string[]) => urls.filter((u) => /\/src\/cli\/run-\w+\.ts$/.test(u));

describe("the CLI loads a command's work when it runs", () => {
  it("loads no command's work for --version, and serve's (Probot) when serve's work is loaded", async () => {
    const version = await loadedBy(["src/cli.ts", "--version"]);
    expect(version.some((u) => u.endsWith("/src/cli/main.ts"))).toBe(true);
    expect(runFiles(version)).toEqual([]);
    expect(probot(version)).toEqual([]);
    // The hook sees Probot when it is loaded: the check above can fail.
    const serve = await loadedBy(["--input-type=module", "-e", 'await import("./src/cli/run-serve.ts");']);
    expect(probot(serve).length).toBeGreaterThan(0);
  });

  it("loads fix's work and not serve's for a fix", async () => {
    const fix = await loadedBy(["src/cli.ts", "fix", join(tmpdir(), "autogen-no-such-repository")]);
    expect(runFiles(fix).map((u) => u.split("/").at(-1))).toEqual(["run-fix.ts"]);
    expect(probot(fix)).toEqual([]);
  });
});
