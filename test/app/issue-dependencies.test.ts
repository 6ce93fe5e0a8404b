// The App's issue job installs the repository's dependencies before its baseline: a
// Python repository whose code imports a package listed in requirements.txt (a wheel it
// commits, installed offline), two jobs, the second taking the install from the cache.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
const FILES = {
  "requirements.txt": "--find-links wheels\ntiny-math==1.0.0\n",
  "shop/__init__.py": "",
  "shop/cart.py":
    "from tiny_math import double\n\n\ndef total(prices, discount):\n    subtotal = sum(prices)\n    return double(subtotal) // 2 + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
  ".github/autogen.yml": CONFIG,
};

/** A pure-Python wheel (a zip with its metadata), committed in the repository. */
const WHEEL = [
  "import sys, zipfile",
  "z = zipfile.ZipFile(sys.argv[1] + '/tiny_math-1.0.0-py3-none-any.whl', 'w')",
  "z.writestr('tiny_math/__init__.py', 'def double(x):\\n    return x * 2\\n')",
  "z.writestr('tiny_math-1.0.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: tiny-math\\nVersion: 1.0.0\\n')",
  "z.writestr('tiny_math-1.0.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
  "z.writestr('tiny_math-1.0.0.dist-info/RECORD', '')",
  "z.close()",
].join("\n");

let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
let root: string;
const network = networkGuard();

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-app-"));
  const work = await gitRepo(FILES);
  await mkdir(join(work, "wheels"));
  execFileSync("python3", ["-c", WHEEL, join(work, "wheels")]);
  await git(work).raw(["add", "--all"]);
  await git(work).raw([
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "wheel",
  ]);
  remote = join(root, "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  state = {
    issue: { title: "Discount is added", body: "total([10, 20], 5) gives 35, it should be 25." },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write" },
    files: { ".github/autogen.yml": CONFIG },
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
  store = new JobStore(join(root, "jobs.db"));
});

afterEach(() => {
  const { unmatched, unused } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched, "requests nothing answered").toEqual([]);
  expect(unused, "scripted model answers never used").toEqual([]);
});

async function startApp() {
  let pool: WorkerPool | undefined;
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  await probot.load(
    createAutogenApp({
      store,
      cacheRoot: join(root, "cache"),
      scrub: secretScrubber([testPrivateKey()]),
      concurrency: 1,
      perInstallation: 1,
      statusThrottleMs: 60_000,
      onReady: (p) => (pool = p),
    }),
  );
  return { probot, idle: () => pool?.idle() ?? Promise.resolve() };
}

function labeled(number: number) {
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & {
    repository: Record<string, unknown>;
    issue: Record<string, unknown>;
  };
  payload.repository = {
    ...payload.repository,
    name: "shop",
    full_name: "octo-org/shop",
    default_branch: "main",
    owner: { ...(payload.repository.owner as object), login: "octo-org" },
  };
  payload.issue = { ...payload.issue, number, title: state.issue.title, body: state.issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

describe("issue job with dependencies", () => {
  it("installs requirements.txt in the sandbox before the baseline, and the next job takes it from the cache", async () => {
    const { probot, idle } = await startApp();
    await probot.receive({ id: "delivery-1", name: "issues", payload: labeled(42) } as never);
    await idle();
    expect(state.pulls).toHaveLength(1);
    const first = state.pulls[0]?.body ?? "";
    expect(first).toMatch(
      /Dependencies \(pip, from `requirements\.txt`\): installed fresh with `python3 -m pip install --disable-pip-version-check --no-input --target <cache>\/site --no-index -r requirements\.txt` in the sandbox \(without network\) in [\d.]+ s; cached for later jobs\./,
    );
    // The baseline imported the installed package: one test failed on the bug, not both on an ImportError.
    expect(first).toContain("| `tests/test_cart.py::test_total_applies_discount` | ❌ fail | ✅ pass |");
    // One scope (this installation's repository), holding one pip entry.
    const scopes = readdirSync(join(root, "install-cache"));
    expect(scopes).toHaveLength(1);
    expect(
      readdirSync(join(root, "install-cache", scopes[0] as string)).filter((name) => name.startsWith("pip-")),
    ).toHaveLength(1);

    state.pulls.length = 0;
    await probot.receive({ id: "delivery-2", name: "issues", payload: labeled(43) } as never);
    await idle();
    expect(state.pulls).toHaveLength(1);
    expect(state.pulls[0]?.body).toMatch(
      /Dependencies \(pip, from `requirements\.txt`\): from cache \(installed by an earlier job with `python3 -m pip install .* -r requirements\.txt` from the same lockfile\), ready in [\d.]+ s\./,
    );
  });
});
