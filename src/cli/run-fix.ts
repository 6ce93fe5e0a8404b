// The work of `autogen-bot fix`, loaded when the command runs; fix-command.ts describes it
// and holds its name, summary and usage.
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { RepoConfigError } from "../config/parse-repo-config.ts";
import { readRepoConfigFile } from "../config/read-repo-config-file.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { chooseStrategy, taskBudget, taskSandbox, type Trigger } from "../engine/build-task.ts";
import { fixedWord } from "../engine/review/review-fix.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { formatTaskFigures, modelCallFigures } from "../metrics/task-figures.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { renderReport } from "../report/render-report.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { NoTestsDetectedError } from "../verify/runners/test-runner.ts";
import { warmRunsEnabled } from "../verify/warm/warm-enabled.ts";
import { addWorktree, gitDir, isDirty, isGitRepository, removeWorktree } from "../workspace/git.ts";
import { runGitSync } from "../workspace/run-git.ts";
import { holdTempDir, makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";
import { EXIT, UsageError, type CliIo } from "./command.ts";
import { checkoutInstall } from "./fix/checkout-modules.ts";
import { fixModel } from "./fix/fix-model.ts";
import { localMemory, type LocalMemory } from "./fix/local-memory.ts";
import { commitFixLocally, firstLine, slugFor, stopMessage } from "./fix/local-outcome.ts";
import { parseFlags } from "./parse-flags.ts";
import { progressPrinter } from "./progress.ts";

export async function runFix(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    issue: { type: "string" },
    test: { type: "string", multiple: true },
    "test-cmd": { type: "string" },
    strategy: { type: "string" },
    candidates: { type: "string" },
    minutes: { type: "string" },
    report: { type: "string" },
    replay: { type: "string" },
    remember: { type: "boolean" },
    "allow-dirty": { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length !== 1) throw new UsageError(`expected one repository path, got ${positionals.length}`);
  // Checked before any work: a typo here must not cost a worktree and a baseline run first.
  numberFlag(values.candidates, 1);
  numberFlag(values.minutes, 1);
  const repo = resolve(io.cwd, positionals[0] as string);
  const fail = (message: string) => {
    io.stderr(`autogen fix: ${message}\n`);
    return EXIT.usage;
  };
  if (!existsSync(repo)) return fail(`${repo} does not exist`);
  if (!(await isGitRepository(repo)))
    return fail(`${repo} is not a git repository (run \`git init\` and commit your code first)`);
  if (!values["allow-dirty"] && (await isDirty(repo))) {
    return fail(
      `${repo} has uncommitted changes; commit or stash them first, or pass --allow-dirty (the fix is then made from the last commit, without your changes)`,
    );
  }

  let config;
  try {
    config = await readRepoConfigFile(repo);
  } catch (error) {
    if (error instanceof RepoConfigError) return fail(error.message);
    throw error;
  }
  const model = await fixModel(io, repo, config, values);
  if ("error" in model) return fail(model.error);
  const { strategyName, llm } = model;
  const issueText = values.issue
    ? existsSync(resolve(io.cwd, values.issue))
      ? await readFile(resolve(io.cwd, values.issue), "utf8")
      : values.issue
    : undefined;
  // Checked before any work (a worktree, a baseline run): the pipeline builds it again with the recalled plans.
  try {
    chooseStrategy({ name: strategyName, config, llm });
  } catch (error) {
    return fail((error as Error).message);
  }
  const memory = await localMemory(io.env, repo, issueText, llm);
  const worktree = await makeTempDir("autogen-fix-");
  await rm(worktree, { recursive: true, force: true });
  // Stopped mid-run (SIGTERM's exit), the worktree goes with the process and the repository forgets it.
  holdTempDir(worktree, () => void runGitSync(["worktree", "prune"], { cwd: repo }));
  try {
    await addWorktree(repo, worktree);
    return await fixInWorktree({
      io,
      repo,
      worktree,
      config,
      strategyName,
      llm,
      memory,
      notes: model.notes,
      issueText,
      values,
    });
  } catch (error) {
    if (error instanceof NoTestsDetectedError) return fail(error.message);
    throw error;
  } finally {
    memory.close();
    await removeWorktree(repo, worktree).catch(() => undefined);
    await removeTempDir(worktree);
  }
}

type FixArgs = {
  io: CliIo;
  repo: string;
  worktree: string;
  config: RepoConfig;
  strategyName: string;
  llm: LlmClient | undefined;
  memory: LocalMemory;
  notes: string[];
  issueText: string | undefined;
  values: {
    test?: string[] | undefined;
    "test-cmd"?: string | undefined;
    candidates?: string | undefined;
    minutes?: string | undefined;
    report?: string | undefined;
    remember?: boolean | undefined;
    json?: boolean | undefined;
  };
};

/** The job pipeline with the CLI's ports: a worktree of HEAD, the terminal, a local branch and a report file. */
async function fixInWorktree(args: FixArgs): Promise<number> {
  const { io, repo, worktree, config, strategyName, llm, memory, notes, issueText, values } = args;
  const log = values.json ? () => {} : io.stdout;
  for (const note of notes) log(`note: ${note}\n`);
  const tests = values.test;
  const trigger: Trigger = issueText ? { kind: "issue", text: issueText, tests } : { kind: "failing-tests", tests };
  const install = checkoutInstall(repo, worktree, io.env, log);
  let progress: ReturnType<typeof progressPrinter> | undefined;
  // The worktree's `.git` is only a pointer: protect the repository's git dir itself.
  const protect = [await gitDir(repo)];
  const result = await runJobPipeline(
    {
      workspace: worktree,
      config,
      trigger,
      testCommand: values["test-cmd"],
      sandboxFor: (c) => taskSandbox(c),
      canReproduce: llm !== undefined && strategyName !== "template",
      budget: taskBudget(config, {
        candidates: numberFlag(values.candidates, config.budgets.iterations * 20),
        minutes: numberFlag(values.minutes, config.budgets.minutes),
      }),
    },
    {
      install: install.install,
      verifier: async (runner, _config, sandbox) => ({
        verifier: localVerifier(runner, { ...sandbox, protect, warm: warmRunsEnabled(config.test) }),
        parallelism: Math.min(2, availableParallelism()),
      }),
      recall: memory.recall,
      // The strategy's model, for the pipeline's post-checks too (the behaviour table).
      llm: () => (strategyName === "template" ? undefined : llm),
      strategy: ({ memory: recalled }) => chooseStrategy({ name: strategyName, config, llm, memory: recalled }),
      progress: {
        stage: (event) => {
          if (event.stage === "runner") log(`tests: ${event.runner.name} (${event.runner.evidence})\n`);
          if (event.stage === "setup" && event.setup.ran && event.setup.ok) log(`${event.setup.message}\n`);
          if (event.stage === "strategy") progress = progressPrinter(log, io.isTty && !values.json);
          if (event.stage === "run") progress?.done();
        },
        engine: (event) => progress?.onProgress(event),
        heartbeat: (beat) => {
          progress?.done();
          log(`[still working] ${beat.stage}: ${beat.doing} (${Math.round(beat.elapsedMs / 1000)} s)\n`);
        },
      },
    },
  );
  const stopped = stopMessage(result.stop, result.baseline);
  if (stopped) {
    io.stderr(`autogen fix: ${stopped.message}\n`);
    return stopped.code;
  }
  const { outcome } = result;
  const visible = result.visible ?? { kind: "all" };

  const slug = slugFor(issueText, visible);
  let branch: string | undefined;
  let commit: string | undefined;
  if (outcome.status === "fixed") {
    ({ branch, commit } = await commitFixLocally(repo, worktree, outcome, issueText, slug));
    // Marked accepted on the command line: remembered for similar tasks later.
    if (values.remember) memory.remember(outcome, visible);
  }
  outcome.dependencies ??= install.linked();
  const report = renderReport(outcome, {
    title: issueText ? `autogen: ${firstLine(issueText)}` : "autogen: repair of failing tests",
    branch,
    commit,
  });
  const reportPath = values.report ? resolve(io.cwd, values.report) : join(await gitDir(repo), "autogen", `${slug}.md`);
  await mkdir(resolve(reportPath, ".."), { recursive: true });
  await writeFile(reportPath, report);

  const figures = {
    model: llm?.budget ? modelCallFigures(llm.budget.state) : undefined,
    testSeconds: outcome.cost.testSeconds,
  };
  if (values.json) {
    io.stdout(`${JSON.stringify({ ...outcome, branch, commit, report: reportPath, figures }, null, 2)}\n`);
  } else if (branch) {
    log(
      `\n${fixedWord(outcome)}: ${outcome.message}\nbranch: ${branch} (commit ${commit?.slice(0, 12)}) in ${repo}; your current branch is untouched\nreport: ${reportPath}\n`,
    );
  } else {
    log(`\nnot fixed (${outcome.stopReason}): ${outcome.message}\nreport: ${reportPath}\n`);
  }
  log(`${formatTaskFigures(figures)}\n`);
  return outcome.status === "fixed" ? EXIT.ok : EXIT.failed;
}

function numberFlag(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`expected a positive whole number, got "${value}"`);
  return n;
}
