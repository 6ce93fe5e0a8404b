// Stands in for GitHub's runners in the App's end-to-end tests: the tests of a commit of
// the (local, bare) repository are really run with pytest, the job log is written in the
// format the Actions runner writes (a timestamp on every line, ##[group] and ##[error]
// markers), and the JUnit report is zipped with the real `zip`, as upload-artifact does.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pythonExecutable } from "../../src/verify/runners/python-executable.ts";
import type { FakeActions, FakeDispatch, FakeRun } from "./fake-github.ts";

const run = promisify(execFile);
let nextId = 50_000;

const stamp = () => new Date().toISOString().replace(/Z$/, "0000Z");
const asLog = (lines: string[]) => `${lines.map((l) => `${stamp()} ${l}`).join("\n")}\n`;

/** `zip`: the JUnit report, absent when the job died before writing one. */
export type TestRun = { log: string; zip?: Buffer | undefined; passed: boolean };

type PytestResult = { code: number; output: string; zip: Buffer };

/**
 * pytest's results by tree and test selection. Runs of the same files with the same selection give
 * the same result (each run is in a fresh checkout, as on Actions, with the same interpreter and
 * environment), so a tree dispatched again with the same selection (one test's run repeated across
 * batches, or the same fixture's commit in the next test of the file, whose repositories are copies
 * of one) is run once per test file and its output replayed in a freshly stamped log.
 */
const results = new Map<string, Promise<PytestResult>>();

async function runPytest(remote: string, ref: string, tests: string): Promise<PytestResult> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-runner-"));
  try {
    await run("git", ["clone", "--quiet", "--no-checkout", remote, dir]);
    await run("git", ["-C", dir, "checkout", "--quiet", ref]);
    const args = [
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      "--junitxml=autogen-junit.xml",
      ...tests.split(" ").filter(Boolean),
    ];
    const result = await run(pythonExecutable(), args, {
      cwd: dir,
      env: { ...process.env, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 1,
        output: (e.stdout ?? "") + (e.stderr ?? ""),
      }),
    );
    await run("zip", ["-q", "-j", "report.zip", "autogen-junit.xml"], { cwd: dir });
    return { ...result, zip: await readFile(join(dir, "report.zip")) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Checks out `ref` of `remote` and runs `pytest --junitxml` on it (the step a CI job runs). */
export async function runTestsLikeActions(remote: string, ref: string, tests = ""): Promise<TestRun> {
  const tree = (
    await run("git", ["--git-dir", remote, "rev-parse", "--verify", "--quiet", `${ref}^{tree}`])
  ).stdout.trim();
  // Per test file (its temporary folder: a worker process runs several files).
  const key = JSON.stringify([tmpdir(), tree, tests]);
  let pending = results.get(key);
  if (!pending) {
    pending = runPytest(remote, ref, tests);
    results.set(key, pending);
    pending.catch(() => results.delete(key));
  }
  const result = await pending;
  const log = asLog([
    "Current runner version: '2.321.0'",
    "##[group]Run actions/checkout@v4",
    `Checking out ${ref}`,
    "##[endgroup]",
    "##[group]Run set -f; pytest -q --junitxml=autogen-junit.xml $AUTOGEN_TESTS",
    "##[endgroup]",
    ...result.output.trimEnd().split("\n"),
    ...(result.code === 0 ? [] : [`##[error]Process completed with exit code ${result.code}.`]),
  ]);
  return { log, zip: result.zip, passed: result.code === 0 };
}

function addJob(actions: FakeActions, runId: number, name: string, result: { log: string; passed: boolean }) {
  const conclusion = result.passed ? "success" : "failure";
  actions.jobs.push({
    id: nextId++,
    run_id: runId,
    name,
    status: "completed",
    conclusion,
    steps: [
      { number: 1, name: "Set up job", status: "completed", conclusion: "success" },
      { number: 2, name: "Run actions/checkout@v4", status: "completed", conclusion: "success" },
      { number: 3, name: "tests", status: "completed", conclusion },
    ],
    log: result.log,
  });
}

/** Runs a dispatched verification workflow: one matrix job per ref, each with its JUnit artifact. */
export async function runDispatch(
  actions: FakeActions,
  remote: string,
  dispatch: FakeDispatch,
  run: FakeRun,
): Promise<void> {
  run.status = "in_progress";
  const refs = JSON.parse(dispatch.inputs.refs ?? "[]") as string[];
  // Matrix jobs run side by side, as on Actions; their jobs and artifacts are listed in matrix order.
  const results = await Promise.all(refs.map((ref) => runTestsLikeActions(remote, ref, dispatch.inputs.tests)));
  let passed = true;
  for (const [index, ref] of refs.entries()) {
    const result = results[index] as TestRun;
    addJob(actions, run.id, `verify (${ref})`, result);
    if (result.zip)
      actions.artifacts.push({
        id: nextId++,
        run_id: run.id,
        name: `autogen-junit-${dispatch.inputs.correlation_id}-${index}`,
        zip: result.zip,
        expired: false,
      });
    passed &&= result.passed;
  }
  Object.assign(run, { status: "completed", conclusion: passed ? "success" : "failure" });
}

/** The pull request's own CI on `sha`: a completed run with a `test` job and a `test-results` artifact. */
export async function ciRun(
  actions: FakeActions,
  remote: string,
  pr: { sha: string; branch: string; number: number; fork?: boolean },
  result?: TestRun,
): Promise<FakeRun> {
  const outcome = result ?? (await runTestsLikeActions(remote, pr.sha));
  const id = nextId++;
  const fakeRun: FakeRun = {
    id,
    name: "CI",
    path: ".github/workflows/ci.yml",
    display_title: "CI",
    event: "pull_request",
    status: "completed",
    conclusion: outcome.passed ? "success" : "failure",
    head_sha: pr.sha,
    head_branch: pr.branch,
    pull_requests: pr.fork ? [] : [{ number: pr.number }],
    created_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    html_url: `https://github.com/octo-org/shop/actions/runs/${id}`,
    check_suite_id: nextId++,
  };
  actions.runs.push(fakeRun);
  addJob(actions, id, "test", outcome);
  if (outcome.zip)
    actions.artifacts.push({ id: nextId++, run_id: id, name: "test-results", zip: outcome.zip, expired: false });
  return fakeRun;
}

/** A job log in the runner's format, for a run that failed for reasons of its own. */
export function runnerLog(lines: string[]): string {
  return asLog(lines);
}
