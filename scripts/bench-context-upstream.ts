// `npm run bench:context -- --upstream [--transcripts DIR] [task …]`: on the real upstream bugs
// (bench/upstream/*, snapshots from /work/.mirror or AUTOGEN_BENCH_MIRRORS), whether each
// function the upstream fix changed is shown whole, with its true line numbers, in
// (a) the reproduce prompt's code context (the issue alone) and (b) the plan prompt's code
// context once a reproduction test fails. The stand-in reproduction test is the model's
// own from a live run's transcripts (DIR/<task>/transcripts/lpw/<task>.jsonl, its last
// reproduce answer) when given, else the fix's hidden test files; no test is run, so the
// failures carry no stack frames (the worst case: an assertion failing in the test's own
// file) and no model is asked to localize. With transcripts, also (c) the verify-plan and
// implement prompts from the model's own plan and verification there (their code is the edit
// context built from the plan each is given, the verify prompt's shown whole counted apart), so the figure covers each stage of a run
// that passes at the first implementation. Prints per task, then the totals, the medians per
// stage and the median over all the calls.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { editContext } from "../src/engine/context/edit-context.ts";
import { failureContext } from "../src/engine/context/failure-context.ts";
import { formatVerification, numbered } from "../src/engine/lpw/plan-text.ts";
import { planSchema, verificationSchema, type Verification } from "../src/engine/lpw/schemas.ts";
import { moduleNamesOf } from "../src/engine/context/module-names.ts";
import { shortName, symbolsOf } from "../src/engine/context/symbols.ts";
import { isTestFile } from "../src/engine/is-test-file.ts";
import { failingTestsBlock } from "../src/engine/lpw/failing-tests-block.ts";
import { issueContext, testExamples } from "../src/engine/reproduce/reproduce-issue.ts";
import { renderPrompt } from "../src/llm/prompts.ts";
import { numberedLine } from "../src/workspace/numbered-line.ts";
import { behaviourLanguage } from "../src/engine/behaviour/behaviour-language.ts";
import { callsPromptVars } from "../src/engine/reproduce/reproduction-calls.ts";
import { buildRecipeTasks } from "./bench-recipes/build-recipe-tasks.ts";

const MIRRORS = process.env.AUTOGEN_BENCH_MIRRORS ?? "/work/.mirror";
const RECIPES = join(import.meta.dirname, "../bench/upstream");

type Shown = "yes" | "yes, docstring left out" | "NO";
type Span = { name: string; start: number; end: number };
type ReproTest = { source: "model" | "hidden"; files: Array<{ path: string; content: string }> };

const transcriptLine = z.object({ stage: z.string(), answer: z.string().optional() }).passthrough();
const reproduceAnswer = z.object({ path: z.string().min(1), content: z.string() }).passthrough();

type Planned = { plan: string[]; verification: Verification | undefined };

/** The model's first plan, and its last verification with the plan it revised to (what implement was given), if any. */
function modelPlan(transcripts: string | undefined, task: string): { first: string[]; final: Planned } | undefined {
  if (!transcripts) return undefined;
  const file = join(transcripts, task, "transcripts", "lpw", `${task}.jsonl`);
  if (!existsSync(file)) return undefined;
  let first: string[] | undefined;
  let plan: string[] | undefined;
  let verification: Verification | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const entry = transcriptLine.safeParse(JSON.parse(line));
    if (!entry.success || !entry.data.answer) continue;
    let answer: unknown;
    try {
      answer = JSON.parse(entry.data.answer);
    } catch {
      continue;
    }
    if (entry.data.stage === "plan" && !first) {
      const parsed = planSchema.safeParse(answer);
      if (parsed.success) [first, plan] = [parsed.data.steps, parsed.data.steps];
    }
    if (entry.data.stage === "verify-plan" && first) {
      const parsed = verificationSchema.safeParse(answer);
      if (parsed.success) {
        verification = parsed.data;
        if (parsed.data.revisedPlan) plan = parsed.data.revisedPlan.steps;
      }
    }
  }
  return first && plan ? { first, final: { plan, verification } } : undefined;
}

/** The model's last reproduction test in a live run's transcript, if any. */
function modelTest(transcripts: string | undefined, task: string): ReproTest | undefined {
  if (!transcripts) return undefined;
  const file = join(transcripts, task, "transcripts", "lpw", `${task}.jsonl`);
  if (!existsSync(file)) return undefined;
  let last: { path: string; content: string } | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const entry = transcriptLine.safeParse(JSON.parse(line));
    if (!entry.success || entry.data.stage !== "reproduce" || !entry.data.answer) continue;
    try {
      const answer = reproduceAnswer.safeParse(JSON.parse(entry.data.answer));
      if (answer.success) last = answer.data;
    } catch {
      // An answer that is not JSON was rejected by the bot too.
    }
  }
  return last ? { source: "model", files: [last] } : undefined;
}

/** The changed symbol's span in the buggy file: a function, class or method, else a module-level name. */
async function spanOf(repo: string, file: string, symbol: string): Promise<Span | undefined> {
  const text = readFileSync(join(repo, file), "utf8");
  const symbols = await symbolsOf(file, text);
  const found =
    symbols.find((s) => s.name === symbol) ??
    symbols.find((s) => shortName(s) === symbol.split(".").at(-1) && s.kind !== "class");
  if (found) return { name: found.name, start: found.outerStart, end: found.endLine };
  const name = (await moduleNamesOf(file, text)).find((n) => n.name === symbol);
  return name ? { name: name.name, start: name.startLine, end: name.endLine } : undefined;
}

/**
 * "whole": every line of the span appears in the code with its true number, in the file's
 * section; "code": every line but one Python docstring, left out under a marker naming its lines.
 */
function shownWhole(code: string, path: string, span: Span, text: string): "whole" | "code" | undefined {
  const section = code.split(/\n(?=--- )/).find((s) => s.startsWith(`--- ${path}\n`) || s.startsWith(`--- ${path} (`));
  if (!section) return undefined;
  const lines = text.split("\n");
  const shown = new Set(section.split("\n"));
  const missing: number[] = [];
  for (let n = span.start; n <= span.end; n++) if (!shown.has(numberedLine(n, lines[n - 1] ?? ""))) missing.push(n);
  if (missing.length === 0) return "whole";
  const [first, last] = [missing[0] as number, missing.at(-1) as number];
  const docstring =
    path.endsWith(".py") &&
    last - first + 1 === missing.length &&
    /^\s*[rRuUbB]?("""|''')/.test(lines[first - 1] ?? "") &&
    section.includes(`⋮ lines ${first}-${last} not shown`);
  return docstring ? "code" : undefined;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : 0;
}

export async function benchUpstreamContext(args: string[]): Promise<void> {
  const at = args.indexOf("--transcripts");
  const transcripts = at >= 0 ? args[at + 1] : undefined;
  const only = args.filter((a, i) => !a.startsWith("--") && i !== at + 1);
  const root = mkdtempSync(join(tmpdir(), "bench-context-upstream-"));
  const rows: Array<{
    repro: Shown;
    plan: Shown;
    reproChars: number;
    planChars: number;
    reproPrompt: number;
    planPrompt: number;
    implement: Shown | undefined;
    verify: Shown | undefined;
    verifyPrompt: number | undefined;
    implementChars: number | undefined;
    implementPrompt: number | undefined;
  }> = [];
  try {
    const built = await buildRecipeTasks(RECIPES, MIRRORS, (name) => join(root, name), only);
    console.log(
      "task | changed function(s) | test | (a) reproduce: shown whole | code chars | prompt chars | (b) plan: shown whole | code chars | plan prompt chars | verify: shown whole | verify prompt chars | (c) implement: shown whole | code chars | prompt chars",
    );
    for (const task of built) {
      const dir = join(root, task.name);
      const repo = join(dir, "repo");
      const issue = readFileSync(join(dir, "issue.md"), "utf8");
      const spans: Array<{ file: string; span: Span | undefined; symbol: string }> = [];
      for (const c of task.recipe.changed) spans.push({ ...c, span: await spanOf(repo, c.file, c.symbol) });
      const whole = (code: string): Shown => {
        const each = spans.map((s) =>
          s.span ? shownWhole(code, s.file, s.span, readFileSync(join(repo, s.file), "utf8")) : undefined,
        );
        if (each.length === 0 || each.some((e) => e === undefined)) return "NO";
        return each.every((e) => e === "whole") ? "yes" : "yes, docstring left out";
      };

      const repro = await issueContext(repo, issue, isTestFile);

      const test: ReproTest = modelTest(transcripts, task.name) ?? {
        source: "hidden",
        files: task.recipe.testsFrom.files.map((path) => ({
          path,
          content: readFileSync(join(dir, "hidden", path), "utf8"),
        })),
      };
      const work = mkdtempSync(join(tmpdir(), "bench-context-ws-"));
      cpSync(repo, work, { recursive: true });
      for (const f of test.files) {
        mkdirSync(dirname(join(work, f.path)), { recursive: true });
        writeFileSync(join(work, f.path), f.content);
      }
      const failing = test.files.map((f) => ({
        id: f.path,
        name: f.path,
        file: f.path,
        status: "fail" as const,
        message: "the reproduction test fails",
      }));
      const plan = await failureContext(work, {
        problem: issue,
        digest: failing.map((t) => `${t.id}: ${t.message}`).join("\n"),
        failing,
        isTestFile,
      });
      const tests = await failingTestsBlock(work, failing);
      const planned = modelPlan(transcripts, task.name);
      const earlier = plan.symbols.filter((s) => s.reason !== "retrieval").map((s) => ({ path: s.path, name: s.name }));
      const edit = planned
        ? await editContext(work, {
            problem: issue,
            plan: planned.final.plan,
            failing,
            changed: [],
            earlier,
            isTestFile,
          })
        : undefined;
      // As LPW does: the verify prompt shows the code of the plan it checks, built as the implement prompt's is.
      const verifyCode = planned
        ? await editContext(work, { problem: issue, plan: planned.first, failing, changed: [], earlier, isTestFile })
        : undefined;
      rmSync(work, { recursive: true, force: true });
      const verifyPrompt = planned
        ? renderPrompt("verify-plan", {
            untrusted: { problem: issue, tests, code: verifyCode?.code || "(no code located)" },
            trusted: { plan: numbered(planned.first) },
          })
        : undefined;
      const implementPrompt =
        planned && edit
          ? renderPrompt("implement", {
              untrusted: {
                problem: issue,
                // As LPW does: a verified plan's walk-through stands for the tests.
                tests: planned.final.verification?.tests.every((t) => t.matches) ? "" : tests,
                code: edit.code || "(no code located)",
                knowledge: "(none)",
                hint: "",
              },
              trusted: {
                plan: numbered(planned.final.plan),
                verification: planned.final.verification ? formatVerification(planned.final.verification) : "(none)",
              },
            })
          : undefined;
      const planPrompt = renderPrompt("plan", {
        untrusted: { problem: issue, tests, failures: "", code: plan.code, findings: "" },
        trusted: { memory: "(none)" },
      });
      const reproPrompt = renderPrompt("reproduce", {
        untrusted: {
          problem: issue,
          testExample: await testExamples({ workspace: repo, isTestFile }, repro.files),
          code: repro.code || "(no code located)",
          feedback: "(this is the first attempt)",
        },
        trusted: {
          ...callsPromptVars(behaviourLanguage(task.recipe.npm.length ? "node" : "pytest")),
          framework: task.recipe.npm.length ? "node" : "pytest",
          attempts: "3",
        },
      });
      // BENCH_CONTEXT_DUMP=DIR: each prompt as DIR/<task>-<stage>.json (messages and the stage as a request's
      // response_format names it), to split by section as the live requests are.
      const dump = process.env.BENCH_CONTEXT_DUMP;
      if (dump) {
        mkdirSync(dump, { recursive: true });
        const prompts = {
          reproduce: reproPrompt,
          plan: planPrompt,
          verify_plan: verifyPrompt,
          implement: implementPrompt,
        };
        for (const [stage, p] of Object.entries(prompts))
          if (p)
            writeFileSync(
              join(dump, `req-${task.name}-${stage}.json`),
              JSON.stringify({
                messages: [
                  { role: "system", content: p.system },
                  { role: "user", content: p.user },
                ],
                response_format: { json_schema: { name: stage } },
              }),
            );
      }
      if (process.env.BENCH_CONTEXT_SYMBOLS)
        console.log(
          `symbols (a) ${repro.symbols.map((s) => `${s.name}@${s.startLine}-${s.endLine}:${s.reason}`).join(", ")}\nsymbols (b) ${plan.symbols.map((s) => `${s.name}@${s.startLine}-${s.endLine}:${s.reason}`).join(", ")}\nsymbols (c) ${(edit?.symbols ?? []).map((s) => `${s.name}@${s.startLine}-${s.endLine}:${s.reason}`).join(", ")}`,
        );
      if (process.env.BENCH_CONTEXT_SHOW)
        console.log(`--- (a) reproduce context\n${repro.code}\n--- (b) plan/verify context\n${plan.code}\n---`);
      const row = {
        repro: whole(repro.code),
        plan: whole(plan.code),
        reproChars: repro.code.length,
        planChars: plan.code.length,
        reproPrompt: reproPrompt.system.length + reproPrompt.user.length,
        planPrompt: planPrompt.system.length + planPrompt.user.length,
        implement: edit ? whole(edit.code) : undefined,
        verify: verifyCode ? whole(verifyCode.code) : undefined,
        verifyPrompt: verifyPrompt ? verifyPrompt.system.length + verifyPrompt.user.length : undefined,
        implementChars: edit?.code.length,
        implementPrompt: implementPrompt ? implementPrompt.system.length + implementPrompt.user.length : undefined,
      };
      rows.push(row);
      const names = spans.map(
        (s) => `${s.file}:${s.span ? `${s.span.name}@${s.span.start}-${s.span.end}` : `${s.symbol} (not found)`}`,
      );
      console.log(
        `${task.name} | ${names.join(", ")} | ${test.source} | ${row.repro} | ${row.reproChars} | ${row.reproPrompt} | ${row.plan} | ${row.planChars} | ${row.planPrompt} | ${row.verify ?? "-"} | ${row.verifyPrompt ?? "-"} | ${row.implement ?? "-"} | ${row.implementChars ?? "-"} | ${row.implementPrompt ?? "-"}`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).length;
  console.log(
    `\nchanged function shown whole: (a) reproduce ${count((r) => r.repro !== "NO")} of ${rows.length} (${count((r) => r.repro === "yes, docstring left out")} without its docstring); (b) plan ${count((r) => r.plan !== "NO")} of ${rows.length} (${count((r) => r.plan === "yes, docstring left out")} without its docstring)`,
  );
  console.log(
    `code context characters, median (largest): (a) ${median(rows.map((r) => r.reproChars))} (${Math.max(0, ...rows.map((r) => r.reproChars))}); (b) ${median(rows.map((r) => r.planChars))} (${Math.max(0, ...rows.map((r) => r.planChars))})`,
  );
  console.log(
    `prompt characters, median (largest): (a) reproduce ${median(rows.map((r) => r.reproPrompt))} (${Math.max(0, ...rows.map((r) => r.reproPrompt))}); (b) plan ${median(rows.map((r) => r.planPrompt))} (${Math.max(0, ...rows.map((r) => r.planPrompt))})`,
  );
  const withPlan = rows.filter((r) => r.implementPrompt !== undefined);
  if (withPlan.length === 0) return;
  const verify = withPlan.map((r) => r.verifyPrompt as number);
  const implement = withPlan.map((r) => r.implementPrompt as number);
  console.log(
    `(c) implement: changed function shown whole ${count((r) => r.implement !== undefined && r.implement !== "NO")} of ${withPlan.length} (${count((r) => r.implement === "yes, docstring left out")} without its docstring); code characters median ${median(withPlan.map((r) => r.implementChars as number))} (${Math.max(...withPlan.map((r) => r.implementChars as number))})`,
  );
  console.log(
    `verify: changed function shown whole ${count((r) => r.verify !== undefined && r.verify !== "NO")} of ${withPlan.length} (${count((r) => r.verify === "yes, docstring left out")} without its docstring)`,
  );
  console.log(
    `prompt characters per stage, median (largest), ${withPlan.length} tasks with a plan: reproduce ${median(withPlan.map((r) => r.reproPrompt))}; plan ${median(withPlan.map((r) => r.planPrompt))}; verify ${median(verify)} (${Math.max(...verify)}); implement ${median(implement)} (${Math.max(...implement)})`,
  );
  const all = withPlan.flatMap((r) => [
    r.reproPrompt,
    r.planPrompt,
    r.verifyPrompt as number,
    r.implementPrompt as number,
  ]);
  console.log(
    `all ${all.length} calls (reproduce, plan, verify, implement): median ${median(all)}, largest ${Math.max(...all)}, ${all.filter((c) => c <= 12_000).length} of ${all.length} at most 12,000`,
  );
}
