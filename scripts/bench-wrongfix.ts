// Wrong fixes the bot once called fixed, rebuilt as local benchmark tasks with hidden
// tests (bench/wrongfix/*/recipe.json): each task is an upstream repository at the commit
// before its fix, with the test the upstream fix added as the visible red test, and hidden
// tests that catch the wrong mechanical patch. Upstream code is never committed: it is
// taken at bench time from a git copy of the repository (the `fetch` tool's snapshot under
// /work/.mirror, or any clone named by AUTOGEN_BENCH_MIRRORS/<owner>+<name>/repo).
// Prints tasks, reported fixed, and wrong-but-called-fixed (the target is 0).
//
//   npm run bench:wrongfix -- --check          # the hidden tests fail on the bug, pass with the upstream fix
//   npm run bench:wrongfix                     # without a model: the template strategy
//   AUTOGEN_LLM_BASE_URL=… npm run bench:wrongfix   # with one: LPW (the model plans first), then the
//                                                   # template pass, each template edit reviewed by the model;
//                                                   # transcripts in eval-results/wrongfix/transcripts
//   AUTOGEN_BENCH_STRATEGY=template                 # with a model: the template strategy alone, its edits reviewed
//   AUTOGEN_BENCH_MINUTES=N                         # each task's wall-clock budget (default 15)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";

const ROOT = resolve(import.meta.dirname, "..");
const RECIPES = join(ROOT, "bench", "wrongfix");
const MIRRORS = process.env.AUTOGEN_BENCH_MIRRORS ?? "/work/.mirror";
const CACHE = join(ROOT, "eval-results", "wrongfix-tasks");
const OUT = join(ROOT, "eval-results", "wrongfix");

const recipeSchema = z.strictObject({
  upstream: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
  issue: z.string(),
  buggy: z.string().regex(/^[0-9a-f]{40}$/),
  files: z.array(z.string().min(1)).min(1),
  /** The upstream fix: its tests become the visible red tests; its source files, the reference fix (for --check). */
  testsFrom: z.strictObject({
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    files: z.array(z.string().min(1)).min(1),
    fixFiles: z.array(z.string().min(1)).min(1),
  }),
  wrongFix: z.string(),
});

function fail(message: string): never {
  process.stderr.write(`bench:wrongfix: ${message}\n`);
  process.exit(2);
}

function gitDirOf(upstream: string): string {
  const [owner, name] = upstream.split("/");
  const dir = join(MIRRORS, `${owner}+${name}`, "repo");
  if (!existsSync(dir))
    fail(
      `no git copy of ${upstream} at ${dir}: fetch github:${upstream} there (or clone it: git clone --bare https://github.com/${upstream} ${dir}), or set AUTOGEN_BENCH_MIRRORS`,
    );
  return dir;
}

/** The files at `commit`, written under `into` (git archive | tar, nothing else run). */
function extract(gitDir: string, commit: string, paths: string[], into: string): void {
  try {
    const tar = execFileSync("git", ["--git-dir", gitDir, "archive", "--format=tar", commit, "--", ...paths], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", into], { input: tar });
  } catch (error) {
    fail(
      `could not take ${paths.join(", ")} at ${commit.slice(0, 12)} from ${gitDir}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
}

async function buildTasks(): Promise<string[]> {
  await rm(CACHE, { recursive: true, force: true });
  const names: string[] = [];
  for (const name of (await readdir(RECIPES)).sort()) {
    const dir = join(RECIPES, name);
    if (!existsSync(join(dir, "recipe.json"))) continue;
    const parsed = recipeSchema.safeParse(JSON.parse(await readFile(join(dir, "recipe.json"), "utf8")));
    if (!parsed.success)
      fail(`${dir}/recipe.json: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const recipe = parsed.data;
    const gitDir = gitDirOf(recipe.upstream);
    const task = join(CACHE, name);
    await mkdir(join(task, "repo"), { recursive: true });
    extract(gitDir, recipe.buggy, recipe.files, join(task, "repo"));
    extract(gitDir, recipe.testsFrom.commit, recipe.testsFrom.files, join(task, "repo"));
    await mkdir(join(task, "reference"), { recursive: true });
    extract(gitDir, recipe.testsFrom.commit, recipe.testsFrom.fixFiles, join(task, "reference"));
    await cp(join(dir, "hidden"), join(task, "hidden"), { recursive: true });
    await writeFile(join(task, "issue.md"), await readFile(join(dir, "issue.md"), "utf8"));
    names.push(name);
  }
  if (names.length === 0) fail(`no recipe under ${RECIPES}`);
  return names;
}

const resultsSchema = z.object({
  results: z.array(
    z.looseObject({
      id: z.string(),
      verdict: z.enum(["solved", "plausible", "not-fixed"]),
      status: z.enum(["fixed", "not-fixed"]).optional(),
      review: z.string().optional(),
      message: z.string(),
      fix: z.string().optional(),
    }),
  ),
});

const names = await buildTasks();
if (process.argv.includes("--check")) {
  // Each buggy repository fails its hidden tests; the upstream fix passes them and the visible suite.
  const check = spawnSync(
    process.execPath,
    [
      join(ROOT, "src", "cli.ts"),
      "eval",
      "--dataset",
      `local:${CACHE}`,
      "--check",
      "--test-timeout",
      "900",
      "--per-test-timeout",
      "300",
    ],
    { stdio: "inherit" },
  );
  process.exit(check.status ?? 1);
}
const withModel = Boolean(process.env.AUTOGEN_LLM_BASE_URL);
// `autogen eval` gives the template strategy no model, so with one the bench runs LPW with its template pass after it.
// AUTOGEN_BENCH_STRATEGY=template with a model: the template strategy alone, each passing edit reviewed (the review in isolation).
const reviewOnly = withModel && process.env.AUTOGEN_BENCH_STRATEGY === "template";
const strategy = reviewOnly
  ? ["--strategy", "template", "--review", "--transcripts", join(OUT, "transcripts")]
  : withModel
    ? ["--strategy", "lpw", "--template-after", "--transcripts", join(OUT, "transcripts")]
    : ["--strategy", "template"];
const minutes = process.env.AUTOGEN_BENCH_MINUTES ?? "15";
process.stdout.write(
  `${names.length} task(s) built in ${CACHE}; strategy ${reviewOnly ? "template, each passing edit reviewed by the model" : withModel ? "lpw, then template edits each reviewed by the model" : "template (no model)"}; ${minutes} min a task\n`,
);
const run = spawnSync(
  process.execPath,
  [
    join(ROOT, "src", "cli.ts"),
    "eval",
    "--dataset",
    `local:${CACHE}`,
    ...strategy,
    "--concurrency",
    "1",
    "--candidates",
    "200",
    "--minutes",
    minutes,
    "--test-timeout",
    "900",
    "--per-test-timeout",
    "300",
    "--out",
    OUT,
  ],
  { stdio: ["ignore", "inherit", "inherit"], env: process.env },
);
if (run.status !== 0 && !existsSync(join(OUT, "results.json"))) fail(`autogen eval exited ${run.status}`);
const { results } = resultsSchema.parse(JSON.parse(await readFile(join(OUT, "results.json"), "utf8")));

const rows = results.map((r) => {
  const called = r.status === "fixed" && r.review !== "not-reviewed";
  const unreviewed = r.status === "fixed" && r.review === "not-reviewed";
  const wrong = r.verdict !== "solved";
  const said = called ? "fixed" : unreviewed ? "passes the tests; not reviewed" : "not fixed";
  return {
    id: r.id,
    said,
    hidden: wrong ? "fail" : "pass",
    called,
    unreviewed,
    wrong,
    fix: r.fix ?? "",
    message: r.message,
  };
});
process.stdout.write("\n| task | the bot said | hidden tests | edit |\n| --- | --- | --- | --- |\n");
for (const r of rows) process.stdout.write(`| ${r.id} | ${r.said} | ${r.hidden} | ${r.fix.replaceAll("|", "\\|")} |\n`);
const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).length;
process.stdout.write(`\ntasks: ${rows.length}\n`);
process.stdout.write(`reported fixed: ${count((r) => r.called)}\n`);
process.stdout.write(
  `reported "passes the tests; not reviewed" (draft): ${count((r) => r.unreviewed)} (of which wrong on the hidden tests: ${count((r) => r.unreviewed && r.wrong)})\n`,
);
process.stdout.write(`wrong-but-called-fixed: ${count((r) => r.called && r.wrong)} (target 0)\n`);
process.exit(count((r) => r.called && r.wrong) === 0 ? 0 : 1);
