// The repository's `.github/autogen.yml`: what a maintainer may tune. It is untrusted
// input (anyone with write access to the default branch edits it), so it can choose
// behaviour within the bot's limits but never the model endpoint, secrets, or paths
// outside the repository. Every field has a default; unknown keys are errors.
import { z } from "zod";
import { FORBIDDEN_ENV_NAMES } from "./forbidden-env-names.ts";
import { patternProblem } from "../workspace/glob.ts";

/** Every number a repository may set has a ceiling: the config is untrusted and the bot's machine is shared. */
const positiveInt = (description: string, fallback: number, max: number) =>
  z
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `${description} At most ${max}.` });

// Patterns follow .gitignore (src/workspace/glob.ts): a leading '/' anchors at the repository root.
const relativeGlob = z
  .string()
  .min(1)
  .refine((p) => !p.replace(/^!/, "").split("/").includes(".."), {
    message: "must be a path pattern inside the repository (no '..')",
  })
  .superRefine((p, ctx) => {
    const problem = patternProblem(p);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

const commandLine = z
  .string()
  .min(1)
  .max(2000)
  .refine((c) => !/[\0\r\n]/.test(c), { message: "must be a single line" });

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name (letters, digits, _)" })
  .refine((name) => !FORBIDDEN_ENV_NAMES.test(name), {
    message:
      "cannot be set for test runs: it changes what runs or where from (PATH, HOME, LD_*, NODE_OPTIONS, PYTHONSTARTUP, GIT_*, ...) or looks like a secret (…TOKEN, …SECRET, …_KEY)",
  });

export const triggersSchema = z
  .strictObject({
    issues: z.boolean().default(true).meta({
      description:
        "Start work when a maintainer applies the trigger label to an issue or comments `/autogen fix` on it.",
    }),
    ciFailure: z.enum(["off", "command", "auto"]).default("command").meta({
      description:
        "Red CI on a pull request: `auto` repairs without being asked, `command` waits for `/autogen fix` from someone with write access, `off` ignores it.",
    }),
    reviewFeedback: z.boolean().default(true).meta({
      description:
        "Treat reviews and review comments on the bot's own pull requests as feedback for another iteration.",
    }),
    repairRoundsOnBotBranches: z.int().min(0).max(5).default(1).meta({
      description:
        "How many times a red build on the bot's own `autogen/*` branches may trigger another repair (keeps the bot from looping). At most 5.",
    }),
  })
  .meta({ description: "Which events start work." });

export const testSchema = z
  .strictObject({
    command: commandLine.nullable().default(null).meta({
      description:
        "The test command, run without a shell (for example `pytest -q` or `npm test`). Detected from the repository when null.",
    }),
    setup: commandLine.nullable().default(null).meta({
      description:
        "A command run once in the bot's checkout before the tests, in the sandbox (for example `npm ci`, or `pip install --target .deps -r requirements.txt` with PYTHONPATH in test.env): only the checkout is writable, so what it installs must land there. When set, it replaces the automatic install (test.install). Not run when null; the bot says when missing dependencies are the likely cause of a failure.",
    }),
    install: z.enum(["auto", "off"]).default("auto").meta({
      description:
        "`auto`: before the tests, install the dependencies the way the repository's lockfile says (npm ci, pnpm, yarn, bun, pip -r requirements*.txt, uv, poetry, go mod download, cargo fetch) in the sandbox, cached by the lockfile's hash for later jobs; without network (test.networkDuringSetup and the operator's AUTOGEN_ALLOW_SETUP_NETWORK=1) it installs offline where the tool can. `off`: never. A `test.setup` command replaces it.",
    }),
    env: z.record(envName, z.string().max(4096)).default({}).meta({
      description:
        "Extra environment variables (literal values) for the test and setup commands. The bot's own secrets are never passed.",
    }),
    timeoutMinutes: positiveInt(
      "Wall-clock limit for one test run; the whole process group is killed after it.",
      10,
      60,
    ),
    candidateLimit: z
      .strictObject({
        factor: z.number().min(1).max(50).default(5).meta({
          description:
            "Each test of a candidate's run may take this many times the slowest test of the unchanged code's run, plus floorSeconds; the run may take that per selected test plus twice the unchanged code's start-up and collection time (its run's wall time less its tests' own).",
        }),
        floorSeconds: z.number().min(0.1).max(300).default(1).meta({
          description:
            "Seconds every test of a candidate's run gets on top of factor × the slowest test, so a test that took milliseconds is not cut by a busy machine.",
        }),
      })
      .prefault({})
      .meta({
        description:
          "Time limits for a candidate's test runs, from the unchanged code's own timings, so a candidate that loops forever costs seconds; a candidate stopped by one is reported as \"timed out after N s\" and counts as that candidate's failure. Never above timeoutMinutes.",
      }),
    networkDuringSetup: z.boolean().default(false).meta({
      description:
        "Ask for network access for the setup command; it is granted only where the bot's operator allows it (AUTOGEN_ALLOW_SETUP_NETWORK=1), since the setup then shares the host's network. Tests never get network.",
    }),
    warm: z.boolean().default(true).meta({
      description:
        "Validate candidates with a warm runner where the runner allows it. pytest: one sandboxed session per validation slot collects the tests once and runs each candidate in a fork, falling back to a cold run when a candidate touches tests or configuration. node --test and node scripts: a sandboxed node process started ahead of each candidate runs the cold command, saving the sandbox's set-up. Set false to run every candidate cold (the operator can also set AUTOGEN_WARM=0).",
    }),
    reruns: z
      .int()
      .min(0)
      .max(10)
      .default(2)
      .meta({ description: "Identical reruns of a failing test used to tell flaky from broken." }),
    limits: z
      .strictObject({
        processes: positiveInt("Processes one test run may have alive at once.", 256, 4096),
        diskMegabytes: positiveInt("Megabytes one test run may write to the workspace.", 1024, 8192),
        fileMegabytes: positiveInt("Megabytes one file written by a test run may reach.", 256, 4096),
        tmpMegabytes: positiveInt("Size of the test run's private /tmp, in megabytes.", 512, 4096),
        memoryMegabytes: positiveInt(
          "Megabytes of memory one test run may use, all its processes together (and its /tmp, which lives in memory), without swap; the kernel stops the run past it (a memory cgroup; where the bot cannot make one, an address-space limit per process of at least 2 GiB).",
          2048,
          8192,
        ),
      })
      .prefault({})
      .meta({
        description:
          "Limits on one test run in the sandbox; a run that reaches one is stopped and the report names the limit.",
      }),
  })
  .meta({ description: "How the repository's tests are run." });

export const strategySchema = z
  .strictObject({
    name: z.enum(["lpw", "slpw", "seidr", "direct", "template"]).default("lpw").meta({
      description:
        "Search strategy. `template` needs no model; the others need an LLM endpoint configured on the server.",
    }),
    templateFirstPass: z.boolean().default(true).meta({
      description:
        "LPW: when the model's own stages end without a fix, try the model-free `template` edits on the failing tests (CI's, or the accepted reproduction test of an issue); an edit that passes them ships only if the model, shown the issue and the diff, accepts it.",
    }),
    maxPlanIterations: positiveInt("Plan verification rounds (LPW: 12).", 12, 50),
    maxRefinements: positiveInt("Code refinement rounds (LPW: 12).", 12, 50),
    planSamples: positiveInt("SLPW: plans sampled (k).", 6, 32),
    verifiedPlans: positiveInt("SLPW: verified plans carried on to code (q).", 3, 16),
    treeArity: positiveInt("SEIDR: children per candidate (N).", 10, 32),
    beamWidth: positiveInt("SEIDR: candidates kept per generation (W).", 10, 32),
    planVerification: z
      .boolean()
      .default(true)
      .meta({ description: "Ablation switch: verify plans against the visible tests." }),
    codeExplanation: z
      .boolean()
      .default(true)
      .meta({ description: "Ablation switch: explain the current code before refining it." }),
    instrumentedDebug: z
      .boolean()
      .default(true)
      .meta({ description: "Ablation switch: run the first failing test with temporary logging before refining." }),
    knowledge: z.boolean().default(false).meta({
      description:
        "LPW: before coding, write down the APIs and facts the change needs and look them up in the repository's docs and installed dependencies (SelfEvolve, CoCoST).",
    }),
  })
  .meta({ description: "How candidate changes are searched for." });

export const budgetsSchema = z
  .strictObject({
    iterations: positiveInt("Candidates the engine may try in one job.", 24, 500),
    llmCalls: positiveInt("Model calls in one job.", 80, 1000),
    tokens: positiveInt("Prompt plus completion tokens in one job.", 600_000, 20_000_000),
    dollars: z.number().min(0).max(100).default(3).meta({
      description: "Estimated model spend in one job, in US dollars (0 allows only model-free work). At most 100.",
    }),
    minutes: positiveInt("Wall-clock minutes for one job.", 45, 240),
  })
  .meta({ description: "Caps for one job. The server's own caps apply too; the lower one wins." });

export const pathsSchema = z
  .strictObject({
    allowed: z.array(relativeGlob).default(["**"]).meta({
      description:
        "Path patterns the bot may change. Patterns follow .gitignore: `vendor` or `*.lock` match at any depth, `docs/` covers everything under a docs directory, a leading or middle `/` anchors at the root, `**` spans directories, `{a,b}` lists alternatives, and a later `!pattern` takes back what an earlier one matched (the last match wins).",
    }),
    protected: z
      .array(relativeGlob)
      .default([
        ".github/workflows/**",
        ".github/autogen.yml",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "poetry.lock",
        "uv.lock",
        "Pipfile.lock",
        "Cargo.lock",
        "go.sum",
        ".gitlab-ci.yml",
        ".circleci/**",
        "Jenkinsfile",
        "azure-pipelines.yml",
      ])
      .meta({
        description:
          "Path patterns the bot refuses to change, written as for `paths.allowed` (workflow files are refused by GitHub anyway: the app has no `workflows` permission).",
      }),
    allowTestInfrastructure: z.array(relativeGlob).default([]).meta({
      description:
        "Test infrastructure the bot may change, by name or pattern (for example `Makefile`, `tests/conftest.py`, `pyproject.toml`). Protected by default, because a change there can make a suite pass without fixing anything: `conftest.py` at any depth, `pytest.ini`, `tox.ini`, `.coveragerc`, `noxfile.py`, the pytest, coverage, tox and hatch sections of `pyproject.toml` and `setup.cfg`, the `scripts`, `jest`, `mocha`, `ava`, `nyc`, `c8` and `vitest` keys of `package.json`, jest/vitest/mocha/karma/ava/playwright/cypress configuration files, Makefiles, `sitecustomize.py`, `usercustomize.py`, `*.pth`, `.env` files and everything under `.github/`. Whatever is opened here, a change that stops a test from running (skipped, deselected, no longer collected) is still refused.",
    }),
  })
  .meta({ description: "Where the bot may write." });

export const diffSchema = z
  .strictObject({
    maxFiles: positiveInt("Files one change may touch.", 10, 500),
    maxLines: positiveInt("Added plus removed lines in one change.", 400, 50_000),
  })
  .meta({ description: "Size limit for one change; larger candidates are rejected." });

export const pullRequestSchema = z
  .strictObject({
    draft: z.enum(["auto", "always"]).default("auto").meta({
      description:
        "`auto`: draft unless every visible test passes and the regression gate is clean; `always`: every PR is a draft.",
    }),
    onGiveUp: z.enum(["comment", "draft-pr"]).default("comment").meta({
      description:
        "When the engine stops without a fix: explain in the status comment only, or also open a draft PR with the attempts.",
    }),
  })
  .meta({ description: "How pull requests are opened." });

export const repoConfigSchema = z
  .strictObject({
    label: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .default("autogen")
      .meta({ description: "The issue label that starts work." }),
    triggers: triggersSchema.prefault({}),
    verify: z.enum(["auto", "local", "actions"]).default("auto").meta({
      description:
        "Where candidates are tested: `actions` dispatches the repository's verification workflow, `local` runs them in the bot's sandbox, `auto` uses Actions when the workflow is installed.",
    }),
    test: testSchema.prefault({}),
    strategy: strategySchema.prefault({}),
    budgets: budgetsSchema.prefault({}),
    paths: pathsSchema.prefault({}),
    diff: diffSchema.prefault({}),
    pullRequest: pullRequestSchema.prefault({}),
  })
  .meta({
    title: "autogen-bot repository configuration",
    description: "The file `.github/autogen.yml` on the default branch.",
  });

export type RepoConfig = z.infer<typeof repoConfigSchema>;
export type RepoConfigInput = z.input<typeof repoConfigSchema>;
