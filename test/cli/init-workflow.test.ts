import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

const CI = `name: ci
on: [push]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ruff check .
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: private index
        run: pip config set global.index-url https://\${{ secrets.PYPI_TOKEN }}@pypi.example/simple
      - name: install
        run: pip install -e .[test]
      - name: run tests
        run: pytest -q
`;

type Workflow = {
  on: { workflow_dispatch: { inputs: Record<string, unknown> } };
  "run-name": string;
  permissions: Record<string, string>;
  jobs: { verify: { strategy?: unknown; steps: Array<Record<string, unknown>> } };
};

async function repoWithCi(ci?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-iw-"));
  if (ci) {
    await mkdir(join(dir, ".github", "workflows"), { recursive: true });
    await writeFile(join(dir, ".github", "workflows", "ci.yml"), ci);
  }
  return dir;
}

describe("autogen init-workflow", () => {
  it("copies the setup steps of the CI's test job, never a step that uses secrets", async () => {
    const { code, stdout } = await runCli(["init-workflow", await repoWithCi(CI)]);
    expect(code).toBe(0);
    const workflow = parse(stdout) as Workflow;
    expect(Object.keys(workflow.on.workflow_dispatch.inputs)).toEqual(["refs", "tests", "correlation_id"]);
    expect(workflow["run-name"]).toBe("autogen-verify ${{ inputs.correlation_id }}");
    // One matrix job per candidate branch, each checking out its own ref and uploading its own report.
    expect(workflow.jobs.verify.strategy).toEqual({
      "fail-fast": false,
      matrix: { ref: "${{ fromJSON(inputs.refs) }}" },
    });
    expect(workflow.jobs.verify.steps[0]).toMatchObject({
      uses: "actions/checkout@v4",
      with: { ref: "${{ matrix.ref }}", "persist-credentials": false },
    });
    expect(workflow.jobs.verify.steps.at(-1)).toMatchObject({
      uses: "actions/upload-artifact@v4",
      with: { name: "autogen-junit-${{ inputs.correlation_id }}-${{ strategy.job-index }}" },
    });
    expect(workflow.permissions).toEqual({ contents: "read" });
    expect(workflow.jobs.verify.steps.map((s) => s.name ?? s.uses)).toEqual([
      "actions/checkout@v4",
      "setup (edit me): actions/setup-python@v5",
      "setup (edit me): install",
      "tests",
      "upload the JUnit report",
    ]);
    expect(stdout).not.toContain("secrets.");
    expect(stdout).toContain("not copied because they use secrets: private index");
    const tests = workflow.jobs.verify.steps.find((s) => s.name === "tests");
    expect(tests).toMatchObject({
      env: { AUTOGEN_TESTS: "${{ inputs.tests }}" },
      run: "set -f; pytest -q --junitxml=autogen-junit.xml $AUTOGEN_TESTS",
    });
    // No input is expanded by Actions inside a shell script.
    for (const step of workflow.jobs.verify.steps) expect(String(step.run ?? "")).not.toContain("${{");
  });

  it("without a CI workflow, leaves a marked setup step and a test step to fill in", async () => {
    const { stdout } = await runCli(["init-workflow", await repoWithCi()]);
    expect(stdout).toContain("No CI workflow with a test step was found: add your setup steps.");
    expect(stdout).toContain('name: "setup (edit me): no setup steps found"');
  });

  it("--write creates .github/workflows/autogen-verify.yml", async () => {
    const dir = await repoWithCi(CI);
    const { code, stdout } = await runCli(["init-workflow", dir, "--write"]);
    expect(code).toBe(0);
    expect(stdout).toContain("autogen-verify.yml");
    expect(await readFile(join(dir, ".github", "workflows", "autogen-verify.yml"), "utf8")).toContain(
      "workflow_dispatch",
    );
  });

  it("--write keeps an existing autogen-verify.yml unless --force", async () => {
    const dir = await repoWithCi(CI);
    const target = join(dir, ".github", "workflows", "autogen-verify.yml");
    await writeFile(target, "# my edits\n");
    const kept = await runCli(["init-workflow", dir, "--write"]);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain(`${target} already exists and was left as it is`);
    expect(await readFile(target, "utf8")).toBe("# my edits\n");
    const forced = await runCli(["init-workflow", dir, "--write", "--force"]);
    expect(forced.code).toBe(0);
    expect(await readFile(target, "utf8")).toContain("workflow_dispatch");
  });

  it("fixes matrix values to one and leaves out a step that expands an event value in its script", async () => {
    const ci = CI.replace('python-version: "3.12"', "python-version: ${{ matrix.python }}")
      .replace(
        "  test:\n    runs-on: ubuntu-latest\n",
        '  test:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        python: ["3.11", "3.13"]\n',
      )
      .replace(
        "      - name: install\n",
        '      - name: greet\n        run: echo "${{ github.event.head_commit.message }}"\n      - name: install\n',
      );
    const { stdout } = await runCli(["init-workflow", await repoWithCi(ci)]);
    const workflow = parse(stdout) as Workflow;
    expect(workflow.jobs.verify.steps.map((s) => s.name ?? s.uses)).toEqual([
      "actions/checkout@v4",
      "setup (edit me): actions/setup-python@v5",
      "setup (edit me): install",
      "tests",
      "upload the JUnit report",
    ]);
    expect(workflow.jobs.verify.steps[1]).toMatchObject({ with: { "python-version": "3.13" } });
    expect(stdout).toContain("matrix values fixed to one: python=3.13");
    expect(stdout).toContain(
      "not copied because they expand an event value in a script, or a matrix value this job lacks: greet",
    );
    expect(stdout).not.toContain("head_commit");
  });
});
