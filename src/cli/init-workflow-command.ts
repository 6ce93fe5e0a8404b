// `autogen-bot init-workflow`: the verification workflow a maintainer installs, with the
// setup steps taken from the repository's own CI (the steps before its test step) so
// nobody has to write setup scripts. Printed, or written with --write. Steps that use
// secrets are never copied: the workflow must reference none.
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { EXIT, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";
import { renderActionWorkflow } from "./action-workflow.ts";
import { ciWorkflowNames, setupFromCi, TEST_STEP, type SetupSource, type Step } from "./ci-setup.ts";

const TEMPLATE = fileURLToPath(new URL("../../templates/autogen-verify.yml", import.meta.url));

/**
 * The test command with a JUnit report written to autogen-junit.xml and the dispatched
 * selection. Inputs reach the shell only through the environment (never `${{ }}` inside
 * `run:`, which would let a crafted test id run commands), with globbing off.
 */
function testCommand(run: string | undefined): string {
  const line = run
    ?.split("\n")
    .find((l) => TEST_STEP.test(l))
    ?.trim();
  if (!line) return 'echo "replace with your test command, writing a JUnit report to autogen-junit.xml"; exit 1';
  if (/\bpytest\b/.test(line)) return `set -f; ${line} --junitxml=autogen-junit.xml $AUTOGEN_TESTS`;
  if (/\bvitest\b/.test(line))
    return `${line} --reporter=default --reporter=junit --outputFile.junit=autogen-junit.xml`;
  if (/\bnode --test\b/.test(line))
    return `${line.replace("node --test", "node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=autogen-junit.xml")}`;
  return line;
}

export function renderVerifyWorkflow(setup: SetupSource | undefined): string {
  const template = readFileSync(TEMPLATE, "utf8");
  const doc = parse(template) as { jobs: { verify: { steps: Step[] } } };
  const steps = doc.jobs.verify.steps;
  const setupIndex = steps.findIndex((s) => String(s.name ?? "").startsWith("setup (edit me)"));
  const copied = (setup?.steps ?? []).map((s, i) => ({
    ...s,
    name: `setup (edit me): ${s.name ?? s.uses ?? `step ${i + 1}`}`,
  }));
  steps.splice(setupIndex, 1, ...(copied.length ? copied : [steps[setupIndex] as Step]));
  const tests = steps.find((s) => s.name === "tests");
  if (tests) {
    tests.env = { AUTOGEN_TESTS: "${{ inputs.tests }}" };
    tests.run = testCommand(setup?.testRun);
  }
  const header = template
    .split("\n")
    .filter((l) => l.startsWith("#"))
    .join("\n");
  const notes = setup
    ? [
        setup.fixed.length ? `matrix values fixed to one: ${setup.fixed.join(", ")}` : "",
        setup.skipped.length ? `not copied because they use secrets: ${setup.skipped.join(", ")}` : "",
        setup.unsafe.length
          ? `not copied because they expand an event value in a script, or a matrix value this job lacks: ${setup.unsafe.join(", ")}`
          : "",
      ].filter(Boolean)
    : [];
  const origin = setup
    ? `\n# Setup steps copied from ${setup.file} (job "${setup.job}")${notes.length ? `; ${notes.join("; ")}` : ""}.`
    : "\n# No CI workflow with a test step was found: add your setup steps.";
  return `${header}${origin}\n${stringify(doc, { lineWidth: 0 })}`;
}

export const initWorkflowCommand: CliCommand = {
  name: "init-workflow",
  summary:
    "print (or --write) the verification workflow, or with --action the action's workflow; setup steps taken from your CI",
  usage: [
    "autogen-bot init-workflow <path> [--action] [--write [--force]]",
    "",
    "path: the repository to set up (run this from an autogen-bot checkout and name your",
    "repository, e.g. ../my-project). Its own .github/workflows/ are read, never this checkout's.",
    "Without --action: the verification workflow",
    "(.github/workflows/autogen-verify.yml) autogen-bot dispatches to test candidates.",
    "--action: the workflow that runs the autogen-bot action (.github/workflows/autogen.yml) on",
    "labelled issues, /autogen comments, reviews of its PRs and red CI builds, one job per",
    "trigger with least permissions, one run per issue or PR at a time.",
    "--write creates the file there instead of printing it; an existing file is kept unless",
    "--force is given.",
  ].join("\n"),
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      write: { type: "boolean" },
      action: { type: "boolean" },
      force: { type: "boolean" },
    });
    if (positionals.length !== 1) {
      const what =
        positionals.length === 0
          ? "the path of the repository to set up is missing"
          : `expected one repository path, got ${positionals.length}`;
      io.stderr(
        `autogen-bot init-workflow: ${what}: autogen-bot init-workflow <path-to-your-repo> [--action] [--write]\n`,
      );
      return EXIT.usage;
    }
    const repo = resolve(io.cwd, positionals[0] ?? ".");
    if (!existsSync(repo) || !statSync(repo).isDirectory()) {
      io.stderr(`autogen-bot init-workflow: ${repo} is not a directory; name the repository to set up\n`);
      return EXIT.usage;
    }
    if (values.force && !values.write) {
      io.stderr("autogen-bot init-workflow: --force only applies with --write\n");
      return EXIT.usage;
    }
    const setup = setupFromCi(repo);
    const workflow = values.action ? renderActionWorkflow(setup, ciWorkflowNames(repo)) : renderVerifyWorkflow(setup);
    if (!values.write) {
      io.stdout(workflow);
      return EXIT.ok;
    }
    const target = join(repo, ".github", "workflows", values.action ? "autogen.yml" : "autogen-verify.yml");
    if (existsSync(target) && !values.force) {
      io.stderr(
        `autogen-bot init-workflow: ${target} already exists and was left as it is; run without --write to see the new one, or add --force to replace it\n`,
      );
      return EXIT.usage;
    }
    await mkdir(join(repo, ".github", "workflows"), { recursive: true });
    await writeFile(target, workflow);
    io.stdout(
      values.action
        ? `wrote ${target}; review the setup steps, add the AUTOGEN_LLM_* secrets if you use a model, and commit it\n`
        : `wrote ${target}; review the setup steps, commit it, and autogen-bot will verify candidates with it\n`,
    );
    return EXIT.ok;
  },
};
