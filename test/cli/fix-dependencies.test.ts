// Dependencies in the bot's fresh checkout: a JavaScript project's node_modules is never
// committed, so the worktree of HEAD has none. The CLI uses the checkout's (read-only) when
// its lockfile is the commit's, installs the lockfile in the sandbox (cached) otherwise,
// runs `test.setup` instead when configured, and says what to set when nothing helps.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { runCli } from "../support/run-cli.ts";

const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
};

/** A project whose code imports a package from node_modules (not committed: .gitignore). */
const PROJECT = {
  ".gitignore": "node_modules/\n",
  "package.json": JSON.stringify({
    name: "prices",
    private: true,
    type: "module",
    scripts: { test: "node --test" },
    dependencies: { "tiny-math": "1.0.0" },
  }),
  "src/price.js": 'import { double } from "tiny-math";\nexport function total(a, b) {\n  return double(a) - b;\n}\n',
  "test/price.test.js":
    'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { total } from "../src/price.js";\ntest("total adds", () => assert.equal(total(2, 3), 7));\ntest("total of zero", () => assert.equal(total(0, 0), 0));\n',
};

async function installTinyMath(dir: string): Promise<void> {
  await mkdir(join(dir, "node_modules", "tiny-math"), { recursive: true });
  await writeFile(
    join(dir, "node_modules", "tiny-math", "package.json"),
    JSON.stringify({ name: "tiny-math", version: "1.0.0", type: "module", exports: "./index.js" }),
  );
  await writeFile(join(dir, "node_modules", "tiny-math", "index.js"), "export const double = (x) => x * 2;\n");
}

describe("autogen fix and a project's dependencies", () => {
  it("uses the checkout's node_modules in its fresh worktree, and fixes the bug", async () => {
    const repo = await gitRepo(PROJECT);
    await installTinyMath(repo);
    const { code, stdout, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(stderr).toBe("");
    expect(stdout).toContain("note: using node_modules from your checkout (read-only to the tests)");
    expect(stdout).toMatch(/passes the tests; not reviewed: `-` → `\+` at src\/price\.js:3/);
    expect(code).toBe(0);
    // The link is the bot's, in its worktree: nothing of it reaches the branch.
    expect(await git(repo).raw(["ls-tree", "-r", "--name-only", "autogen/fix-total-adds"])).not.toContain(
      "node_modules",
    );
  }, 180_000);

  it("says what to set when the checkout has no node_modules and no setup is configured", async () => {
    const repo = await gitRepo(PROJECT);
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      'package.json lists 1 dependencies and the bot\'s checkout has no node_modules: set `test.setup: "npm install"` and `test.networkDuringSetup: true` in .github/autogen.yml',
    );
  }, 180_000);

  it("runs test.setup in the sandbox before the tests (what it installs lands in the worktree)", async () => {
    // A setup that installs the package from a tarball-free source committed in the repository (no network needed).
    const setupScript =
      'const fs = require("node:fs"); fs.mkdirSync("node_modules/tiny-math", { recursive: true }); fs.copyFileSync("vendor/tiny-math/package.json", "node_modules/tiny-math/package.json"); fs.copyFileSync("vendor/tiny-math/index.js", "node_modules/tiny-math/index.js");';
    const repo = await gitRepo({
      ...PROJECT,
      "vendor/tiny-math/package.json": JSON.stringify({
        name: "tiny-math",
        version: "1.0.0",
        type: "module",
        exports: "./index.js",
      }),
      "vendor/tiny-math/index.js": "export const double = (x) => x * 2;\n",
      "setup.cjs": setupScript,
      ".github/autogen.yml": "test:\n  setup: node setup.cjs\n",
    });
    const { code, stdout, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(stderr).toBe("");
    expect(stdout).toMatch(/setup `node setup\.cjs` finished in [\d.]+ s/);
    expect(stdout).toMatch(/passes the tests; not reviewed: `-` → `\+` at src\/price\.js:3/);
    expect(code).toBe(0);
  }, 180_000);

  it("stops with the setup command's own error when it fails, naming the network setting", async () => {
    const repo = await gitRepo({
      ...PROJECT,
      ".github/autogen.yml":
        "test:\n  setup: node -e \"process.stderr.write('registry unreachable'); process.exit(3)\"\n",
    });
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(1);
    expect(stderr).toContain(
      "the setup command `node -e \"process.stderr.write('registry unreachable'); process.exit(3)\"` failed (exit 3); it ran without network (set test.networkDuringSetup: true if it downloads packages); its output ends with: registry unreachable",
    );
  }, 180_000);
});

/** The same project with a committed lockfile naming a dependency tarball it commits (npm ci works offline from it). */
async function lockedProject(): Promise<string> {
  const repo = await gitRepo({
    ...PROJECT,
    "package.json": JSON.stringify({
      name: "prices",
      private: true,
      type: "module",
      scripts: { test: "node --test" },
      dependencies: { "tiny-math": "file:vendor/tiny-math-1.0.0.tgz" },
    }),
  });
  const pkg = mkdtempSync(join(tmpdir(), "autogen-pkg-"));
  await writeFile(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "tiny-math",
      version: "1.0.0",
      type: "module",
      exports: "./index.js",
      scripts: { postinstall: "node count.cjs" },
    }),
  );
  await writeFile(join(pkg, "index.js"), "export const double = (x) => x * 2;\n");
  // Counts its own runs where it is installed: a cached install is not run again.
  await writeFile(join(pkg, "count.cjs"), 'require("node:fs").appendFileSync("installs.txt", "1\\n");\n');
  await mkdir(join(repo, "vendor"));
  execFileSync("npm", ["pack", "--silent", "--pack-destination", join(repo, "vendor")], { cwd: pkg, stdio: "ignore" });
  execFileSync("npm", ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--silent"], {
    cwd: repo,
    stdio: "ignore",
  });
  await git(repo).raw(["add", "--all"]);
  await git(repo).raw([
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "lockfile",
  ]);
  return repo;
}

describe("autogen fix installs what the lockfile says", () => {
  it("reuses the checkout's node_modules when its lockfile is the commit's", async () => {
    const repo = await lockedProject();
    await installTinyMath(repo);
    const report = join(mkdtempSync(join(tmpdir(), "autogen-report-")), "report.md");
    const { code, stdout, stderr } = await runCli(["fix", repo, "--report", report], { env: ENV });
    expect(stderr).toBe("");
    expect(stdout).toContain("note: using node_modules from your checkout (read-only to the tests)");
    expect(stdout).not.toContain("npm ci");
    expect(code).toBe(0);
    expect(readFileSync(report, "utf8")).toContain(
      "Dependencies (npm, from `package-lock.json`): your checkout's own, read-only to the tests (its lockfile matches the commit's).",
    );
  }, 180_000);

  it("installs the commit's lockfile in the sandbox when the checkout's differs, and the next run takes it from the cache", async () => {
    const data = mkdtempSync(join(tmpdir(), "autogen-data-"));
    const env = { ...ENV, XDG_DATA_HOME: data };
    const repo = await lockedProject();
    await installTinyMath(repo);
    // The user changed the lockfile (and their node_modules) since the commit.
    await writeFile(join(repo, "package-lock.json"), `${readFileSync(join(repo, "package-lock.json"), "utf8")}\n`);
    const report = join(mkdtempSync(join(tmpdir(), "autogen-report-")), "report.md");
    const first = await runCli(["fix", repo, "--allow-dirty", "--report", report], { env });
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain(
      "note: not using your checkout's node_modules: its package-lock.json differs from the commit's",
    );
    expect(first.stdout).toMatch(
      /dependencies \(npm, package-lock\.json\) installed with `npm ci --offline` in [\d.]+ s without network/,
    );
    expect(first.stdout).toMatch(/passes the tests; not reviewed: `-` → `\+` at src\/price\.js:3/);
    expect(readFileSync(report, "utf8")).toMatch(
      /Dependencies \(npm, from `package-lock\.json`\): installed fresh with `npm ci --offline` in the sandbox \(without network\) in [\d.]+ s; cached for later jobs\./,
    );

    const second = await runCli(["fix", repo, "--allow-dirty", "--report", report], { env });
    expect(second.stdout).toMatch(/dependencies \(npm, package-lock\.json\) from cache in [\d.]+ s/);
    expect(second.code).toBe(0);
    expect(readFileSync(report, "utf8")).toContain(
      "from cache (installed by an earlier job with `npm ci --offline` from the same lockfile)",
    );
    // The dependency's install script ran once, in the first run only.
    // One scope, this checkout's: another repository with the same lockfile gets its own.
    const [scope, ...otherScopes] = readdirSync(join(data, "autogen-bot", "install-cache"));
    expect(otherScopes).toEqual([]);
    const scoped = join(data, "autogen-bot", "install-cache", scope ?? "");
    const [entry, ...others] = readdirSync(scoped).filter((name) => name.startsWith("npm-"));
    expect(others).toEqual([]);
    expect(readFileSync(join(scoped, entry ?? "", "node_modules", "tiny-math", "installs.txt"), "utf8")).toBe("1\n");
  }, 240_000);
});

describe("autogen fix flags", () => {
  it("rejects a bad --candidates before any work (no worktree, no test run)", async () => {
    const repo = await gitRepo(PROJECT);
    const started = await git(repo).raw(["worktree", "list"]);
    const { code, stderr, stdout } = await runCli(["fix", repo, "--candidates", "x"], { env: ENV });
    expect(code).toBe(2);
    expect(stderr).toContain('expected a positive whole number, got "x"');
    expect(stdout).not.toContain("tests:");
    expect(await git(repo).raw(["worktree", "list"])).toBe(started);
  });
});
