// `npm run bench:install`: the dependency install before a baseline, fresh and then from
// the install cache, for an npm project (a committed dependency tarball, `npm ci --offline`,
// in the sandbox) and a pip project (a committed wheel, `pip install --no-index`). Prints
// what ran and the seconds each took; figures depend on the machine's load.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRepoConfigText } from "../src/config/parse-repo-config.ts";
import { installDependencies } from "../src/verify/install/run-install.ts";
import { sandboxOptionsFor } from "../src/verify/sandbox/sandbox-options.ts";

const PACKAGES = Number(process.argv[2] ?? 20);

async function npmProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-bench-npm-"));
  const dependencies: Record<string, string> = {};
  await mkdir(join(dir, "vendor"));
  for (let i = 0; i < PACKAGES; i++) {
    const pkg = await mkdtemp(join(tmpdir(), "autogen-bench-pkg-"));
    await writeFile(
      join(pkg, "package.json"),
      JSON.stringify({ name: `bench-dep-${i}`, version: "1.0.0", main: "index.js" }),
    );
    await writeFile(join(pkg, "index.js"), `module.exports = ${i};\n`.repeat(50));
    execFileSync("npm", ["pack", "--silent", "--pack-destination", join(dir, "vendor")], { cwd: pkg, stdio: "ignore" });
    await rm(pkg, { recursive: true });
    dependencies[`bench-dep-${i}`] = `file:vendor/bench-dep-${i}-1.0.0.tgz`;
  }
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "bench", private: true, dependencies }));
  execFileSync("npm", ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--silent"], {
    cwd: dir,
    stdio: "ignore",
  });
  return dir;
}

async function pipProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-bench-pip-"));
  await mkdir(join(dir, "wheels"));
  const lines = ["--find-links wheels"];
  for (let i = 0; i < PACKAGES; i++) {
    const script = `import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1] + '/bench_dep_${i}-1.0.0-py3-none-any.whl', 'w')\nz.writestr('bench_dep_${i}/__init__.py', 'X = ${i}\\n')\nz.writestr('bench_dep_${i}-1.0.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: bench-dep-${i}\\nVersion: 1.0.0\\n')\nz.writestr('bench_dep_${i}-1.0.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\nz.writestr('bench_dep_${i}-1.0.0.dist-info/RECORD', '')\nz.close()\n`;
    execFileSync("python3", ["-c", script, join(dir, "wheels")]);
    lines.push(`bench-dep-${i}==1.0.0`);
  }
  await writeFile(join(dir, "requirements.txt"), `${lines.join("\n")}\n`);
  return dir;
}

const test = parseRepoConfigText("").test;
const cacheRoot = await mkdtemp(join(tmpdir(), "autogen-bench-cache-"));
console.log(`${PACKAGES} local packages per project; sandboxed, no network; cache ${cacheRoot}`);
for (const [name, make] of [
  ["npm", npmProject],
  ["pip", pipProject],
] as const) {
  for (const job of ["first job", "second job"]) {
    const dir = await make();
    const started = performance.now();
    const result = await installDependencies(dir, test, sandboxOptionsFor(test), { cacheRoot });
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    if (!result.ran) console.log(`${name}, ${job}: not run (${result.reason})`);
    else
      console.log(
        `${name}, ${job}: ${result.ok ? result.summary.source : "FAILED"} \`${result.summary.command}\` ${seconds} s${result.ok ? "" : `: ${result.message}`}`,
      );
    await rm(dir, { recursive: true, force: true });
  }
}
await rm(cacheRoot, { recursive: true, force: true });
