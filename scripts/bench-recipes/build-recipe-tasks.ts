// Benchmark tasks rebuilt from upstream repositories by recipe (bench/<set>/<task>/recipe.json):
// the repository at the commit before a real fix, the fix's tests (given to the bot as its
// red tests, or kept hidden for scoring when the bot has only the issue), the fix's source
// files as the reference. Shared by bench:wrongfix and bench:upstream. Upstream code is never
// committed: it is taken at bench time from a git copy of the repository (the `fetch` tool's
// snapshot under /work/.mirror, or any clone named by AUTOGEN_BENCH_MIRRORS/<owner>+<name>/repo).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const sha = z.string().regex(/^[0-9a-f]{40}$/);
const path = z.string().min(1);

export const recipeSchema = z.strictObject({
  upstream: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
  /** Where the bug was reported (an issue's address, or the fix commit's when it closes none). */
  issue: z.string(),
  buggy: sha,
  files: z.array(path).min(1),
  /** The upstream fix: its tests become the red tests or the hidden tests; its source files, the reference fix. */
  testsFrom: z.strictObject({
    commit: sha,
    files: z.array(path).min(1),
    fixFiles: z.array(path).min(1),
  }),
  /** "visible": the fix's tests are in the repository the bot gets (bench:wrongfix); "hidden": the bot has the issue alone, the tests score it. */
  fixTests: z.enum(["visible", "hidden"]).default("visible"),
  /** Test-side files the hidden run needs beside the fix's tests (a conftest, an assert helper, data files), taken at the fix commit. */
  hiddenSupport: z.array(path).default([]),
  /** The tests the fix added, as the project names them (for the report; the hidden run runs whole files). */
  addedTests: z.array(z.string().min(1)).default([]),
  /** The functions the fix changed: is each shown to the model, and when. */
  changed: z.array(z.strictObject({ file: path, symbol: z.string().min(1) })).default([]),
  /**
   * Visible pytest tests (`file.py::test_name`, a module-level function) that are red on the
   * buggy code and on the upstream fix alike for a reason outside the bug (this harness, this
   * machine): each is marked `@pytest.mark.skip` in the task with the recorded reason, so a
   * visible suite that is green upstream is green here. The hidden tests are never touched.
   */
  skipVisible: z
    .array(
      z.strictObject({ test: z.string().regex(/^[\w./-]+\.py::\w+$/), reason: z.string().regex(/^[\x20-\x7e]{20,}$/) }),
    )
    .default([]),
  /** npm packages the project's test command needs (installed beside the task at bench time, never in the task). */
  npm: z.array(z.string().min(1)).default([]),
  /** bench:wrongfix: the mechanical patch that passes the red tests and is wrong. */
  wrongFix: z.string().optional(),
});
export type Recipe = z.infer<typeof recipeSchema>;

/** Where the fix's changed function is, and how to recognise it in a prompt. */
export type ChangedSymbol = { file: string; symbol: string; definition: string; faultLines: string[] };

export type BuiltTask = { name: string; recipe: Recipe; changed: ChangedSymbol[] };

export class RecipeError extends Error {}

export function gitDirOf(mirrors: string, upstream: string): string {
  const [owner, name] = upstream.split("/");
  const dir = join(mirrors, `${owner}+${name}`, "repo");
  if (!existsSync(dir))
    throw new RecipeError(
      `no git copy of ${upstream} at ${dir}: fetch github:${upstream} there (or clone it: git clone --bare https://github.com/${upstream} ${dir}), or set AUTOGEN_BENCH_MIRRORS`,
    );
  return dir;
}

/** The files at `commit`, written under `into` (git archive | tar, nothing else run). */
function extract(gitDir: string, commit: string, paths: string[], into: string): void {
  try {
    const tar = execFileSync("git", ["--git-dir", gitDir, "archive", "--format=tar", commit, "--", ...paths], {
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
    execFileSync("tar", ["-x", "-C", into], { input: tar });
  } catch (error) {
    throw new RecipeError(
      `could not take ${paths.join(", ")} at ${commit.slice(0, 12)} from ${gitDir}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
}

/** Marks each listed visible test skipped (its reason in the marker), or says why it cannot. Bytes are kept as they are (latin1 both ways). */
async function skipVisibleTests(repo: string, skips: Recipe["skipVisible"]): Promise<void> {
  for (const { test, reason } of skips) {
    const [file = "", name = ""] = test.split("::");
    const path = join(repo, file);
    if (!existsSync(path)) throw new RecipeError(`skipVisible: ${file} is not in the task's repository`);
    const lines = (await readFile(path, "latin1")).split("\n");
    if (!lines.some((l) => /^import pytest\b/.test(l)))
      throw new RecipeError(`skipVisible: ${file} does not import pytest`);
    const at = lines.findIndex((l) => new RegExp(`^(async\\s+)?def\\s+${name}\\s*\\(`).test(l));
    if (at < 0) throw new RecipeError(`skipVisible: ${file} has no module-level def ${name}`);
    lines.splice(at, 0, `@pytest.mark.skip(reason=${JSON.stringify(`bench: ${reason}`)})`);
    await writeFile(path, lines.join("\n"), "latin1");
  }
}

function git(gitDir: string, args: string[]): string {
  return execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

const DEFINITION = (name: string) => {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^\\s*((async\\s+)?def|class)\\s+${n}\\b|^\\s*(export\\s+)?(async\\s+)?function\\*?\\s+${n}\\b|^\\s*(export\\s+)?(const|let|var)\\s+${n}\\s*=|^\\s*${n}\\s*=|^\\s*${n}\\s*\\(.*\\)\\s*\\{\\s*$`,
  );
};

/**
 * The symbol's definition line in the buggy file and the lines the fix replaced (for a fix that
 * only adds lines, the line its first hunk starts after): both must be in a prompt that shows it.
 */
function changedSymbol(gitDir: string, recipe: Recipe, file: string, symbol: string): ChangedSymbol {
  const source = git(gitDir, ["show", `${recipe.buggy}:${file}`]).split("\n");
  const last = symbol.split(".").at(-1) ?? symbol;
  // `module.exports = function …` is found by its whole name; a method by its own.
  const whole = new RegExp(`^\\s*${symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*=`);
  const definition = source.find((line) => whole.test(line) || DEFINITION(last).test(line))?.trim();
  if (!definition) throw new RecipeError(`${file} at ${recipe.buggy.slice(0, 12)} defines no ${symbol}`);
  const diff = git(gitDir, ["diff", "-U1", recipe.buggy, recipe.testsFrom.commit, "--", file]).split("\n");
  const removed = diff.filter((l) => l.startsWith("-") && !l.startsWith("---")).map((l) => l.slice(1).trim());
  const faultLines = removed.filter((l) => l.length >= 6);
  if (faultLines.length === 0) {
    const firstAdded = diff.findIndex((l) => l.startsWith("+") && !l.startsWith("+++"));
    const before = diff
      .slice(0, firstAdded)
      .reverse()
      .find((l) => l.startsWith(" ") && l.trim().length >= 6);
    if (before) faultLines.push(before.trim());
  }
  return { file, symbol, definition, faultLines };
}

/**
 * Every recipe under `recipesDir`, built as an `autogen-bot eval` local task under
 * `into(name)` (repo/, hidden/, reference/, issue.md). Committed hidden tests (hidden/ beside
 * the recipe) are copied; with `fixTests: "hidden"` the fix's own tests are the hidden tests.
 */
export async function buildRecipeTasks(
  recipesDir: string,
  mirrors: string,
  into: (name: string) => string,
  only?: readonly string[],
): Promise<BuiltTask[]> {
  const built: BuiltTask[] = [];
  for (const name of (await readdir(recipesDir)).sort()) {
    const dir = join(recipesDir, name);
    if (!existsSync(join(dir, "recipe.json"))) continue;
    if (only && only.length > 0 && !only.includes(name)) continue;
    const parsed = recipeSchema.safeParse(JSON.parse(await readFile(join(dir, "recipe.json"), "utf8")));
    if (!parsed.success)
      throw new RecipeError(
        `${dir}/recipe.json: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    const recipe = parsed.data;
    if (!existsSync(join(dir, "issue.md"))) throw new RecipeError(`${dir}: no issue.md (what the reporter wrote)`);
    const gitDir = gitDirOf(mirrors, recipe.upstream);
    const task = into(name);
    await rm(task, { recursive: true, force: true });
    await mkdir(join(task, "repo"), { recursive: true });
    extract(gitDir, recipe.buggy, recipe.files, join(task, "repo"));
    await skipVisibleTests(join(task, "repo"), recipe.skipVisible);
    const fixTests = [...recipe.testsFrom.files, ...recipe.hiddenSupport];
    if (recipe.fixTests === "visible")
      extract(gitDir, recipe.testsFrom.commit, recipe.testsFrom.files, join(task, "repo"));
    await mkdir(join(task, "hidden"), { recursive: true });
    if (recipe.fixTests === "hidden") extract(gitDir, recipe.testsFrom.commit, fixTests, join(task, "hidden"));
    if (existsSync(join(dir, "hidden"))) await cp(join(dir, "hidden"), join(task, "hidden"), { recursive: true });
    await mkdir(join(task, "reference"), { recursive: true });
    extract(gitDir, recipe.testsFrom.commit, recipe.testsFrom.fixFiles, join(task, "reference"));
    await writeFile(join(task, "issue.md"), await readFile(join(dir, "issue.md"), "utf8"));
    const changed = recipe.changed.map((c) => changedSymbol(gitDir, recipe, c.file, c.symbol));
    built.push({ name, recipe, changed });
  }
  if (built.length === 0)
    throw new RecipeError(`no recipe under ${recipesDir}${only?.length ? ` named ${only.join(", ")}` : ""}`);
  return built;
}
