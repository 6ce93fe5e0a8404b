// The automatic install, for real: npm ci in the sandbox from a dependency tarball the
// fixture commits (offline, as the sandbox has no network), then a second job on the same
// lockfile reusing the cache without running the install again.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, readlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseRepoConfigText } from "../../../src/config/parse-repo-config.ts";
import { installDependencies, sandboxWithInstall } from "../../../src/verify/install/run-install.ts";
import { runSandboxed } from "../../../src/verify/sandbox/run-sandboxed.ts";
import { sandboxOptionsFor } from "../../../src/verify/sandbox/sandbox-options.ts";

const CANARY = "AUTOGEN_TEST_CANARY_TOKEN";

/** A package whose install script counts its runs and records the variables it saw. */
async function dependencyTarball(into: string, version = "1.0.0"): Promise<void> {
  const pkg = await mkdtemp(join(tmpdir(), "autogen-pkg-"));
  await writeFile(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "tiny-math",
      version,
      type: "module",
      exports: "./index.js",
      scripts: { postinstall: "node count.cjs" },
    }),
  );
  await writeFile(join(pkg, "index.js"), "export const double = (x) => x * 2;\n");
  await writeFile(
    join(pkg, "count.cjs"),
    'const fs = require("node:fs"); fs.appendFileSync("installs.txt", "1\\n"); fs.writeFileSync("env.json", JSON.stringify(process.env));\n',
  );
  await mkdir(into, { recursive: true });
  execFileSync("npm", ["pack", "--silent", "--pack-destination", into], { cwd: pkg, stdio: "ignore" });
}

/** A project with a committed lockfile naming the tarball (made by npm itself, offline). */
async function project(version = "1.0.0"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-install-"));
  await dependencyTarball(join(dir, "vendor"), version);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "prices",
      private: true,
      type: "module",
      dependencies: { "tiny-math": `file:vendor/tiny-math-${version}.tgz` },
    }),
  );
  execFileSync("npm", ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--silent"], {
    cwd: dir,
    stdio: "ignore",
  });
  return dir;
}

const config = (yaml = "") => parseRepoConfigText(yaml).test;

afterEach(() => {
  delete process.env[CANARY];
});

describe("installDependencies (npm, for real)", () => {
  it("installs in the sandbox with no secrets, caches by lockfile, and the next job reuses the cache without running the install", async () => {
    process.env[CANARY] = "leaked";
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const first = await project();
    const test = config();
    const fresh = await installDependencies(first, test, sandboxOptionsFor(test), { cacheRoot });
    expect(fresh).toMatchObject({
      ran: true,
      ok: true,
      summary: {
        manager: "npm",
        lockfile: "package-lock.json",
        command: "npm ci --offline",
        source: "fresh",
        network: false,
      },
    });
    // The worktree's node_modules is now a link to the published entry, readable by tests in the sandbox.
    const entry = realpathSync(join(first, "node_modules"));
    expect(entry.startsWith(realpathSync(cacheRoot))).toBe(true);
    expect(readFileSync(join(entry, "tiny-math", "installs.txt"), "utf8")).toBe("1\n");
    const seen = JSON.parse(readFileSync(join(entry, "tiny-math", "env.json"), "utf8")) as Record<string, string>;
    expect(seen[CANARY]).toBeUndefined();
    expect(Object.keys(seen).filter((name) => /TOKEN|SECRET|PRIVATE_KEY/.test(name))).toEqual([]);
    const imported = await runSandboxed(
      ["node", "--input-type=module", "-e", 'import { double } from "tiny-math"; console.log(double(21));'],
      { ...sandboxOptionsFor(test), cwd: first },
    );
    expect(imported.output.trim()).toBe("42");

    // A second job, another checkout of the same lockfile: from cache, the install script not run again.
    const second = await project();
    execFileSync("cp", [join(first, "package-lock.json"), join(second, "package-lock.json")]);
    execFileSync("cp", [join(first, "package.json"), join(second, "package.json")]);
    const reused = await installDependencies(second, test, sandboxOptionsFor(test), { cacheRoot });
    expect(reused).toMatchObject({ ran: true, ok: true, summary: { source: "cache" } });
    expect(realpathSync(join(second, "node_modules"))).toBe(entry);
    expect(readFileSync(join(entry, "tiny-math", "installs.txt"), "utf8")).toBe("1\n");
    // The tests cannot write the cached entry.
    const write = await runSandboxed(
      ["node", "-e", 'require("node:fs").writeFileSync("node_modules/tiny-math/index.js", "hacked")'],
      { ...sandboxOptionsFor(test), cwd: second },
    );
    expect(write.exitCode).not.toBe(0);
    expect(readFileSync(join(entry, "tiny-math", "index.js"), "utf8")).toContain("double");
  }, 120_000);

  it("a changed lockfile misses the cache and installs again", async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const test = config();
    const one = await installDependencies(await project("1.0.0"), test, sandboxOptionsFor(test), { cacheRoot });
    const other = await project("1.0.1");
    const two = await installDependencies(other, test, sandboxOptionsFor(test), { cacheRoot });
    expect(one).toMatchObject({ ok: true, summary: { source: "fresh" } });
    expect(two).toMatchObject({ ok: true, summary: { source: "fresh" } });
    expect(readFileSync(join(other, "node_modules", "tiny-math", "installs.txt"), "utf8")).toBe("1\n");
    expect(JSON.parse(readFileSync(join(other, "node_modules", "tiny-math", "package.json"), "utf8"))).toMatchObject({
      version: "1.0.1",
    });
  }, 120_000);

  it("test.setup replaces the install; test.install: off turns it off; no lockfile, no install", async () => {
    const dir = await project();
    expect(await installDependencies(dir, config("test:\n  setup: npm ci\n"), sandboxOptionsFor(config()))).toEqual({
      ran: false,
      reason: "test.setup is set and replaces the automatic install",
    });
    expect(await installDependencies(dir, config("test:\n  install: off\n"), sandboxOptionsFor(config()))).toEqual({
      ran: false,
      reason: "test.install is off",
    });
    const bare = await mkdtemp(join(tmpdir(), "autogen-install-"));
    await writeFile(join(bare, "package.json"), "{}");
    expect(await installDependencies(bare, config(), sandboxOptionsFor(config()))).toMatchObject({
      ran: false,
      reason: "no lockfile the bot knows",
    });
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
  });

  it("without network, a dependency only the registry has fails clearly, naming the network settings and the offline mode", async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const dir = await mkdtemp(join(tmpdir(), "autogen-install-"));
    // A lockfile naming a registry package no install here has cached.
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "p", private: true, dependencies: { "left-pad-not-cached": "1.0.0" } }),
    );
    await writeFile(
      join(dir, "package-lock.json"),
      JSON.stringify({
        name: "p",
        lockfileVersion: 3,
        requires: true,
        packages: {
          "": { name: "p", dependencies: { "left-pad-not-cached": "1.0.0" } },
          "node_modules/left-pad-not-cached": {
            version: "1.0.0",
            resolved: "https://registry.npmjs.org/left-pad-not-cached/-/left-pad-not-cached-1.0.0.tgz",
            integrity: "sha512-AAAA",
          },
        },
      }),
    );
    const result = await installDependencies(dir, config(), sandboxOptionsFor(config()), { cacheRoot });
    expect(result).toMatchObject({ ran: true, ok: false, summary: { command: "npm ci --offline", network: false } });
    if (!result.ran) throw new Error("unreachable");
    expect(result.message).toContain(
      "it ran without network (offline, from local sources and the install cache only): set test.networkDuringSetup: true (and AUTOGEN_ALLOW_SETUP_NETWORK=1 where the bot runs)",
    );
    const asked = await installDependencies(
      dir,
      config("test:\n  networkDuringSetup: true\n"),
      sandboxOptionsFor(config()),
      { cacheRoot, env: {} },
    );
    if (!asked.ran) throw new Error("unreachable");
    expect(asked.message).toContain(
      "the repository asks for it (test.networkDuringSetup), but whoever runs the bot has not allowed it (AUTOGEN_ALLOW_SETUP_NETWORK=1)",
    );
    // The bot's own cache path is not shown (npm names its log file there).
    expect(result.message).not.toContain(cacheRoot);
    // Nothing half-installed was published, and the staging directories are gone.
    expect(readdirSync(cacheRoot)).toEqual([".tool-cache"]);
  }, 120_000);

  it("a file: directory dependency (a link out of node_modules) is installed but kept in the worktree, not cached", async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const dir = await mkdtemp(join(tmpdir(), "autogen-install-"));
    await mkdir(join(dir, "libs", "tiny"), { recursive: true });
    await writeFile(join(dir, "libs", "tiny", "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0" }));
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "p", private: true, dependencies: { tiny: "file:libs/tiny" } }),
    );
    execFileSync("npm", ["install", "--package-lock-only", "--offline", "--silent"], { cwd: dir, stdio: "ignore" });
    const result = await installDependencies(dir, config(), sandboxOptionsFor(config()), { cacheRoot });
    expect(result).toMatchObject({
      ran: true,
      ok: true,
      summary: { source: "fresh", notCached: "node_modules/tiny links outside node_modules" },
    });
    expect(await readlink(join(dir, "node_modules", "tiny"))).toBe("../libs/tiny");
  }, 120_000);
});

/** A pure-Python wheel built by hand (a wheel is a zip with its metadata), so pip needs no index and no build step. */
function wheel(into: string): void {
  const script = [
    "import sys, zipfile",
    "out = sys.argv[1] + '/tiny_math-1.0.0-py3-none-any.whl'",
    "files = {'tiny_math/__init__.py': 'def double(x):\\n    return x * 2\\n',",
    " 'tiny_math-1.0.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: tiny-math\\nVersion: 1.0.0\\n',",
    " 'tiny_math-1.0.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}",
    "record = ''.join(f'{n},,\\n' for n in files) + 'tiny_math-1.0.0.dist-info/RECORD,,\\n'",
    "z = zipfile.ZipFile(out, 'w')",
    "[z.writestr(n, t) for n, t in files.items()]",
    "z.writestr('tiny_math-1.0.0.dist-info/RECORD', record)",
    "z.close()",
  ].join("\n");
  execFileSync("python3", ["-c", script, into]);
}

describe("installDependencies (pip, for real)", () => {
  it("installs requirements.txt from a local wheel directory into a cached target on PYTHONPATH; the next job reuses it", async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    const make = async () => {
      const dir = await mkdtemp(join(tmpdir(), "autogen-install-"));
      await mkdir(join(dir, "wheels"));
      wheel(join(dir, "wheels"));
      await writeFile(join(dir, "requirements.txt"), "--find-links wheels\ntiny-math==1.0.0\n");
      return dir;
    };
    const test = config();
    const first = await make();
    const fresh = await installDependencies(first, test, sandboxOptionsFor(test), { cacheRoot });
    expect(fresh).toMatchObject({
      ran: true,
      ok: true,
      summary: { manager: "pip", lockfile: "requirements.txt", source: "fresh" },
    });
    if (!fresh.ran) throw new Error("unreachable");
    expect(fresh.summary.command).toBe(
      "python3 -m pip install --disable-pip-version-check --no-input --target <cache>/site --no-index -r requirements.txt",
    );
    const second = await make();
    const reused = await installDependencies(second, test, sandboxOptionsFor(test), { cacheRoot });
    expect(reused).toMatchObject({ ran: true, ok: true, summary: { source: "cache" } });
    const run = await runSandboxed(["python3", "-c", "import tiny_math; print(tiny_math.double(21))"], {
      ...sandboxWithInstall(sandboxOptionsFor(test), reused),
      cwd: second,
    });
    expect(run.output.trim()).toBe("42");
    expect(existsSync(join(second, "site"))).toBe(false);
  }, 120_000);
});

describe("installDependencies and a hostile repository", () => {
  it("an install that leaves node_modules as a link to a hidden host directory gets nothing shown: not cached, not registered", async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-cache-"));
    // A directory of the host's the sandbox hides (host /tmp is behind a private tmpfs).
    const secret = await mkdtemp(join(tmpdir(), "autogen-secret-"));
    await writeFile(join(secret, "secret.txt"), "host secret");
    const dir = await project();
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    // The repository's own postinstall, run by npm ci after the dependencies: swaps node_modules for a link.
    manifest.scripts = {
      postinstall: `node -e "const fs = require('node:fs'); fs.renameSync('node_modules', 'nm-real'); fs.symlinkSync('${secret}', 'node_modules')"`,
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    const result = await installDependencies(dir, config(), sandboxOptionsFor(config()), { cacheRoot });
    expect(result).toMatchObject({
      ran: true,
      ok: true,
      summary: { source: "fresh", notCached: "the install left no node_modules directory" },
    });
    expect(readdirSync(cacheRoot).filter((name) => !name.startsWith("."))).toEqual([]);
    const read = await runSandboxed(["cat", "node_modules/secret.txt"], { ...sandboxOptionsFor(config()), cwd: dir });
    expect(read.output).not.toContain("host secret");
    expect(read.exitCode).not.toBe(0);
  }, 120_000);
});
