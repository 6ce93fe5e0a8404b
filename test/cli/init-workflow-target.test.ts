// `init-workflow <path>` reads the CI of the repository named, not that of the checkout it
// runs from (this checkout has a CI of its own: .github/workflows/ci.yml, with a Node matrix).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { ROOT, runCli, spawnCli } from "../support/run-cli.ts";

const SAMPLE_CI = `name: Sample tests
on: [push, pull_request]
jobs:
  unit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: sample python
        uses: actions/setup-python@v5
        with:
          python-version: "3.10"
      - name: sample deps
        run: pip install -r requirements-dev.txt
      - run: pytest -q tests
`;

async function sampleRepository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-iw-target-"));
  await mkdir(join(dir, ".github", "workflows"), { recursive: true });
  await writeFile(join(dir, ".github", "workflows", "sample-tests.yml"), SAMPLE_CI);
  return dir;
}

type Steps = Array<{ name?: string; run?: string }>;

function expectSampleSetup(text: string): void {
  expect(text).toContain("Setup steps copied from sample-tests.yml");
  const names = (parse(text) as { jobs: { verify: { steps: Steps } } }).jobs.verify.steps.map((s) => s.name ?? "");
  expect(names).toContain("setup (edit me): sample deps");
  expect(names).toContain("setup (edit me): sample python");
  // Nothing of this checkout's own CI (its Node setup and npm ci).
  expect(text).not.toContain("setup-node");
  expect(text).not.toContain("npm ci");
}

describe("init-workflow <path>", () => {
  it("run from this checkout (which has a CI of its own), copies the named repository's CI", async () => {
    const sample = await sampleRepository();
    const { code, stdout, stderr } = await spawnCli(["init-workflow", sample]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expectSampleSetup(stdout);
    expect(stdout).toContain("pytest -q tests --junitxml=autogen-junit.xml");
  });

  it("--action watches the named repository's CI workflows by name", async () => {
    const sample = await sampleRepository();
    const { code, stdout } = await runCli(["init-workflow", sample, "--action"], { cwd: ROOT });
    expect(code).toBe(0);
    const workflow = parse(stdout) as { on: { workflow_run: { workflows: string[] } } };
    expect(workflow.on.workflow_run.workflows).toEqual(["Sample tests"]);
    expect(stdout).not.toContain("setup-node");
  });

  it("a relative path given to `npm run autogen --` is taken from where npm was called", async () => {
    const sample = await sampleRepository();
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const args = ["--prefix", ROOT, "run", "--silent", "autogen", "--", "init-workflow", basename(sample)];
      const env = { PATH: process.env.PATH, HOME: process.env.HOME };
      execFile("npm", args, { cwd: dirname(sample), env }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expectSampleSetup(result.stdout);
  });

  it("without a path, says which path it needs instead of reading the current folder", async () => {
    const { code, stdout, stderr } = await runCli(["init-workflow"], { cwd: ROOT });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "autogen-bot init-workflow: the path of the repository to set up is missing:" +
        " autogen-bot init-workflow <path-to-your-repo> [--action] [--write]\n",
    );
  });

  it("a path that is a file, or two paths, is a usage error saying so", async () => {
    const sample = await sampleRepository();
    const file = join(sample, ".github", "workflows", "sample-tests.yml");
    const asFile = await runCli(["init-workflow", file]);
    expect(asFile.code).toBe(2);
    const expected = `autogen-bot init-workflow: ${file} is not a directory; name the repository to set up\n`;
    expect(asFile.stderr).toBe(expected);
    const two = await runCli(["init-workflow", sample, sample]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("expected one repository path, got 2");
  });
});
