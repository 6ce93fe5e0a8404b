// `autogen init-workflow`: the verification workflow a maintainer installs, with the
// setup steps taken from the repository's own CI (the steps before its test step) so
// nobody has to write setup scripts. Printed, or written with --write. Steps that use
// secrets are never copied: the workflow must reference none.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { EXIT, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

const TEMPLATE = fileURLToPath(new URL("../../templates/autogen-verify.yml", import.meta.url));
const TEST_STEP = /\b(pytest|tox|nox|npm (run )?test|npm t\b|yarn test|pnpm test|vitest|jest|mocha|node --test|go test|cargo test|mvn|gradle|make test)\b/;

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown>; [key: string]: unknown };
type Job = { steps?: Step[] };

export type SetupSource = { file: string; job: string; steps: Step[]; testRun: string; skipped: string[] };

/** The steps before the first test step of the first job that runs tests. */
export function setupFromCi(repo: string): SetupSource | undefined {
  const dir = join(repo, ".github", "workflows");
  if (!existsSync(dir)) return undefined;
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && !f.startsWith("autogen-verify")).sort()) {
    let doc: { jobs?: Record<string, Job> };
    try {
      doc = parse(readFileSync(join(dir, file), "utf8")) as { jobs?: Record<string, Job> };
    } catch {
      continue;
    }
    for (const [name, job] of Object.entries(doc?.jobs ?? {})) {
      const steps = job.steps ?? [];
      const index = steps.findIndex((s) => typeof s.run === "string" && TEST_STEP.test(s.run));
      if (index < 0) continue;
      const before = steps.slice(0, index).filter((s) => !(typeof s.uses === "string" && s.uses.startsWith("actions/checkout")));
      const usesSecrets = (s: Step) => JSON.stringify(s).includes("secrets.");
      return { file, job: name, steps: before.filter((s) => !usesSecrets(s)), testRun: String(steps[index]?.run).trim(), skipped: before.filter(usesSecrets).map((s) => s.name ?? s.uses ?? "a step") };
    }
  }
  return undefined;
}

/**
 * The test command with a JUnit report written to autogen-junit.xml and the dispatched
 * selection. Inputs reach the shell only through the environment (never `${{ }}` inside
 * `run:`, which would let a crafted test id run commands), with globbing off.
 */
function testCommand(run: string | undefined): string {
  const line = run?.split("\n").find((l) => TEST_STEP.test(l))?.trim();
  if (!line) return 'echo "replace with your test command, writing a JUnit report to autogen-junit.xml"; exit 1';
  if (/\bpytest\b/.test(line)) return `set -f; ${line} --junitxml=autogen-junit.xml $AUTOGEN_TESTS`;
  if (/\bvitest\b/.test(line)) return `${line} --reporter=default --reporter=junit --outputFile.junit=autogen-junit.xml`;
  if (/\bnode --test\b/.test(line)) return `${line.replace("node --test", "node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=autogen-junit.xml")}`;
  return line;
}

export function renderVerifyWorkflow(setup: SetupSource | undefined): string {
  const template = readFileSync(TEMPLATE, "utf8");
  const doc = parse(template) as { jobs: { verify: { steps: Step[] } } };
  const steps = doc.jobs.verify.steps;
  const setupIndex = steps.findIndex((s) => String(s.name ?? "").startsWith("setup (edit me)"));
  const copied = (setup?.steps ?? []).map((s, i) => ({ ...s, name: `setup (edit me): ${s.name ?? s.uses ?? `step ${i + 1}`}` }));
  steps.splice(setupIndex, 1, ...(copied.length ? copied : [steps[setupIndex] as Step]));
  const tests = steps.find((s) => s.name === "tests");
  if (tests) {
    tests.env = { AUTOGEN_TESTS: "${{ inputs.tests }}" };
    tests.run = testCommand(setup?.testRun);
  }
  const header = template.split("\n").filter((l) => l.startsWith("#")).join("\n");
  const origin = setup ? `\n# Setup steps copied from ${setup.file} (job "${setup.job}")${setup.skipped.length ? `; not copied because they use secrets: ${setup.skipped.join(", ")}` : ""}.` : "\n# No CI workflow with a test step was found: add your setup steps.";
  return `${header}${origin}\n${stringify(doc, { lineWidth: 0 })}`;
}

export const initWorkflowCommand: CliCommand = {
  name: "init-workflow",
  summary: "print (or --write) the verification workflow, with setup steps taken from your CI",
  usage: "autogen init-workflow [path] [--write]\n\npath defaults to the current directory; --write creates .github/workflows/autogen-verify.yml there.",
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { write: { type: "boolean" } });
    const repo = resolve(io.cwd, positionals[0] ?? ".");
    if (!existsSync(repo)) {
      io.stderr(`autogen init-workflow: ${repo} does not exist\n`);
      return EXIT.usage;
    }
    const workflow = renderVerifyWorkflow(setupFromCi(repo));
    if (!values.write) {
      io.stdout(workflow);
      return EXIT.ok;
    }
    const target = join(repo, ".github", "workflows", "autogen-verify.yml");
    await mkdir(join(repo, ".github", "workflows"), { recursive: true });
    await writeFile(target, workflow);
    io.stdout(`wrote ${target}; review the setup steps, commit it, and autogen-bot will verify candidates with it\n`);
    return EXIT.ok;
  },
};
