// Wrong fixes the bot once called fixed, rebuilt as local benchmark tasks with hidden
// tests (bench/wrongfix/*/recipe.json): each task is an upstream repository at the commit
// before its fix, with the test the upstream fix added as the visible red test, and hidden
// tests that catch the wrong mechanical patch. Upstream code is never committed: it is
// taken at bench time from a git copy of the repository (the `fetch` tool's snapshot under
// /work/.mirror, or any clone named by AUTOGEN_BENCH_MIRRORS/<owner>+<name>/repo).
// Prints tasks, reported fixed, and wrong-but-called-fixed (the target is 0), and per task
// the behaviour table the post-checks made of a fix (with a model), or why there is none.
//
//   npm run bench:wrongfix -- --check          # the hidden tests fail on the bug, pass with the upstream fix
//   npm run bench:wrongfix                     # without a model: the template strategy
//   AUTOGEN_LLM_BASE_URL=… npm run bench:wrongfix   # with one: LPW (the model plans first), then the
//                                                   # template pass, each template edit reviewed by the model;
//                                                   # transcripts in eval-results/wrongfix/transcripts
//   AUTOGEN_BENCH_STRATEGY=template                 # with a model: the template strategy alone, its edits reviewed
//   AUTOGEN_BENCH_MINUTES=N                         # each task's wall-clock budget (default 15)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { buildRecipeTasks, RecipeError } from "./bench-recipes/build-recipe-tasks.ts";
import type { BehaviourTable } from "../src/engine/behaviour/behaviour-table.ts";
import { behaviourRows, behaviourVerdict } from "../src/eval/behaviour-lines.ts";

const ROOT = resolve(import.meta.dirname, "..");
const RECIPES = join(ROOT, "bench", "wrongfix");
const MIRRORS = process.env.AUTOGEN_BENCH_MIRRORS ?? "/work/.mirror";
const CACHE = join(ROOT, "eval-results", "wrongfix-tasks");
const OUT = join(ROOT, "eval-results", "wrongfix");

function fail(message: string): never {
  process.stderr.write(`bench:wrongfix: ${message}\n`);
  process.exit(2);
}

async function buildTasks(): Promise<string[]> {
  await rm(CACHE, { recursive: true, force: true });
  try {
    const built = await buildRecipeTasks(RECIPES, MIRRORS, (name) => join(CACHE, name));
    const noWrongFix = built.find((t) => t.recipe.wrongFix === undefined || t.recipe.fixTests !== "visible");
    if (noWrongFix)
      fail(
        `${RECIPES}/${noWrongFix.name}/recipe.json: a wrong-fix task names its wrongFix and keeps the fix's tests visible`,
      );
    return built.map((t) => t.name);
  } catch (error) {
    if (error instanceof RecipeError) fail(error.message);
    throw error;
  }
}

const resultsSchema = z.object({
  results: z.array(
    z.looseObject({
      id: z.string(),
      verdict: z.enum(["solved", "plausible", "not-fixed"]),
      status: z.enum(["fixed", "not-fixed"]).optional(),
      review: z.string().optional(),
      unreviewed: z.boolean().optional(),
      said: z.string().optional(),
      behaviour: z
        .union([
          z.object({ kind: z.literal("none"), reason: z.string() }),
          z.object({
            kind: z.literal("table"),
            module: z.string(),
            rows: z.array(
              z.object({
                call: z.string(),
                why: z.string(),
                before: z.string(),
                after: z.string(),
                expected: z.string(),
                flag: z.enum(["ok", "contradicts", "unrequested"]),
              }),
            ),
          }),
        ])
        .optional(),
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
  // A fix no one reviewed, or one whose behaviour table flags a change the issue did not ask for, is a draft.
  const draft = r.unreviewed ?? r.review === "not-reviewed";
  const called = r.status === "fixed" && !draft;
  const unreviewed = r.status === "fixed" && draft;
  const wrong = r.verdict !== "solved";
  const said = r.status === "fixed" ? (r.said ?? (called ? "fixed" : "passes the tests; not reviewed")) : "not fixed";
  return {
    id: r.id,
    said,
    hidden: wrong ? "fail" : "pass",
    called,
    unreviewed,
    wrong,
    fix: r.fix ?? "",
    message: r.message,
    behaviour: r.behaviour as BehaviourTable | undefined,
  };
});
process.stdout.write("\n| task | the bot said | hidden tests | edit |\n| --- | --- | --- | --- |\n");
for (const r of rows) process.stdout.write(`| ${r.id} | ${r.said} | ${r.hidden} | ${r.fix.replaceAll("|", "\\|")} |\n`);
process.stdout.write("\nbehaviour tables (post-checks on each fix):\n");
for (const r of rows) {
  const lines = r.behaviour
    ? [behaviourVerdict(r.behaviour), ...behaviourRows(r.behaviour)]
    : [`behaviour: no fix to check (${r.message.slice(0, 200)})`];
  process.stdout.write(`- ${r.id}: ${lines.join("\n    ")}\n`);
}
const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).length;
process.stdout.write(`\ntasks: ${rows.length}\n`);
process.stdout.write(`not fixed: ${count((r) => r.said === "not fixed")}\n`);
process.stdout.write(`reported fixed: ${count((r) => r.called)}\n`);
process.stdout.write(
  `reported "passes the tests; not reviewed" (draft): ${count((r) => r.unreviewed)} (of which wrong on the hidden tests: ${count((r) => r.unreviewed && r.wrong)})\n`,
);
process.stdout.write(`wrong-but-called-fixed: ${count((r) => r.called && r.wrong)} (target 0)\n`);
process.exit(count((r) => r.called && r.wrong) === 0 ? 0 : 1);
