// Real upstream bugs reported in issues (bench/upstream/*/recipe.json), Python and JavaScript:
// each task is the repository at the commit before the fix, the issue as its reporter wrote
// it, and the fix's own tests kept hidden for scoring. Built by the recipe loader bench:wrongfix
// uses; upstream code is never committed. One `autogen-bot eval` per task; prints per task the
// hidden-test verdict, model calls by stage, prompt characters per call (median / max), seconds
// to the first model call, seconds in tests, and whether the function the fix changed was in
// the first prompt (and which call first showed it), read from the saved transcript.
//
//   npm run bench:upstream -- --check              # hidden tests fail on the bug and pass with the upstream fix
//   npm run bench:upstream [-- --task a,b]         # without a model: the template strategy
//   AUTOGEN_LLM_BASE_URL=… npm run bench:upstream  # with one: LPW (the default strategy, template pass after it);
//                                                  # transcripts in eval-results/upstream/<task>/transcripts
//   npm run bench:upstream -- --report             # the table again from the results already there (no run)
//   AUTOGEN_BENCH_MINUTES=N                        # each task's wall-clock budget (default 15)
//   AUTOGEN_BENCH_CANDIDATES=N                     # each task's candidate budget (default 200); SEIDR's arity
//                                                  # and beam width scale to it (15: 3 drafts, 3 kept)
//   AUTOGEN_BENCH_STRATEGY=slpw|seidr              # with a model: that strategy instead of LPW, its results and
//                                                  # transcripts in eval-results/upstream-<strategy>/<task>
//
// A JavaScript task's test command needs its runner (tape, vitest): the recipe names the
// packages, installed once under <tasks>/<task>/node_modules, outside the task; the task's
// workspaces are made below that folder (TMPDIR) so Node finds them there, and their .bin is
// put on PATH. <tasks> is AUTOGEN_BENCH_TASKS, by default <this clone>-bench-tasks beside the
// clone, never inside it: vitest looks for its config in every folder above the one it runs in,
// and a workspace inside this clone found autogen-bot's own vitest.config.ts (vite then tried to
// write its bundled copy into our read-only node_modules: 0 tests loaded).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { transcriptEntrySchema } from "../src/llm/transcript.ts";
import { buildRecipeTasks, RecipeError, type BuiltTask } from "./bench-recipes/build-recipe-tasks.ts";

const ROOT = resolve(import.meta.dirname, "..");
const RECIPES = join(ROOT, "bench", "upstream");
const MIRRORS = process.env.AUTOGEN_BENCH_MIRRORS ?? "/work/.mirror";
const CACHE = resolve(process.env.AUTOGEN_BENCH_TASKS ?? join(dirname(ROOT), `${basename(ROOT)}-bench-tasks`));
if (`${CACHE}/`.startsWith(`${ROOT}/`))
  fail(`AUTOGEN_BENCH_TASKS=${CACHE} is inside ${ROOT}: a task's vitest would find autogen-bot's own vitest.config.ts`);
/** With a model: LPW (the default strategy) unless AUTOGEN_BENCH_STRATEGY names another of the model's strategies. */
const MODEL_STRATEGY = z.enum(["lpw", "slpw", "seidr"]).parse(process.env.AUTOGEN_BENCH_STRATEGY?.trim() || "lpw", {
  error: () => "AUTOGEN_BENCH_STRATEGY: lpw, slpw or seidr",
});
const OUT = join(ROOT, "eval-results", MODEL_STRATEGY === "lpw" ? "upstream" : `upstream-${MODEL_STRATEGY}`);

function fail(message: string): never {
  process.stderr.write(`bench:upstream: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const taskArg = args.indexOf("--task");
const only = taskArg >= 0 ? (args[taskArg + 1] ?? fail("--task needs a list of task names")).split(",") : undefined;
const check = args.includes("--check");
/** The table again from the results and transcripts already under eval-results/upstream (tasks run in several sittings). */
const reportOnly = args.includes("--report");

/** Each task alone in a dataset folder (eval loads every folder of a dataset), its npm packages beside it. */
const datasetOf = (name: string) => join(CACHE, name, "dataset");

let tasks: BuiltTask[];
try {
  // A report reads the recipes again (the changed functions) without touching the tasks a run may be using.
  tasks = await buildRecipeTasks(
    RECIPES,
    MIRRORS,
    (name) => (reportOnly ? join(OUT, ".report-tasks", name) : join(datasetOf(name), name)),
    only,
  );
} catch (error) {
  if (error instanceof RecipeError) fail(error.message);
  throw error;
}
const notHidden = tasks.find((t) => t.recipe.fixTests !== "hidden" || t.recipe.changed.length === 0);
if (notHidden)
  fail(
    `${RECIPES}/${notHidden.name}/recipe.json: an upstream task keeps the fix's tests hidden and names what it changed`,
  );

/** The recipe's npm packages under CACHE/<task>/node_modules, installed again only when the list changes. */
async function installPackages(task: BuiltTask): Promise<Record<string, string>> {
  if (task.recipe.npm.length === 0) return {};
  const home = join(CACHE, task.name);
  const stamp = join(home, "packages.txt");
  const wanted = task.recipe.npm.join("\n");
  if (!existsSync(stamp) || (await readFile(stamp, "utf8")) !== wanted) {
    process.stdout.write(`${task.name}: installing ${task.recipe.npm.join(" ")}\n`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", home, ...task.recipe.npm], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    await writeFile(stamp, wanted);
  }
  const tmp = join(home, "tmp");
  await mkdir(tmp, { recursive: true });
  return { TMPDIR: tmp, PATH: [join(home, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter) };
}

const cli = join(ROOT, "src", "cli.ts");
if (check) {
  let failed = 0;
  for (const task of tasks) {
    const run = spawnSync(
      process.execPath,
      [
        cli,
        "eval",
        "--dataset",
        `local:${datasetOf(task.name)}`,
        "--check",
        "--test-timeout",
        "900",
        "--per-test-timeout",
        "300",
      ],
      { stdio: "inherit", env: { ...process.env, ...(await installPackages(task)) } },
    );
    if (run.status !== 0) failed += 1;
  }
  process.stdout.write(`\n${tasks.length - failed} of ${tasks.length} task(s) check out\n`);
  process.exit(failed === 0 ? 0 : 1);
}

/** A report reads how the tasks ran from their saved transcripts, not from this shell's environment. */
const ranWithModel = () =>
  tasks.some((t) => existsSync(join(OUT, t.name, "transcripts", MODEL_STRATEGY, `${t.name}.jsonl`)));
const withModel = reportOnly ? ranWithModel() : Boolean(process.env.AUTOGEN_LLM_BASE_URL);
const minutes = process.env.AUTOGEN_BENCH_MINUTES ?? "15";
const candidatesParsed = z.coerce
  .number()
  .int()
  .positive()
  .safeParse(process.env.AUTOGEN_BENCH_CANDIDATES?.trim() || "200");
if (!candidatesParsed.success) fail("AUTOGEN_BENCH_CANDIDATES must be a positive whole number (the candidate budget)");
const candidates = candidatesParsed.data;
const strategyName = withModel ? MODEL_STRATEGY : "template";
process.stdout.write(
  `${tasks.length} task(s) built in ${CACHE}; strategy ${withModel ? `${MODEL_STRATEGY}, template pass after it (as autogen-bot fix runs)` : "template (no model)"}; ${minutes} min and ${candidates} candidates a task\n`,
);

const resultsSchema = z.object({
  results: z.array(
    z.looseObject({
      id: z.string(),
      verdict: z.enum(["solved", "plausible", "not-fixed"]),
      stopReason: z.string(),
      message: z.string(),
      cost: z.looseObject({ testSeconds: z.number(), wallSeconds: z.number() }),
      model: z
        .looseObject({
          calls: z.number(),
          callsByStage: z.record(z.string(), z.number()),
          firstCallSeconds: z.number().nullable(),
          firstCallAfterBaselineSeconds: z.number().nullable().optional(),
        })
        .optional(),
    }),
  ),
});

type Row = {
  task: string;
  language: string;
  verdict: string;
  calls: number | undefined;
  byStage: string;
  promptChars: number[];
  firstCall: number | null | undefined;
  firstCallAfterBaseline: number | null | undefined;
  testSeconds: number;
  wallSeconds: number;
  shownFirst: boolean | undefined;
  firstShownAt: string;
  note: string;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

/** A reproduction test is written from the issue; every later stage reasons about the code at fault. */
const NEEDS_CODE = (stage: string) => stage !== "reproduce" && stage !== "knowledge";

/** Every changed function is shown when its definition line and the lines the fix replaced are all in the prompt. */
function showsChanged(task: BuiltTask, prompt: string): boolean {
  return task.changed.every((c) => prompt.includes(c.definition) && c.faultLines.every((l) => prompt.includes(l)));
}

async function transcriptOf(task: BuiltTask) {
  const file = join(OUT, task.name, "transcripts", strategyName, `${task.name}.jsonl`);
  if (!existsSync(file)) return [];
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => transcriptEntrySchema.parse(JSON.parse(line)));
}

const languageOf = (task: BuiltTask) => (task.recipe.npm.length > 0 ? "js" : "python");

function errorRow(task: BuiltTask, note: string): Row {
  const none = {
    calls: undefined,
    byStage: "–",
    promptChars: [],
    firstCall: undefined,
    firstCallAfterBaseline: undefined,
    shownFirst: undefined,
  };
  return {
    task: task.name,
    language: languageOf(task),
    verdict: "error",
    ...none,
    testSeconds: 0,
    wallSeconds: 0,
    firstShownAt: "–",
    note,
  };
}

const rows: Row[] = [];
for (const task of tasks) {
  const out = join(OUT, task.name);
  await mkdir(out, { recursive: true });
  const strategy = withModel
    ? ["--strategy", MODEL_STRATEGY, "--template-after", "--transcripts", join(out, "transcripts")]
    : ["--strategy", "template"];
  // A result left by an earlier run must not stand in for this one's, nor its transcript (appended to, it mixed
  // two runs' calls into one row's prompt figures).
  if (!reportOnly) {
    await rm(join(out, "results.json"), { force: true });
    if (withModel) await rm(join(out, "transcripts", MODEL_STRATEGY), { recursive: true, force: true });
  }
  const run = reportOnly
    ? { status: 0 }
    : spawnSync(
        process.execPath,
        [
          cli,
          "eval",
          "--dataset",
          `local:${datasetOf(task.name)}`,
          ...strategy,
          "--concurrency",
          "1",
          "--candidates",
          String(candidates),
          "--minutes",
          minutes,
          "--test-timeout",
          "900",
          "--per-test-timeout",
          "300",
          "--out",
          out,
        ],
        { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...(await installPackages(task)) } },
      );
  const resultsFile = join(out, "results.json");
  if (reportOnly && !existsSync(resultsFile)) {
    // A task named with --task must have run; without --task, the table holds the tasks that did.
    if (only) fail(`${task.name} has not run yet: no ${resultsFile}`);
    process.stderr.write(`bench:upstream: ${task.name} has not run yet; left out of the table\n`);
    continue;
  }
  if (run.status !== 0 && !existsSync(resultsFile)) {
    // One task's eval failing on its own side (a refused setting, a crash) does not stop the others.
    process.stderr.write(`bench:upstream: autogen eval exited ${run.status} on ${task.name}; going on\n`);
    rows.push(errorRow(task, `autogen eval exited ${run.status}`));
    continue;
  }
  const [result] = resultsSchema.parse(JSON.parse(await readFile(resultsFile, "utf8"))).results;
  if (!result) fail(`${resultsFile} has no result`);
  const calls = await transcriptOf(task);
  const prompts = calls.map((c) => c.messages.map((m) => m.content).join("\n"));
  const shownAt = prompts.findIndex((p) => showsChanged(task, p));
  const firstNeeding = calls.findIndex((c) => NEEDS_CODE(c.stage));
  rows.push({
    task: task.name,
    language: languageOf(task),
    verdict: result.verdict === "solved" ? "pass" : "fail",
    calls: result.model?.calls,
    byStage: result.model
      ? Object.entries(result.model.callsByStage)
          .map(([stage, n]) => `${stage} ${n}`)
          .join(", ") || "–"
      : "–",
    promptChars: prompts.map((p) => p.length),
    firstCall: result.model?.firstCallSeconds,
    firstCallAfterBaseline: result.model?.firstCallAfterBaselineSeconds,
    testSeconds: result.cost.testSeconds,
    wallSeconds: result.cost.wallSeconds,
    shownFirst: firstNeeding < 0 ? undefined : showsChanged(task, prompts[firstNeeding] ?? ""),
    firstShownAt: prompts.length === 0 ? "–" : shownAt < 0 ? "never" : `call ${shownAt + 1} (${calls[shownAt]?.stage})`,
    note: result.stopReason,
  });
}

const header =
  "| task | lang | hidden tests | calls | by stage | prompt chars median / max | s to first call (after baseline) | test s | wall s | changed fn in the first prompt past reproduce | first shown | stop |";
const lines = [
  header,
  `|${header
    .split("|")
    .slice(1, -1)
    .map(() => " --- ")
    .join("|")}|`,
];
for (const r of rows)
  lines.push(
    `| ${[
      r.task,
      r.language,
      r.verdict,
      r.calls === undefined ? "–" : String(r.calls),
      r.byStage,
      r.promptChars.length === 0 ? "–" : `${median(r.promptChars)} / ${Math.max(...r.promptChars)}`,
      r.firstCall === undefined || r.firstCall === null
        ? "–"
        : `${r.firstCall.toFixed(1)}${r.firstCallAfterBaseline === undefined || r.firstCallAfterBaseline === null ? "" : ` (${r.firstCallAfterBaseline.toFixed(1)})`}`,
      r.testSeconds.toFixed(1),
      r.wallSeconds.toFixed(1),
      r.shownFirst === undefined ? "–" : r.shownFirst ? "yes" : "no",
      r.firstShownAt,
      r.note.replaceAll("|", "\\|"),
    ].join(" | ")} |`,
  );
const all = rows.flatMap((r) => r.promptChars);
const withCalls = rows.filter((r) => r.calls !== undefined);
const summary = [
  `tasks: ${rows.length} (${rows.filter((r) => r.language === "python").length} Python, ${rows.filter((r) => r.language === "js").length} JavaScript)`,
  `solved (hidden tests pass): ${rows.filter((r) => r.verdict === "pass").length} of ${rows.length}`,
  withModel
    ? `changed function in the first prompt past reproduction: ${rows.filter((r) => r.shownFirst).length} of ${rows.length}; calls per task median ${median(withCalls.map((r) => r.calls ?? 0))}; prompt chars per call median ${median(all)}, max ${all.length ? Math.max(...all) : 0}`
    : "no model: calls, prompt characters and the changed function's place need AUTOGEN_LLM_BASE_URL",
  `test seconds per task median ${median(rows.map((r) => r.testSeconds)).toFixed(1)}; wall seconds median ${median(rows.map((r) => r.wallSeconds)).toFixed(1)}`,
];
const text = `${lines.join("\n")}\n\n${summary.join("\n")}\n`;
await writeFile(join(OUT, "upstream.md"), text);
process.stdout.write(`\n${text}results in ${OUT}\n`);
