// `autogen fix <path>`: the engine on a local checkout. Works in a git worktree of HEAD
// (never the user's branch or uncommitted work), commits a fix on a new branch
// `autogen/<slug>`, and writes the report a PR body would hold.
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultDataDir } from "../config/data-dir.ts";
import { LlmEnvError, llmEndpointFromEnv } from "../config/llm-env.ts";
import { MemoryPool, type MemoryEntry, type Recalled } from "../engine/memory/memory-pool.ts";
import { pricesFromEnv } from "../config/prices.ts";
import { jobLlmClient, processScrubber } from "../llm/job-llm-client.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Budget } from "../llm/budget.ts";
import { formatTaskFigures, modelCallFigures } from "../metrics/task-figures.ts";
import { replayFetch } from "../llm/replay-fetch.ts";
import { readTranscript } from "../llm/transcript.ts";
import { RepoConfigError } from "../config/parse-repo-config.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { readWorktreeBytes } from "../workspace/read-worktree-file.ts";
import { readRepoConfigFile } from "../config/read-repo-config-file.ts";
import type { PipelineStop } from "../pipeline/pipeline-ports.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { grantDirectory } from "../verify/sandbox/workspace-grants.ts";
import { detectPackageManager, type PackageManager } from "../verify/install/detect-package-manager.ts";
import { installDependencies, type InstallSummary } from "../verify/install/run-install.ts";
import { cliInstallCache } from "../verify/install/install-cache.ts";
import { chooseStrategy, taskBudget, taskSandbox, type Trigger } from "../engine/build-task.ts";
import type { Outcome, Strategy, VisibleTests } from "../engine/task.ts";
import type { TestReport } from "../verify/test-report.ts";
import { fixedWord } from "../engine/review/review-fix.ts";
import { fixCommitMessage } from "../report/commit-message.ts";
import { renderReport } from "../report/render-report.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { warmRunsEnabled } from "../verify/warm/warm-enabled.ts";
import { NoTestsDetectedError } from "../verify/runners/test-runner.ts";
import { commitOnNewBranch } from "../workspace/commit-files.ts";
import { addWorktree, freeBranchName, gitDir, isDirty, isGitRepository, removeWorktree } from "../workspace/git.ts";
import { runGit } from "../workspace/run-git.ts";
import { EXIT, UsageError, type CliCommand, type CliIo } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";
import { progressPrinter } from "./progress.ts";

const USAGE = `autogen-bot fix <path> [--issue <file|text>] [--test <id>]... [--test-cmd <cmd>] [--strategy <name>]
            [--candidates N] [--minutes M] [--report <file>] [--replay <transcript>] [--remember] [--allow-dirty] [--json]

Visible tests: the --test ids given, or else the tests failing now; with --issue and no
failing test, an LLM strategy first writes a reproduction test (the ids of its failing
tests are taken from the runner; it is committed with the fix as a new file). A test
command that loads no test is reported as broken before any model call. The whole suite
is the regression gate. Without an LLM endpoint (AUTOGEN_LLM_BASE_URL / OPENAI_API_KEY)
the model-free "template" strategy runs; with one, the repository's strategy (default
lpw), after a template first pass on the failing tests. Every model call is recorded to
.git/autogen/transcripts/; --replay answers from such a transcript instead of the
endpoint (offline).

Exit codes: 0 fixed (branch autogen/<slug> created), 1 not fixed, 2 bad input.`;

export const fixCommand: CliCommand = {
  name: "fix",
  summary: "repair a local checkout: find the bug behind failing tests, commit the fix on a new branch",
  usage: USAGE,
  async run(args, io) {
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
    let prices;
    try {
      prices = pricesFromEnv(io.env);
    } catch (error) {
      return fail((error as Error).message);
    }
    let endpoint;
    try {
      endpoint = values.replay
        ? {
            baseURL: "http://replay.invalid/v1",
            apiKey: undefined,
            model: readTranscriptModel(resolve(io.cwd, values.replay)),
          }
        : llmEndpointFromEnv(io.env);
    } catch (error) {
      if (error instanceof LlmEnvError) return fail(error.message);
      throw error;
    }
    const strategyName = values.strategy ?? (endpoint ? config.strategy.name : "template");
    const notes: string[] = [];
    if (!values.strategy && !endpoint)
      notes.push(
        "no LLM endpoint configured (AUTOGEN_LLM_BASE_URL / OPENAI_API_KEY): using the model-free template strategy",
      );
    let llm: LlmClient | undefined;
    if (endpoint && strategyName !== "template") {
      llm = jobLlmClient({
        endpoint,
        budgets: config.budgets,
        prices,
        scrub: processScrubber(io.env, [endpoint.apiKey]),
        transcriptPath: join(
          await gitDir(repo),
          "autogen",
          "transcripts",
          `${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`,
        ),
        embeddingModel: io.env.AUTOGEN_EMBEDDING_MODEL?.trim() || undefined,
        fetch: values.replay ? replayFetch(readTranscript(resolve(io.cwd, values.replay))) : undefined,
      });
      notes.push(
        values.replay
          ? `replaying model answers from ${values.replay}`
          : `model ${endpoint.model} at ${endpoint.baseURL}; transcript in .git/autogen/transcripts/`,
      );
    }
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
    const memory = new MemoryPool(join(defaultDataDir(io.env), "memory.db"));
    const scope = { installation: "local", repository: await repositoryKey(repo) };
    let queryEmbedding: number[] | undefined;
    const recall = async () => {
      if (!issueText) return [];
      // With embeddings from the provider, retrieval blends them with BM25.
      queryEmbedding = llm?.embed ? await llm.embed(issueText) : undefined;
      return memory.recall(scope, issueText, queryEmbedding ? { embedding: queryEmbedding } : {});
    };
    const strategyFor = ({ memory: recalled }: { memory: string }) =>
      chooseStrategy({ name: strategyName, config, llm, memory: recalled });

    const worktree = await mkdtemp(join(tmpdir(), "autogen-fix-"));
    await rm(worktree, { recursive: true, force: true });
    await addWorktree(repo, worktree);
    try {
      const remember = values.remember
        ? (entry: MemoryEntry) => memory.remember(scope, { ...entry, embedding: queryEmbedding })
        : undefined;
      const canReproduce = llm !== undefined && strategyName !== "template";
      const code = await fixInWorktree({
        io,
        repo,
        worktree,
        config,
        strategy: strategyFor,
        recall,
        canReproduce,
        notes,
        issueText,
        values,
        remember,
        modelBudget: llm?.budget,
      });
      return code;
    } catch (error) {
      if (error instanceof NoTestsDetectedError) return fail(error.message);
      throw error;
    } finally {
      memory.close();
      await removeWorktree(repo, worktree).catch(() => rm(worktree, { recursive: true, force: true }));
    }
  },
};

type FixArgs = {
  io: CliIo;
  repo: string;
  worktree: string;
  config: RepoConfig;
  strategy: (choice: { memory: string }) => Strategy;
  recall: () => Promise<Recalled[]>;
  canReproduce: boolean;
  notes: string[];
  issueText: string | undefined;
  remember: ((entry: MemoryEntry) => void) | undefined;
  /** The model client's budget: the calls, tokens and first call's time printed in the summary. */
  modelBudget?: Budget | undefined;
  values: {
    test?: string[] | undefined;
    "test-cmd"?: string | undefined;
    candidates?: string | undefined;
    minutes?: string | undefined;
    report?: string | undefined;
    json?: boolean | undefined;
  };
};

/** The job pipeline with the CLI's ports: a worktree of HEAD, the terminal, a local branch and a report file. */
async function fixInWorktree(args: FixArgs): Promise<number> {
  const {
    io,
    repo,
    worktree,
    config,
    strategy,
    recall,
    canReproduce,
    notes,
    issueText,
    values,
    remember,
    modelBudget,
  } = args;
  const log = values.json ? () => {} : io.stdout;
  for (const note of notes) log(`note: ${note}\n`);
  const tests = values.test;
  const trigger: Trigger = issueText ? { kind: "issue", text: issueText, tests } : { kind: "failing-tests", tests };
  let checkoutDependencies: InstallSummary | undefined;
  let progress: ReturnType<typeof progressPrinter> | undefined;
  const protect = [await gitDir(repo)];
  const result = await runJobPipeline(
    {
      workspace: worktree,
      config,
      trigger,
      testCommand: values["test-cmd"],
      sandboxFor: (c) => taskSandbox(c),
      canReproduce,
      budget: taskBudget(config, {
        candidates: numberFlag(values.candidates, config.budgets.iterations * 20),
        minutes: numberFlag(values.minutes, config.budgets.minutes),
      }),
    },
    {
      install: async (_config, sandbox) => {
        // A fresh worktree of HEAD has no node_modules (never committed): use the checkout's, read-only,
        // when it was installed from the same lockfile; otherwise install HEAD's in the sandbox.
        const checkout = await linkCheckoutModules(repo, worktree);
        if (checkout.linked) {
          log("note: using node_modules from your checkout (read-only to the tests)\n");
          const { manager, lockfile } = checkout;
          if (lockfile) {
            checkoutDependencies = {
              manager,
              lockfile,
              command: "",
              source: "checkout",
              seconds: 0,
              network: false,
              ok: true,
            };
          }
        } else if (checkout.differs) {
          log(`note: not using your checkout's node_modules: its ${checkout.differs} differs from the commit's\n`);
        }
        // Scoped to this checkout: another repository on this machine with the same lockfile
        // ran its own install scripts.
        const cacheRoot = cliInstallCache(io.env, repo);
        const install = await installDependencies(worktree, config.test, sandbox, { env: io.env, cacheRoot });
        if (install.ran) {
          log(
            install.ok
              ? `${install.message}\n`
              : `note: ${install.message}; continuing with what is already installed\n`,
          );
        }
        return install;
      },
      // The worktree's `.git` is only a pointer: protect the repository's git dir itself.
      verifier: async (runner, _config, sandbox) => ({
        verifier: localVerifier(runner, { ...sandbox, protect, warm: warmRunsEnabled(config.test) }),
        parallelism: Math.min(2, availableParallelism()),
      }),
      recall,
      strategy: ({ memory }) => strategy({ memory }),
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
    branch = await freeBranchName(repo, `autogen/${slug}`);
    commit = await commitOnNewBranch(worktree, branch, outcome.changedFiles, commitMessage(outcome, issueText));
    // Marked accepted on the command line: remembered for similar tasks later.
    remember?.({
      task: issueText ?? `failing tests: ${visible.kind === "tests" ? visible.ids.join(", ") : "all"}`,
      plan:
        outcome.plan.steps ??
        (outcome.plan.fix
          ? [
              `${outcome.plan.fix.family}: ${outcome.plan.fix.description} at ${outcome.plan.fix.file}:${outcome.plan.fix.line}`,
            ]
          : []),
      verification: (outcome.plan.verification ?? [])
        .map((v) => `${v.test}: ${v.derived} (expected ${v.expected})`)
        .join("\n"),
      keywords: outcome.changedFiles.flatMap((f) => f.split(/[/.]/)).filter((w) => w.length > 2),
    });
  }
  outcome.dependencies ??= checkoutDependencies;
  const report = renderReport(outcome, {
    title: issueText ? `autogen: ${firstLine(issueText)}` : "autogen: repair of failing tests",
    branch,
    commit,
  });
  const reportPath = values.report ? resolve(io.cwd, values.report) : join(await gitDir(repo), "autogen", `${slug}.md`);
  await mkdir(resolve(reportPath, ".."), { recursive: true });
  await writeFile(reportPath, report);

  const figures = {
    model: modelBudget ? modelCallFigures(modelBudget.state) : undefined,
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

/** A stop before the engine, as the terminal says it, and its exit code. */
function stopMessage(
  stop: PipelineStop | undefined,
  baseline: TestReport | undefined,
): { message: string; code: number } | undefined {
  if (!stop) return undefined;
  if (stop.stage === "runner") return { message: stop.error.message, code: EXIT.usage };
  if (stop.stage === "setup") return { message: stop.message, code: EXIT.failed };
  if (baseline?.run.spawnError) {
    return {
      message: `the test command could not start: ${baseline.run.spawnError}${stop.hint ? `; ${stop.hint}` : ""}`,
      code: EXIT.usage,
    };
  }
  if (stop.kind === "broken") {
    const advice = stop.hint
      ? `Likely cause: ${stop.hint}.`
      : "Fix the test command (test.command in .github/autogen.yml, or --test-cmd) and try again.";
    return { message: `${stop.message}. ${advice}`, code: EXIT.failed };
  }
  return {
    message: `nothing to fix: ${stop.message}. Name the tests that show the bug with --test.`,
    code: EXIT.failed,
  };
}

type CheckoutModules =
  { linked: true; manager: PackageManager; lockfile: string | undefined } | { linked: false; differs?: string };

/**
 * Links the checkout's node_modules into the worktree when the worktree has none and the
 * checkout's lockfile is byte for byte the commit's (a project without a lockfile: always);
 * the sandbox shows it read-only.
 */
/** Lockfiles of large monorepos run to tens of MiB; past this one is not compared (no link). */
const LOCKFILE_LIMIT = 64 * 1024 * 1024;

async function linkCheckoutModules(repo: string, worktree: string): Promise<CheckoutModules> {
  const modules = join(repo, "node_modules");
  const stat = await lstat(modules).catch(() => undefined);
  if (!stat?.isDirectory() || existsSync(join(worktree, "node_modules"))) return { linked: false };
  const plan = detectPackageManager(worktree);
  const lockfile = plan?.target.kind === "node_modules" ? plan.keyFiles[0] : undefined;
  if (lockfile) {
    const ours = await readWorktreeBytes(repo, lockfile, { maxBytes: LOCKFILE_LIMIT }).catch(() => undefined);
    const theirs = await readWorktreeBytes(worktree, lockfile, { maxBytes: LOCKFILE_LIMIT }).catch(() => undefined);
    if (!ours || !theirs || !ours.equals(theirs)) return { linked: false, differs: lockfile };
  }
  await symlink(modules, join(worktree, "node_modules"));
  grantDirectory(worktree, modules);
  return { linked: true, manager: plan?.manager ?? "npm", lockfile };
}

/** A repository's identity for memory: its origin URL, or its path when it has none. */
async function repositoryKey(repo: string): Promise<string> {
  try {
    return (await runGit(["remote", "get-url", "origin"], { cwd: repo })).trim() || repo;
  } catch {
    return repo;
  }
}

function readTranscriptModel(path: string): string {
  const [first] = readTranscript(path);
  if (!first) throw new UsageError(`${path} holds no model calls to replay`);
  return first.model;
}

function numberFlag(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`expected a positive whole number, got "${value}"`);
  return n;
}

function slugFor(issueText: string | undefined, visible: VisibleTests): string {
  const source = issueText
    ? firstLine(issueText)
    : visible.kind === "tests"
      ? `fix-${visible.ids[0]?.split(/::| > /).at(-1) ?? "tests"}`
      : "fix-tests";
  const words = source
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) {
    if (slug && slug.length + 1 + word.length > 40) break;
    slug = slug ? `${slug}-${word}` : word.slice(0, 40);
  }
  return slug || "fix";
}

function firstLine(text: string): string {
  return (text.trim().split("\n")[0] ?? "").slice(0, 100);
}

function commitMessage(outcome: Outcome, issueText: string | undefined): string {
  // An issue named by number ("#12", "Fixes #12" in the text) is linked; a bare description is quoted.
  const issueNumber = /(?:^|\s)#(\d+)\b/.exec(issueText ?? "")?.[1];
  return fixCommitMessage(outcome, {
    issueLine: issueText,
    issueNumber: issueNumber ? Number(issueNumber) : undefined,
  });
}
