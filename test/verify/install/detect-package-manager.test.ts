// Which install each lockfile means, as argv: no shell, and no name or byte of the
// repository's in an option position.
import { mkdtemp, mkdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectPackageManager } from "../../../src/verify/install/detect-package-manager.ts";

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-detect-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

const TABLE: Array<[string, Record<string, string>, string, string[], string[] | undefined, string[]]> = [
  [
    "npm",
    { "package-lock.json": "{}", "package.json": "{}" },
    "npm",
    ["npm", "ci"],
    ["npm", "ci", "--offline"],
    ["package-lock.json", "package.json"],
  ],
  [
    "npm shrinkwrap",
    { "npm-shrinkwrap.json": "{}" },
    "npm",
    ["npm", "ci"],
    ["npm", "ci", "--offline"],
    ["npm-shrinkwrap.json"],
  ],
  [
    "pnpm",
    { "pnpm-lock.yaml": "lockfileVersion: '9.0'\n", "package.json": "{}" },
    "pnpm",
    ["pnpm", "install", "--frozen-lockfile"],
    ["pnpm", "install", "--frozen-lockfile", "--offline"],
    ["pnpm-lock.yaml", "package.json"],
  ],
  [
    "yarn classic",
    { "yarn.lock": "# yarn lockfile v1\n" },
    "yarn",
    ["yarn", "install", "--frozen-lockfile"],
    ["yarn", "install", "--frozen-lockfile", "--offline"],
    ["yarn.lock"],
  ],
  [
    "yarn berry",
    { "yarn.lock": "__metadata:\n  version: 8\n" },
    "yarn",
    ["yarn", "install", "--immutable"],
    undefined,
    ["yarn.lock"],
  ],
  ["bun text lock", { "bun.lock": "{}" }, "bun", ["bun", "install", "--frozen-lockfile"], undefined, ["bun.lock"]],
  [
    "bun binary lock",
    { "bun.lockb": "\u0000" },
    "bun",
    ["bun", "install", "--frozen-lockfile"],
    undefined,
    ["bun.lockb"],
  ],
  [
    "uv",
    { "uv.lock": "version = 1\n", "pyproject.toml": "" },
    "uv",
    ["uv", "sync", "--frozen"],
    ["uv", "sync", "--frozen", "--offline"],
    ["uv.lock", "pyproject.toml"],
  ],
  [
    "poetry",
    { "poetry.lock": "", "pyproject.toml": "" },
    "poetry",
    ["poetry", "install", "--no-interaction"],
    undefined,
    ["poetry.lock", "pyproject.toml"],
  ],
  ["go", { "go.sum": "", "go.mod": "module x\n" }, "go", ["go", "mod", "download"], undefined, ["go.sum", "go.mod"]],
  [
    "cargo",
    { "Cargo.lock": "", "Cargo.toml": "" },
    "cargo",
    ["cargo", "fetch", "--locked"],
    ["cargo", "fetch", "--locked", "--offline"],
    ["Cargo.lock", "Cargo.toml"],
  ],
];

describe("detectPackageManager", () => {
  it.each(TABLE)("%s", async (_name, files, manager, argv, offline, keyFiles) => {
    const plan = detectPackageManager(await workspace(files));
    expect(plan).toMatchObject({ manager, argv, keyFiles });
    expect(plan?.offlineArgv).toEqual(offline);
  });

  it("pip: every requirements*.txt, as values of -r, into the cache target; offline with --no-index", async () => {
    const plan = detectPackageManager(
      await workspace({ "requirements.txt": "six\n", "requirements-dev.txt": "pytest\n", "notes.txt": "" }),
    );
    expect(plan?.manager).toBe("pip");
    expect(plan?.keyFiles).toEqual(["requirements-dev.txt", "requirements.txt"]);
    expect(plan?.argv).toEqual([
      "python3",
      "-m",
      "pip",
      "install",
      "--disable-pip-version-check",
      "--no-input",
      "--target",
      "{target}",
      "-r",
      "requirements-dev.txt",
      "-r",
      "requirements.txt",
    ]);
    expect(plan?.offlineArgv).toContain("--no-index");
  });

  it("a JavaScript lockfile wins over Python and Go files in the same repository; none at all is undefined", async () => {
    expect(
      detectPackageManager(await workspace({ "go.sum": "", "requirements.txt": "", "package-lock.json": "{}" }))
        ?.manager,
    ).toBe("npm");
    expect(detectPackageManager(await workspace({ "package.json": '{"dependencies":{"a":"1"}}' }))).toBeUndefined();
  });

  it("a hostile repository: names that look like options or hold spaces are never taken; contents never reach argv", async () => {
    const dir = await workspace({
      "requirements --index-url=http:x.txt": "",
      "-rrequirements.txt": "",
      "requirements.txt\n--pre": "",
      "package-lock.json": '{"x": "$(touch /tmp/pwned); --registry=http://evil"}',
    });
    const plan = detectPackageManager(dir);
    expect(plan?.argv).toEqual(["npm", "ci"]);
    const pip = detectPackageManager(
      await workspace({ "-r": "", "--target=/etc": "", "requirements-ok.txt": "--index-url http://evil\n" }),
    );
    expect(pip?.keyFiles).toEqual(["requirements-ok.txt"]);
    expect(pip?.argv.slice(-2)).toEqual(["-r", "requirements-ok.txt"]);
    expect(pip?.argv.join(" ")).not.toContain("evil");
  });

  it("a lockfile that is a link (it could point anywhere on the host) is not a lockfile", async () => {
    const dir = await workspace({});
    await symlink("/etc/passwd", join(dir, "package-lock.json"));
    expect(detectPackageManager(dir)).toBeUndefined();
  });
});
