// Red team, the CLI's door: a hostile `.github/autogen.yml` (an alias bomb, nesting past the
// stack, a link or a directory in its place, not UTF-8, too large, duplicate keys, not a
// mapping) is the config error users see, from `autogen fix` (exit 2) and `autogen
// check-config` (exit 1, as for any invalid config), never a stack trace.
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { runCli, spawnCli } from "../support/run-cli.ts";

const CONFIG_PATH = ".github/autogen.yml";
const ALIAS_BOMB = [
  "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
  ...["b", "c", "d", "e", "f", "g", "h", "i"].map(
    (k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(", ")}]`,
  ),
].join("\n");
const STACK = /\n\s+at |ReferenceError|RangeError|TypeError|Excessive alias count|node:internal/;
const ENV = { PATH: process.env.PATH, HOME: process.env.HOME };

type Hostile = { name: string; plant: (repo: string) => Promise<void>; problem: string };
const text = (content: string | Buffer) => async (repo: string) => {
  await mkdir(join(repo, ".github"), { recursive: true });
  await writeFile(join(repo, CONFIG_PATH), content);
};
const HOSTILE: Hostile[] = [
  {
    name: "an alias bomb",
    plant: text(ALIAS_BOMB),
    problem:
      "uses YAML aliases (*name) more than 50 times in all, the limit that stops alias bombs: write the values out",
  },
  {
    name: "nesting past the stack",
    plant: text(`label: ${"{a: ".repeat(12_000)}1${"}".repeat(12_000)}`),
    problem: "nests too deeply to read: flatten the structure",
  },
  {
    name: "duplicate keys",
    plant: text("label: a\ntest:\n  env:\n    A: '1'\n    A: '2'\nlabel: b\n"),
    problem: 'the key "label" is given twice (the second at line 6, column 1): keep one',
  },
  {
    name: "a scalar at the top level",
    plant: text("just a sentence\n"),
    problem: "the file must be a mapping of keys to values",
  },
  { name: "a file over the size limit", plant: text(`# ${"x".repeat(100_000)}\n`), problem: "65536" },
  {
    name: "bytes that are not UTF-8",
    plant: text(Buffer.from([0x6c, 0x3a, 0x20, 0xff, 0xfe, 0x0a])),
    problem: "is not UTF-8 text: save it as UTF-8",
  },
  {
    name: "a symbolic link to a file outside the repository",
    plant: async (repo) => {
      await mkdir(join(repo, ".github"), { recursive: true });
      await symlink("/etc/passwd", join(repo, CONFIG_PATH));
    },
    problem: "cannot be read: it goes through a symbolic link",
  },
  {
    name: "a directory in place of the file",
    plant: async (repo) => text("label: x\n")(join(repo, CONFIG_PATH)),
    problem: "cannot be read: it is not a regular file",
  },
];

/** A committed repository whose config is this hostile thing (a clean tree, so `fix` gets as far as reading it). */
async function hostileRepo(hostile: Hostile): Promise<string> {
  const repo = await gitRepo({ "README.md": "shop\n" });
  await hostile.plant(repo);
  await git(repo).raw(["add", "--all"]);
  await git(repo).raw([
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "config",
  ]);
  return repo;
}

describe("a hostile config, through the CLI", () => {
  it.each(HOSTILE)(
    "$name: fix exits 2 and check-config 1, each saying what is wrong, no stack trace",
    async (hostile) => {
      const repo = await hostileRepo(hostile);
      expect(execFileSync("git", ["-C", repo, "status", "--porcelain"], { encoding: "utf8" })).toBe("");

      const fix = await runCli(["fix", repo, "--issue", "Discount is added"], { env: ENV });
      expect(fix.code).toBe(2);
      expect(fix.stdout).toBe("");
      expect(fix.stderr.startsWith(`autogen fix: ${CONFIG_PATH} is invalid:\n- `)).toBe(true);
      expect(fix.stderr).toContain(hostile.problem);
      expect(fix.stderr).not.toMatch(STACK);

      const check = await runCli(["check-config"], { env: ENV, cwd: repo });
      expect(check.code).toBe(1);
      expect(check.stderr.startsWith(`${join(repo, CONFIG_PATH)}: invalid\n- `)).toBe(true);
      expect(check.stderr).toContain(hostile.problem);
      expect(check.stderr).not.toMatch(STACK);
    },
  );

  it("the alias bomb through the real binary (a child process): the message, no uncaught error", async () => {
    const [bomb] = HOSTILE;
    const repo = await hostileRepo(bomb as Hostile);
    const fix = await spawnCli(["fix", repo, "--issue", "Discount is added"], ENV);
    expect(fix).toMatchObject({ code: 2, stdout: "" });
    expect(fix.stderr).toBe(`autogen fix: ${CONFIG_PATH} is invalid:\n- ${bomb?.problem}\n`);
    const check = await spawnCli(["check-config", join(repo, CONFIG_PATH)], ENV);
    expect(check).toEqual({ code: 1, stdout: "", stderr: `${join(repo, CONFIG_PATH)}: invalid\n- ${bomb?.problem}\n` });
  });
});
